import DOMPurify from 'dompurify';
import { useMemo } from 'react';

/** Job texts (welcomeMsg, instructionMsg) are HTML written by researchers: sanitised before they reach the page. */
export function SafeHtml({ html, className }: { html: string; className?: string }) {
  const clean = useMemo(() => DOMPurify.sanitize(html, { USE_PROFILES: { html: true } }), [html]);
  return <div className={className} dangerouslySetInnerHTML={{ __html: clean }} />;
}
