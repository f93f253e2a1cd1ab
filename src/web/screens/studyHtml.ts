import DOMPurify from 'dompurify';
import { mediaType } from '../../contract/media-types.js';
import { MEDIA_FILE_PATTERN } from '../../contract/stimulus.js';

/**
 * The strict HTML profile of study texts (docs/security.md "Study HTML"): formatting, lists, tables, links that open in
 * a new tab, and images that are media files of the job (a relative path, served from its media). No style, class or id
 * (an existing class could hide the page's buttons or lay an overlay on them), no forms, inputs, frames, scripts,
 * nor any remote resource.
 */
export const STUDY_HTML_TAGS = [
  'p', 'br', 'hr', 'strong', 'b', 'em', 'i', 'u', 's', 'sub', 'sup', 'small', 'mark', 'code', 'pre', 'blockquote',
  'h1', 'h2', 'h3', 'h4', 'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'a', 'img', 'span',
];
export const STUDY_HTML_ATTRIBUTES = ['href', 'src', 'alt', 'title', 'width', 'height', 'colspan', 'rowspan'];

const MEDIA_PATH = new RegExp(MEDIA_FILE_PATTERN);
const LINK = /^(https?:|mailto:)/i;

/** Sanitises study HTML; `imageUrl` turns a media path of the job into its URL. */
export function sanitiseStudyHtml(html: string, imageUrl: (path: string) => string): string {
  const hook = (node: Element) => {
    if (node.tagName === 'A') {
      const href = node.getAttribute('href') ?? '';
      if (!LINK.test(href)) node.removeAttribute('href');
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
    if (node.tagName === 'IMG') {
      const src = node.getAttribute('src') ?? '';
      if (MEDIA_PATH.test(src) && mediaType(src, null)?.kind === 'image') node.setAttribute('src', imageUrl(src));
      else node.remove(); // remote, data: or anything else: no request leaves for it
    }
    for (const size of ['width', 'height']) if (node.hasAttribute(size) && !/^\d{1,4}$/.test(node.getAttribute(size)!)) node.removeAttribute(size);
  };
  DOMPurify.addHook('afterSanitizeAttributes', hook);
  try {
    return DOMPurify.sanitize(html, {
      ALLOWED_TAGS: STUDY_HTML_TAGS,
      ALLOWED_ATTR: STUDY_HTML_ATTRIBUTES,
      ALLOW_DATA_ATTR: false,
      ALLOW_ARIA_ATTR: false,
      // Relative media paths and http(s)/mailto links only; the hook narrows each further.
      ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|[A-Za-z0-9_][A-Za-z0-9._/-]*$)/i,
      ADD_ATTR: ['target'],
    });
  } finally {
    DOMPurify.removeHook('afterSanitizeAttributes');
  }
}
