import type { ConsentBody } from '../../../contract/payloads.js';
import { LAB_CONTACT_EMAIL } from '../../docs/labContact.js';

/** Answer to each of the two consent questions; only 'consent' lets the participant go on. */
export type ConsentChoice = 'consent' | 'refuse' | null;

/** Everything the French consent form collects (SPEC §5), as typed. */
export interface ConsentFormValues {
  infoSheetRead: boolean;
  adultNoLegalProtection: boolean;
  proposalReceived: boolean;
  termsUnderstood: boolean;
  participationChoice: ConsentChoice;
  dataProcessingChoice: ConsentChoice;
  paraphe: string;
  gender: ConsentBody['gender'] | null;
  name: string;
  familyName: string;
  birthCountry: string;
  /** yyyy-mm-dd, as an <input type="date"> gives it. */
  birthDay: string;
  emailAddress: string;
}

export type ConsentField = keyof ConsentFormValues;

export const EMPTY_CONSENT: Omit<ConsentFormValues, 'emailAddress'> = {
  infoSheetRead: false,
  adultNoLegalProtection: false,
  proposalReceived: false,
  termsUnderstood: false,
  participationChoice: null,
  dataProcessingChoice: null,
  paraphe: '',
  gender: null,
  name: '',
  familyName: '',
  birthCountry: '',
  birthDay: '',
};

/** Same limits as the server's ConsentBody schema, so a form that validates here is never refused there. */
export const CONSENT_MAX_LENGTH = { paraphe: 50, name: 200, familyName: 200, birthCountry: 200 } as const;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

/** The email of the invitation link, or the lab's address when the link has none (or an unusable one). */
export function consentEmail(queryEmail: string | null | undefined): string {
  const email = queryEmail?.trim() ?? '';
  return EMAIL_PATTERN.test(email) && email.length <= 320 ? email : LAB_CONTACT_EMAIL;
}

/**
 * The birth date as typed in the French order, jj/mm/aaaa (the form is French: a browser date input would show
 * the order of the browser's own language), as the ISO day of the payload; null when it is not a real calendar
 * date, is in the future or before 1900. Day and month may have one digit; '.' and '-' separate too.
 */
export function birthDayIso(typed: string, today: Date): string | null {
  const match = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(typed.trim());
  if (!match) return null;
  const [day, month, year] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(year, month - 1, day);
  const isReal = date.getFullYear() === year && date.getMonth() === month - 1 && date.getDate() === day;
  if (!isReal || year < 1900 || date.getTime() > today.getTime()) return null;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const filled = (text: string, max: number) => text.trim() !== '' && text.trim().length <= max;

export type ConsentValidation = { ok: true; body: ConsentBody } | { ok: false; invalid: ConsentField[] };

/**
 * Every box ticked, both questions answered with consent (refusing either means not taking part: the
 * payload has no field for a refusal), every identity field filled. The body carries today's date.
 */
export function validateConsent(values: ConsentFormValues, today: Date = new Date()): ConsentValidation {
  const invalid: ConsentField[] = [];
  const require = (field: ConsentField, ok: boolean) => {
    if (!ok) invalid.push(field);
  };
  require('infoSheetRead', values.infoSheetRead);
  require('adultNoLegalProtection', values.adultNoLegalProtection);
  require('proposalReceived', values.proposalReceived);
  require('termsUnderstood', values.termsUnderstood);
  require('participationChoice', values.participationChoice === 'consent');
  require('dataProcessingChoice', values.dataProcessingChoice === 'consent');
  require('paraphe', filled(values.paraphe, CONSENT_MAX_LENGTH.paraphe));
  require('gender', values.gender === 'M.' || values.gender === 'Mme.');
  require('name', filled(values.name, CONSENT_MAX_LENGTH.name));
  require('familyName', filled(values.familyName, CONSENT_MAX_LENGTH.familyName));
  require('birthCountry', filled(values.birthCountry, CONSENT_MAX_LENGTH.birthCountry));
  const birthDay = birthDayIso(values.birthDay, today);
  require('birthDay', birthDay !== null);
  require('emailAddress', EMAIL_PATTERN.test(values.emailAddress));
  if (invalid.length > 0 || values.gender === null || birthDay === null) return { ok: false, invalid };
  return {
    ok: true,
    body: {
      emailAddress: values.emailAddress,
      paraphe: values.paraphe.trim(),
      gender: values.gender,
      name: values.name.trim(),
      familyName: values.familyName.trim(),
      birthCountry: values.birthCountry.trim(),
      birthDay,
      currentDate: { day: today.getDate(), month: today.getMonth() + 1, year: today.getFullYear() },
    },
  };
}
