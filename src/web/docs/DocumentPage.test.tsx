// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { render, type Rendered } from '../testing/renderDom.js';
import { informationSheetEn } from './content/informationSheet.en.js';
import { informationSheetFr } from './content/informationSheet.fr.js';
import { privacyPolicyEn } from './content/privacyPolicy.en.js';
import { privacyPolicyFr } from './content/privacyPolicy.fr.js';
import type { ParticipantDocument } from './content/types.js';
import { documentLanguage } from './documentLanguage.js';
import InformationSheet from './InformationSheet.js';
import { LAB_CONTACT_EMAIL } from './labContact.js';
import PrivacyPolicy from './PrivacyPolicy.js';

let page: Rendered | undefined;
afterEach(() => {
  page?.unmount();
  history.replaceState(null, '', '/');
});

function open(Component: () => React.JSX.Element, url: string) {
  history.replaceState(null, '', url);
  page = render(<Component />);
  return page;
}

describe('documentLanguage', () => {
  it('French on nantes, English elsewhere, ?lang overrides', () => {
    expect(documentLanguage('?platform=nantes')).toBe('fr');
    expect(documentLanguage('?platform=prolific')).toBe('en');
    expect(documentLanguage('')).toBe('en');
    expect(documentLanguage('?platform=nantes&lang=en')).toBe('en');
    expect(documentLanguage('?lang=fr')).toBe('fr');
    expect(documentLanguage('?lang=de')).toBe('en');
  });
});

describe('/rgpd_file and /ficheInfo', () => {
  it('the privacy policy is English by default, with the lab address as a mail link', () => {
    const p = open(PrivacyPolicy, '/rgpd_file?platform=mturk');
    expect(p.container.querySelector('h1')?.textContent).toBe('Privacy policy');
    expect(p.text()).not.toContain('{contact}');
    expect(p.container.querySelector(`a[href="mailto:${LAB_CONTACT_EMAIL}"]`)).not.toBeNull();
    expect(p.container.querySelector('a[href="?lang=fr"]')?.textContent).toBe('Version française');
    expect(p.container.querySelector('a[href="/ficheInfo?lang=en"]')?.textContent).toBe('Information sheet');
  });

  it('the information sheet is French on the nantes platform', () => {
    const p = open(InformationSheet, '/ficheInfo?platform=nantes');
    expect(p.container.querySelector('h1')?.textContent).toBe("Fiche d'information");
    expect(p.container.querySelector('article')?.getAttribute('lang')).toBe('fr');
    expect(p.container.querySelector('a[href="/rgpd_file?lang=fr"]')?.textContent).toBe('Politique de confidentialité');
  });

  it.each([
    ['privacy policy', privacyPolicyEn, privacyPolicyFr],
    ['information sheet', informationSheetEn, informationSheetFr],
  ])('the %s says the same thing in both languages', (_name, en: ParticipantDocument, fr: ParticipantDocument) => {
    expect(fr.sections.map((s) => [s.list?.length, s.paragraphs?.length])).toEqual(
      en.sections.map((s) => [s.list?.length, s.paragraphs?.length]),
    );
  });

  it('the privacy policy states what is stored, for how long and how to withdraw', () => {
    const all = (doc: ParticipantDocument) => JSON.stringify(doc);
    for (const fact of ['rating', 'interaction log', 'browser', 'Prolific ID', 'consent form', '12 months', '10 years', '5 years', 'verification code', 'GDPR', 'CNIL']) {
      expect(all(privacyPolicyEn)).toContain(fact);
    }
    for (const fact of ['note', "journal d'interaction", 'navigateur', 'identifiant Prolific', 'formulaire de consentement', '12 mois', '10 ans', '5 ans', 'code de vérification', 'RGPD', 'CNIL']) {
      expect(all(privacyPolicyFr)).toContain(fact);
    }
  });
});
