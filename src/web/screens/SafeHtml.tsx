import { useMemo } from 'react';
import { useGlimpse } from '../flow/StoreContext.js';
import { mediaUrl, readMediaBase } from '../flow/mediaLoader.js';
import { sanitiseStudyHtml } from './studyHtml.js';

/**
 * Job texts (welcomeMsg, instructionMsg, extra pages) are HTML written by researchers: sanitised to the strict
 * study profile (studyHtml.ts) before they reach the page; their images are the job's own media.
 */
export function SafeHtml({ html, className }: { html: string; className?: string }) {
  const jobId = useGlimpse((s) => s.jobId);
  const clean = useMemo(() => {
    const base = readMediaBase(document);
    return sanitiseStudyHtml(html, (path) => mediaUrl(base, `${jobId}/${path}`));
  }, [html, jobId]);
  return <div className={`study-html${className ? ` ${className}` : ''}`} dangerouslySetInnerHTML={{ __html: clean }} />;
}
