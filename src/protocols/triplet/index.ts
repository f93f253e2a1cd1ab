import type { GenericStimulusSpec } from '../../contract/stimulus.js';
import { levelOf } from '../common/analysis.js';
import { choiceChecks } from '../common/checks.js';
import { GENERIC_PAGE_ELIGIBILITY } from '../common/eligibility.js';
import { genericStimulus } from '../common/genericStimulus.js';
import type { ProtocolDefinition } from '../types.js';

/** Gold and trap answers name the side closer to B: 'A' or 'C' (whichever is shown left). */
const checks = choiceChecks<GenericStimulusSpec>(['A', 'C'], ({ spec, value }) => ((value === 0) === !spec.reversed ? 'A' : 'C'));

/** triplet (/triplet/{id}): which side (left 0, right 1) is closer to the middle stimulus. */
export const triplet = {
  name: 'triplet',
  route: 'triplet',
  playlistPath: 'gettriplet',
  eligibility: GENERIC_PAGE_ELIGIBILITY,
  instructionImage: '/instructions/triplet.svg',
  stimulus: genericStimulus({ all: ['sourceA', 'sourceB', 'sourceC'] }, checks.answer),
  checks,
  answers: { ratingValues: [0, 1], screenings: false },
  analysis: {
    family: 'triplet',
    // The side shown left (A; C when reversed) is closer to the middle one (value 0), or the right one (1). The
    // response is 1 when the pair (B, C) looked more different, i.e. when A was the closer one.
    vote: (answer) => {
      const leftIsA = !answer.spec.reversed;
      const aCloser = (answer.value === 0) === leftIsA;
      return {
        s1: levelOf(answer, answer.spec.sourceA!),
        s2: levelOf(answer, answer.spec.sourceB!),
        s3: levelOf(answer, answer.spec.sourceC!),
        response: aCloser ? 1 : 0,
      };
    },
  },
  web: () => import('./web.js'),
} satisfies ProtocolDefinition;
