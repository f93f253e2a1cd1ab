/**
 * Query parameters of the bubble page (SPEC §2): dd, pt, bl, w, h, ss, nr, rp, bd, rs, oit, ft, emotion, platform
 * (platform and the crowd-platform parameters are read by flow/query.ts). Pure: give it `location.search`.
 * A missing or unreadable number falls back to its default (null = "use the stimulus's own value").
 */

export interface BubbleQuery {
  /** dd: image display duration, ms (pair mode). */
  displayMs: number | null;
  /** pt: pause between media A and B (and after the media in free-task mode), ms. Default 1000. */
  pauseMs: number;
  /** bl: blur deviation, CSS px; null = the stimulus's blur. */
  blur: number | null;
  /** w, h: media display size, CSS px; null = the stimulus's size. */
  width: number | null;
  height: number | null;
  /** ss=1: single stimulus (only media A is played). */
  singleStimulus: boolean;
  /** nr: number of forced repetitions of each stimulus. Default 0. */
  repetitions: number;
  /** rp=1: after the repetitions, ask whether the participant needs to explore more. */
  repetitionPossible: boolean;
  /** bd: window diameter, CSS px; null = the stimulus's radius is the window radius. */
  bubbleDiameter: number | null;
  /** rs=1: the test stimuli are played in a random order. Default 0. */
  randomOrder: boolean;
  /** oit: order of this task in the participant's sequence of tasks. Default 1 (recorded with each rating). */
  orderInTask: number;
  /** ft=1: free task, no rating. */
  freeTask: boolean;
  /** emotion=1: the emotion question replaces the pair question. */
  emotion: boolean;
}

export const DEFAULT_PAUSE_MS = 1000;

function number(params: URLSearchParams, name: string, { min = 0, integer = false } = {}): number | null {
  const raw = params.get(name);
  if (raw === null || raw.trim() === '') return null;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) return null;
  return integer ? Math.floor(value) : value;
}

const flag = (params: URLSearchParams, name: string) => params.get(name) === '1';

export function parseBubbleQuery(search: string): BubbleQuery {
  const p = new URLSearchParams(search);
  return {
    displayMs: number(p, 'dd', { min: 1 }),
    pauseMs: number(p, 'pt') ?? DEFAULT_PAUSE_MS,
    blur: number(p, 'bl'),
    width: number(p, 'w', { min: 1 }),
    height: number(p, 'h', { min: 1 }),
    singleStimulus: flag(p, 'ss'),
    repetitions: number(p, 'nr', { integer: true }) ?? 0,
    repetitionPossible: flag(p, 'rp'),
    bubbleDiameter: number(p, 'bd'),
    randomOrder: flag(p, 'rs'),
    orderInTask: number(p, 'oit', { min: 1, integer: true }) ?? 1,
    freeTask: flag(p, 'ft'),
    emotion: flag(p, 'emotion'),
  };
}

/**
 * Free task: no rating is asked. With ft=1, and also for a single stimulus without the emotion question, which
 * leaves no question to ask (the pair question needs two media). The playlist is then asked with ft=1 so the
 * server completes the session on mouse logs instead of ratings.
 */
export function isFreeTask(q: BubbleQuery): boolean {
  return q.freeTask || (q.singleStimulus && !q.emotion);
}
