import type { GenericStimulusSpec } from '../../contract/stimulus.js';
import { levelOf } from '../common/analysis.js';
import { choiceChecks } from '../common/checks.js';
import { GENERIC_PAGE_ELIGIBILITY } from '../common/eligibility.js';
import { genericStimulus } from '../common/genericStimulus.js';
import type { ProtocolDefinition } from '../types.js';

/** Gold and trap answers name the pair that differs more: 'AB' or 'CD' (whichever is shown on top). */
const checks = choiceChecks<GenericStimulusSpec>(['AB', 'CD'], ({ spec, value }) => ((spec.reversed ? 1 - value : value) === 1 ? 'CD' : 'AB'));

/** maximum_likelihood_difference_scaling (/mlds/{id}): which of two pairs differs more; top 0, bottom 1. */
export const maximumLikelihoodDifferenceScaling = {
  name: 'maximum_likelihood_difference_scaling',
  route: 'mlds',
  playlistPath: 'getmlds',
  eligibility: GENERIC_PAGE_ELIGIBILITY,
  instructionImage: '/instructions/mlds.svg',
  stimulus: genericStimulus({ all: ['sourceA', 'sourceB', 'sourceC', 'sourceD'] }, checks.answer),
  checks,
  answers: { ratingValues: [0, 1], screenings: false },
  analysis: {
    family: 'mlds',
    // Top pair (A, B) 0, bottom pair (C, D) 1; reversed shows (C, D) on top. The response is 1 when (C, D) looked
    // more different (Knoblauch & Maloney).
    vote: (answer) => ({
      s1: levelOf(answer, answer.spec.sourceA!),
      s2: levelOf(answer, answer.spec.sourceB!),
      s3: levelOf(answer, answer.spec.sourceC!),
      s4: levelOf(answer, answer.spec.sourceD!),
      response: (answer.spec.reversed ? 1 - answer.value : answer.value) as 0 | 1,
    }),
  },
  web: () => import('./web.js'),
} satisfies ProtocolDefinition;
