import { parsePlatform, type Platform } from '../../contract/platforms.js';

/**
 * Query parameters of the generic test page (SPEC §2) plus Prolific's own parameters.
 * Pure: give it `location.search`.
 */
export interface PageQuery {
  platform: Platform;
  /** vl=1: the phone experiment is in vertical (portrait) orientation. */
  vertical: boolean;
  /** hz=1: horizontal (landscape) orientation. */
  horizontal: boolean;
  /** phone=1: phone experiment. */
  phone: boolean;
  email: string | null;
  /** Everything forwarded to the playlist call (SPEC §2: playlist-related and crowd-platform parameters). */
  forwarded: Record<string, string>;
}

/** Parameters forwarded to the playlist call, in the order they are sent (contract: brief "Query forwarded"). */
export const FORWARDED_PARAMS = [
  'platform',
  'playlist_id',
  // The signature of a link that chooses its playlist (`cli link`): without it the server refuses the choice.
  'sig',
  'email',
  'assignmentId',
  'hitId',
  'workerId',
  'turkSubmitTo',
  'PROLIFIC_PID',
  'STUDY_ID',
  'SESSION_ID',
  // A researcher's preview link from the console (docs/console.md): the session is marked and counts nowhere.
  'preview',
] as const;

/** MTurk shows the task in preview with this assignment id; no session is created for it. */
export const MTURK_PREVIEW_ASSIGNMENT = 'ASSIGNMENT_ID_NOT_AVAILABLE';

export function parseQuery(search: string): PageQuery {
  const params = new URLSearchParams(search);
  const forwarded: Record<string, string> = {};
  for (const name of FORWARDED_PARAMS) {
    const value = params.get(name);
    if (value !== null && value !== '') forwarded[name] = value;
  }
  const email = params.get('email');
  return {
    platform: parsePlatform(params.get('platform')),
    vertical: params.get('vl') === '1',
    horizontal: params.get('hz') === '1',
    phone: params.get('phone') === '1',
    email: email === null || email === '' ? null : email,
    forwarded,
  };
}

/** Query string of the playlist call: the forwarded parameters plus bcheckId when the browser check got one. */
export function playlistParams(query: PageQuery, bcheckId: number | null): Record<string, string> {
  return bcheckId === null ? { ...query.forwarded } : { ...query.forwarded, bcheckId: String(bcheckId) };
}

export function isMturkPreview(query: PageQuery): boolean {
  return query.forwarded.assignmentId === MTURK_PREVIEW_ASSIGNMENT;
}
