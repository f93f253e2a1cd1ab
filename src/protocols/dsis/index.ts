import type { GenericStimulusSpec } from '../../contract/stimulus.js';
import { ratingAnalysis } from '../common/analysis.js';
import { scoreChecks } from '../common/checks.js';
import { GENERIC_PAGE_ELIGIBILITY } from '../common/eligibility.js';
import { genericStimulus } from '../common/genericStimulus.js';
import type { ProtocolDefinition } from '../types.js';
import { IMPAIRMENT_SCALE } from './scale.js';

/** Gold and trap answers are ITU grades, 5 Imperceptible … 1 Very annoying. */
// The impaired stimulus (sourceB) is rated; sourceA is its reference.
const grade = (value: number) => value;
const analysis = ratingAnalysis((spec: GenericStimulusSpec) => spec.sourceB!, grade);
const checks = scoreChecks<GenericStimulusSpec>({ minimum: 1, maximum: 5 }, analysis, IMPAIRMENT_SCALE, grade);

/** double_stimulus_impairment_scale (/dsis/{id}): the reference, then the impaired stimulus, then the impairment scale; value = ITU grade 5 (Imperceptible) ... 1 (Very annoying). */
export const doubleStimulusImpairmentScale = {
  name: 'double_stimulus_impairment_scale',
  route: 'dsis',
  playlistPath: 'getdsis',
  eligibility: GENERIC_PAGE_ELIGIBILITY,
  instructionImage: '/instructions/dsis.svg',
  objectInstructionImage: '/instructions/dsis-3d.svg',
  stimulus: genericStimulus({ all: ['sourceA', 'sourceB'] }, checks.answer),
  checks,
  answers: { ratingValues: [1, 2, 3, 4, 5], screenings: false },
  analysis,
  objectCategories: [1, 2],
  web: () => import('./web.js'),
} satisfies ProtocolDefinition;
