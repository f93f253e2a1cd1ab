import { isMturkPreview, type PageQuery } from '../flow/query.js';

/**
 * MTurk completion (FIELD-NOTES "Crowd platforms"): an accepted HIT is submitted by a form POST to
 * `{turkSubmitTo}/mturk/externalSubmit` carrying `assignmentId` and at least one other field. `turkSubmitTo` comes
 * from the page's address, which anyone can write, so it is only trusted when it is exactly MTurk's production or
 * sandbox origin: the page must never post a worker's data to, or send the worker on to, any other site.
 */
export const MTURK_SUBMIT_HOSTS: readonly string[] = ['www.mturk.com', 'workersandbox.mturk.com'];

/** The form's action for a `turkSubmitTo` value, or null when it is not an https MTurk origin. */
export function mturkSubmitUrl(turkSubmitTo: string | undefined): string | null {
  if (!turkSubmitTo) return null;
  let url: URL;
  try {
    url = new URL(turkSubmitTo);
  } catch {
    return null;
  }
  const originOnly = (url.pathname === '/' || url.pathname === '') && url.search === '' && url.hash === '';
  const plain = url.username === '' && url.password === '' && url.port === '';
  if (url.protocol !== 'https:' || !MTURK_SUBMIT_HOSTS.includes(url.hostname) || !originOnly || !plain) return null;
  return `${url.origin}/mturk/externalSubmit`;
}

export interface MturkSubmission {
  action: string;
  assignmentId: string;
}

/**
 * What the end screen needs to offer 'Submit HIT': only on platform mturk, for an accepted assignment (not the
 * preview), with a trusted `turkSubmitTo`. Null otherwise; a rejected `turkSubmitTo` is logged.
 */
export function mturkSubmission(query: PageQuery): MturkSubmission | null {
  const { assignmentId, turkSubmitTo } = query.forwarded;
  if (query.platform !== 'mturk' || !assignmentId || isMturkPreview(query)) return null;
  const action = mturkSubmitUrl(turkSubmitTo);
  if (!action) {
    console.log('turkSubmitTo is not an https MTurk origin; no Submit HIT form', turkSubmitTo);
    return null;
  }
  return { action, assignmentId };
}
