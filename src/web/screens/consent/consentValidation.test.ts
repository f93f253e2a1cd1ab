import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { ConsentBody } from '../../../contract/payloads.js';
import { LAB_CONTACT_EMAIL } from '../../docs/labContact.js';
import { consentEmail, EMPTY_CONSENT, validateConsent, type ConsentField, type ConsentFormValues } from './consentValidation.js';

const TODAY = new Date(2025, 5, 14, 15, 30); // 14 June 2025, local time

const complete: ConsentFormValues = {
  infoSheetRead: true,
  adultNoLegalProtection: true,
  proposalReceived: true,
  termsUnderstood: true,
  participationChoice: 'consent',
  dataProcessingChoice: 'consent',
  paraphe: ' JD ',
  gender: 'Mme.',
  name: 'Jeanne ',
  familyName: ' Dupont',
  birthCountry: 'France',
  birthDay: '23/04/1990',
  emailAddress: 'jeanne.dupont@example.fr',
};

const invalidFields = (values: ConsentFormValues, today = TODAY): ConsentField[] => {
  const result = validateConsent(values, today);
  return result.ok ? [] : result.invalid;
};

describe('validateConsent', () => {
  it('a complete form gives the §3 consent payload, trimmed, dated today', () => {
    const result = validateConsent(complete, TODAY);
    expect(result).toEqual({
      ok: true,
      body: {
        emailAddress: 'jeanne.dupont@example.fr',
        paraphe: 'JD',
        gender: 'Mme.',
        name: 'Jeanne',
        familyName: 'Dupont',
        birthCountry: 'France',
        birthDay: '1990-04-23',
        currentDate: { day: 14, month: 6, year: 2025 },
      },
    });
    // What the form sends is what the server's schema accepts.
    expect(result.ok && Value.Check(ConsentBody, result.body)).toBe(true);
  });

  it('each of the four boxes is required', () => {
    for (const box of ['infoSheetRead', 'adultNoLegalProtection', 'proposalReceived', 'termsUnderstood'] as const) {
      expect(invalidFields({ ...complete, [box]: false })).toEqual([box]);
    }
  });

  it('both consent questions must be answered, and answered with consent', () => {
    expect(invalidFields({ ...complete, participationChoice: null })).toEqual(['participationChoice']);
    expect(invalidFields({ ...complete, participationChoice: 'refuse' })).toEqual(['participationChoice']);
    expect(invalidFields({ ...complete, dataProcessingChoice: null })).toEqual(['dataProcessingChoice']);
    expect(invalidFields({ ...complete, dataProcessingChoice: 'refuse' })).toEqual(['dataProcessingChoice']);
  });

  it('paraphe, gender, first name, family name, birth country and birth date are required', () => {
    expect(invalidFields({ ...complete, paraphe: '  ' })).toEqual(['paraphe']);
    expect(invalidFields({ ...complete, gender: null })).toEqual(['gender']);
    expect(invalidFields({ ...complete, name: '' })).toEqual(['name']);
    expect(invalidFields({ ...complete, familyName: '' })).toEqual(['familyName']);
    expect(invalidFields({ ...complete, birthCountry: '\t' })).toEqual(['birthCountry']);
    expect(invalidFields({ ...complete, birthDay: '' })).toEqual(['birthDay']);
  });

  it('lists every missing item of an empty form', () => {
    // The form's starting values: every item is missing.
    const empty: ConsentFormValues = { ...EMPTY_CONSENT, emailAddress: complete.emailAddress };
    expect(invalidFields(empty)).toHaveLength(12);
  });

  it('refuses impossible or future birth dates and over-long fields', () => {
    expect(invalidFields({ ...complete, birthDay: '30/02/1990' })).toEqual(['birthDay']);
    // The French order only: an ISO or American date is refused rather than read wrongly.
    expect(invalidFields({ ...complete, birthDay: '1990-04-23' })).toEqual(['birthDay']);
    expect(invalidFields({ ...complete, birthDay: '15/06/2025' })).toEqual(['birthDay']);
    expect(invalidFields({ ...complete, birthDay: '31/12/1899' })).toEqual(['birthDay']);
    expect(invalidFields({ ...complete, birthDay: '14/06/2025' })).toEqual([]);
    expect(invalidFields({ ...complete, birthDay: '4/6/2001' })).toEqual([]);
    expect(invalidFields({ ...complete, paraphe: 'x'.repeat(51) })).toEqual(['paraphe']);
    expect(invalidFields({ ...complete, name: 'x'.repeat(201) })).toEqual(['name']);
  });
});

describe('consentEmail', () => {
  it('uses the email of the invitation link', () => {
    expect(consentEmail('paul@labo.fr')).toBe('paul@labo.fr');
    expect(consentEmail(' paul@labo.fr ')).toBe('paul@labo.fr');
  });

  it('falls back to the lab address when the link has none or an unusable one', () => {
    expect(consentEmail(undefined)).toBe(LAB_CONTACT_EMAIL);
    expect(consentEmail(null)).toBe(LAB_CONTACT_EMAIL);
    expect(consentEmail('')).toBe(LAB_CONTACT_EMAIL);
    expect(consentEmail('not an email')).toBe(LAB_CONTACT_EMAIL);
    expect(Value.Check(ConsentBody.properties.emailAddress, LAB_CONTACT_EMAIL)).toBe(true);
  });
});
