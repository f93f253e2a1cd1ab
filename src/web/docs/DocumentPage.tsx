import { Fragment, type ReactNode } from 'react';
import type { ParticipantDocument } from './content/types.js';
import { documentLanguage, type DocumentLang } from './documentLanguage.js';
import { LAB_CONTACT_EMAIL } from './labContact.js';
import './docs.css';

/** The lab address, written `{contact}` in the documents, becomes a mail link. */
function withContact(text: string): ReactNode {
  const parts = text.split('{contact}');
  return parts.map((part, i) => (
    <Fragment key={i}>
      {part}
      {i < parts.length - 1 && <a href={`mailto:${LAB_CONTACT_EMAIL}`}>{LAB_CONTACT_EMAIL}</a>}
    </Fragment>
  ));
}

export interface DocumentPageProps {
  versions: Record<DocumentLang, ParticipantDocument>;
  /** Path of the companion document (privacy policy <-> information sheet). */
  seeAlsoPath: string;
  /** Query string deciding the language; defaults to the page's own. */
  search?: string;
}

/** A static participant document in the language of the query, with a link to the other language. */
export function DocumentPage({ versions, seeAlsoPath, search }: DocumentPageProps) {
  const lang = documentLanguage(search ?? window.location.search);
  const doc = versions[lang];
  const other: DocumentLang = lang === 'fr' ? 'en' : 'fr';
  return (
    <article className="participant-document" lang={doc.lang}>
      <nav className="document-links">
        <a href={`?lang=${other}`} hrefLang={other}>
          {doc.otherLanguage}
        </a>
        <a href={`${seeAlsoPath}?lang=${lang}`}>{doc.seeAlso}</a>
      </nav>
      <h1>{doc.title}</h1>
      <p className="document-updated">{doc.updated}</p>
      {doc.intro.map((text, i) => (
        <p key={i}>{withContact(text)}</p>
      ))}
      {doc.sections.map((section) => (
        <section key={section.heading}>
          <h2>{section.heading}</h2>
          {section.list && (
            <ul>
              {section.list.map((item, i) => (
                <li key={i}>{withContact(item)}</li>
              ))}
            </ul>
          )}
          {section.paragraphs?.map((text, i) => (
            <p key={i}>{withContact(text)}</p>
          ))}
        </section>
      ))}
    </article>
  );
}
