import type { JobFields } from './job.js';

/**
 * Study HTML (welcomeMsg, instructionMsg, instructionPages, afterTrainingMsg) follows a strict profile
 * (docs/security.md "Study HTML"; the page's sanitiser is src/web/screens/studyHtml.ts): text formatting, lists,
 * tables, links, and images that are media files of the study itself, written as paths in its media folder
 * (`<img src="help/step1.png">`). The importer checks and copies those images like stimuli.
 */

/** The HTML fields of a job, with their JSON paths. */
export function jobHtmlFields(job: Partial<JobFields>): Array<[path: string, html: string]> {
  const fields: Array<[string, string | undefined]> = [
    ['$.job.welcomeMsg', job.welcomeMsg],
    ['$.job.instructionMsg', job.instructionMsg],
    ['$.job.afterTrainingMsg', job.afterTrainingMsg],
    ...(job.instructionPages ?? []).map((page, i): [string, string] => [`$.job.instructionPages[${i}]`, page]),
  ];
  return fields.filter((f): f is [string, string] => typeof f[1] === 'string');
}

/** The src of every <img> of some HTML, as written (decoded of the few entities an attribute may use). */
export function htmlImageSources(html: string): string[] {
  const sources: string[] = [];
  for (const tag of html.match(/<img\b[^>]*>/gi) ?? []) {
    const src = /\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(tag);
    if (src) sources.push((src[1] ?? src[2] ?? src[3] ?? '').replace(/&amp;/g, '&').trim());
  }
  return sources;
}
