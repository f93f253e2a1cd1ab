import { PIIFACE_PAGE_ELIGIBILITY } from '../common/eligibility.js';
import type { ProtocolDefinition } from '../types.js';
import { expectedEmotionOfType, piifaceChecks, piifaceStimulus } from './stimulusRules.js';

/** SPEC §5: (emotion index + 1) · 10 + (confidence index + 1), 7 emotions and 5 confidence levels: 11 ... 75. */
const PIIFACE_VALUES = Array.from({ length: 7 }, (_, e) => Array.from({ length: 5 }, (_, c) => (e + 1) * 10 + c + 1)).flat();

/** piiface (/piiface/{id}): which emotion a face shows, and how confident the participant is. */
export const piiface = {
  name: 'piiface',
  route: 'piiface',
  playlistPath: 'getpiiface',
  eligibility: PIIFACE_PAGE_ELIGIBILITY,
  stimulus: piifaceStimulus,
  checks: piifaceChecks,
  answers: { ratingValues: PIIFACE_VALUES, screenings: false },
  analysis: {
    family: 'piiface',
    vote: ({ spec, value }) => ({ stimulus: spec.source, expectedEmotion: expectedEmotionOfType(spec.type), answer: value }),
  },
  web: () => import('./web.js'),
} satisfies ProtocolDefinition;
