import { BUBBLE_PAGE_ELIGIBILITY } from '../common/eligibility.js';
import type { ProtocolDefinition } from '../types.js';
import { bubbleChecks, bubbleScreenings, bubbleStimulus } from './stimulusRules.js';

/**
 * bubble (/bubble/{id}, playlist /api/getbubble/{id}): the stimulus blurred except for a clear window at the
 * pointer; the mouse path is the data (POST /api/bubblescreenings/ after each play). The rating is the pair answer
 * (first 0, last 1) or, with emotion=1, the emotion index + 1 (1-4). ft=1 is a free task: no rating, the session
 * completes on its mouse logs.
 */
export const bubble = {
  name: 'bubble',
  route: 'bubble',
  playlistPath: 'getbubble',
  eligibility: BUBBLE_PAGE_ELIGIBILITY,
  stimulus: bubbleStimulus,
  checks: bubbleChecks,
  answers: { ratingValues: [0, 1, 2, 3, 4], screenings: true, ratingPerPlay: true },
  sessionOptions: (query) => ({ freeTask: query.ft === '1' }),
  analysis: { family: 'bubble', screenings: bubbleScreenings },
  web: () => import('./web.js'),
} satisfies ProtocolDefinition;
