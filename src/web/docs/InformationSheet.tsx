import { informationSheetEn } from './content/informationSheet.en.js';
import { informationSheetFr } from './content/informationSheet.fr.js';
import { DocumentPage } from './DocumentPage.js';

const VERSIONS = { en: informationSheetEn, fr: informationSheetFr };

/** Route /ficheInfo: the information sheet (?lang=fr|en, else French on ?platform=nantes). */
export default function InformationSheet() {
  return <DocumentPage versions={VERSIONS} seeAlsoPath="/rgpd_file" />;
}
