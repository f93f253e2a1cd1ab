import { privacyPolicyEn } from './content/privacyPolicy.en.js';
import { privacyPolicyFr } from './content/privacyPolicy.fr.js';
import { DocumentPage } from './DocumentPage.js';

const VERSIONS = { en: privacyPolicyEn, fr: privacyPolicyFr };

/** Route /rgpd_file: the privacy policy (?lang=fr|en, else French on ?platform=nantes). */
export default function PrivacyPolicy() {
  return <DocumentPage versions={VERSIONS} seeAlsoPath="/ficheInfo" />;
}
