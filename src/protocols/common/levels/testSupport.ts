/** Test helpers shared by the protocol tests of this folder and its siblings (not bundled: imported by tests only). */
import type { JobResponse } from '../../../contract/job.js';
import type { PlaylistStimulus } from '../../../contract/playlist.js';
import type { PlanContext } from '../../types.js';

/** A job as GET /api/jobs/{id} serves it, with the fields a protocol reads overridable. */
export function jobOf(patch: Partial<JobResponse> = {}): JobResponse {
  return {
    id: 'job',
    question: 'Q?',
    welcomeTitle: 'W',
    welcomeMsg: '<p>w</p>',
    instructionTitle: 'I',
    instructionMsg: '<p>i</p>',
    subjectiveProtocol: 'absolute_category_rating',
    targetScreenSizeHeight: 300,
    targetScreenSizeWidth: 300,
    maxScreenSizeHeight: 4000,
    maxScreenSizeWidth: 8000,
    requestFullScreen: 0,
    category_id: 1,
    backgroundColor: '#808080',
    background_color: '#808080',
    ...patch,
  };
}

export function stimulusOf(patch: Partial<PlaylistStimulus> = {}): PlaylistStimulus {
  return { stimuliId: 7, reversed: false, ...patch };
}

/** A 1280x720 canvas where every media is 320x180, no question band, first play. */
export function planContext<P>(params: P, patch: Partial<PlanContext<P>> = {}): PlanContext<P> {
  return {
    params,
    canvas: { width: 1280, height: 720 },
    mediaSize: () => ({ width: 320, height: 180 }),
    replay: false,
    ...patch,
  };
}
