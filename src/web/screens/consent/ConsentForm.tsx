import { useState, type FormEvent, type ReactNode } from 'react';
import type { ConsentBody } from '../../../contract/payloads.js';
import type { Strings } from '../../i18n/index.js';
import { fr } from '../../i18n/fr.js';
import {
  CONSENT_MAX_LENGTH,
  EMPTY_CONSENT,
  consentEmail,
  validateConsent,
  type ConsentChoice,
  type ConsentField,
  type ConsentFormValues,
} from './consentValidation.js';
import './consent.css';

export interface ConsentFormProps {
  /** The `email` query parameter of the invitation link; the lab address is used when absent. */
  email?: string | null;
  /** The completed form (the journey posts it and continues whatever the answer, SPEC §7). */
  onSubmit(form: ConsentBody): void;
  /** The form is French (lab platform); another table can be given for previews. */
  strings?: Strings;
}

type Values = Omit<ConsentFormValues, 'emailAddress'>;

/** French consent form of the lab platform (SPEC §2 screen 7, §5); posts the §3 consent payload. */
export function ConsentForm({ email, onSubmit, strings: s = fr }: ConsentFormProps) {
  const emailAddress = consentEmail(email);
  const [values, setValues] = useState<Values>(EMPTY_CONSENT);
  const [invalid, setInvalid] = useState<ConsentField[]>([]);
  const [sending, setSending] = useState(false);
  const set = <K extends keyof Values>(field: K, value: Values[K]) => setValues((v) => ({ ...v, [field]: value }));
  const wrong = (field: ConsentField) => invalid.includes(field);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (sending) return;
    const result = validateConsent({ ...values, emailAddress });
    if (!result.ok) {
      setInvalid(result.invalid);
      return;
    }
    setInvalid([]);
    setSending(true);
    onSubmit(result.body);
  };

  const box = (field: 'infoSheetRead' | 'adultNoLegalProtection' | 'proposalReceived' | 'termsUnderstood', label: ReactNode) => (
    <label className={`consent-box${wrong(field) ? ' consent-wrong' : ''}`}>
      <input
        type="checkbox"
        name={field}
        checked={values[field]}
        onChange={(e) => set(field, e.target.checked)}
        aria-invalid={wrong(field)}
      />
      <span>{label}</span>
    </label>
  );
  const choice = (field: 'participationChoice' | 'dataProcessingChoice', question: string) => (
    <fieldset className={`consent-choice${wrong(field) ? ' consent-wrong' : ''}`} aria-invalid={wrong(field)}>
      <legend>{question}</legend>
      {(['consent', 'refuse'] as const).map((option: Exclude<ConsentChoice, null>) => (
        <label key={option}>
          <input
            type="radio"
            name={field}
            value={option}
            checked={values[field] === option}
            onChange={() => set(field, option)}
          />
          {option === 'consent' ? s.consentYes : s.consentNo}
        </label>
      ))}
    </fieldset>
  );
  const text = (field: 'paraphe' | 'name' | 'familyName' | 'birthCountry', label: string, autoComplete: string) => (
    <label className="consent-field">
      <span>{label}</span>
      <input
        name={field}
        value={values[field]}
        maxLength={CONSENT_MAX_LENGTH[field]}
        autoComplete={autoComplete}
        onChange={(e) => set(field, e.target.value)}
        aria-invalid={wrong(field)}
        className={wrong(field) ? 'consent-wrong' : undefined}
      />
    </label>
  );
  const docLink = (path: string, label: string) => (
    <a href={`${path}?lang=${s.documentsLang}`} target="_blank" rel="noopener noreferrer">
      {label}
    </a>
  );

  return (
    <form className="consent-form" onSubmit={submit} noValidate>
      <h1>{s.consentTitle}</h1>
      <p>{s.consentIntro}</p>
      {box('infoSheetRead', <>{s.consentInfoSheetBefore}{docLink('/ficheInfo', s.consentInfoSheetLink)}{s.consentInfoSheetAfter}</>)}
      {box('adultNoLegalProtection', s.consentAdult)}
      {box('proposalReceived', s.consentProposal)}
      {box('termsUnderstood', <>{s.consentTermsBefore}{docLink('/rgpd_file', s.consentTermsLink)}{s.consentTermsAfter}</>)}
      {choice('participationChoice', s.consentParticipationQuestion)}
      {choice('dataProcessingChoice', s.consentDataQuestion)}

      <fieldset className="consent-identity">
        <legend>{s.consentIdentityLegend}</legend>
        <fieldset className={`consent-gender${wrong('gender') ? ' consent-wrong' : ''}`} aria-invalid={wrong('gender')}>
          <legend>{s.consentGender}</legend>
          {(['M.', 'Mme.'] as const).map((gender) => (
            <label key={gender}>
              <input type="radio" name="gender" value={gender} checked={values.gender === gender} onChange={() => set('gender', gender)} />
              {gender === 'M.' ? s.consentGenderMr : s.consentGenderMrs}
            </label>
          ))}
        </fieldset>
        {text('name', s.consentFirstName, 'given-name')}
        {text('familyName', s.consentFamilyName, 'family-name')}
        {text('birthCountry', s.consentBirthCountry, 'country-name')}
        <label className="consent-field">
          <span>{s.consentBirthDay}</span>
          <input
            type="text"
            name="birthDay"
            inputMode="numeric"
            autoComplete="bday"
            placeholder={s.consentDatePlaceholder}
            maxLength={10}
            value={values.birthDay}
            onChange={(e) => set('birthDay', e.target.value)}
            aria-invalid={wrong('birthDay')}
            className={wrong('birthDay') ? 'consent-wrong' : undefined}
          />
        </label>
        <label className="consent-field">
          <span>{s.consentEmail}</span>
          <input type="email" name="emailAddress" value={emailAddress} readOnly />
        </label>
        {text('paraphe', s.consentParaphe, 'off')}
      </fieldset>

      <p className="consent-note">{s.consentPdfNote}</p>
      {invalid.length > 0 && (
        <p className="consent-error" role="alert">
          {s.consentIncomplete}
        </p>
      )}
      <div className="actions consent-actions">
        <button type="submit" disabled={sending}>
          {sending ? s.consentSending : s.consentSubmit}
        </button>
      </div>
    </form>
  );
}
