/** A static participant document (privacy policy, information sheet) in one language. */
export interface DocumentSection {
  heading: string;
  paragraphs?: string[];
  list?: string[];
}

export interface ParticipantDocument {
  lang: 'en' | 'fr';
  title: string;
  /** Date of the last change, shown under the title. */
  updated: string;
  intro: string[];
  sections: DocumentSection[];
  /** Label of the link to the same document in the other language. */
  otherLanguage: string;
  /** Label of the link to the companion document. */
  seeAlso: string;
}
