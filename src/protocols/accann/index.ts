import type { GenericStimulusSpec } from '../../contract/stimulus.js';
import { ratingAnalysis, singleSource } from '../common/analysis.js';
import { scoreChecks } from '../common/checks.js';
import { GENERIC_PAGE_ELIGIBILITY } from '../common/eligibility.js';
import { genericStimulus } from '../common/genericStimulus.js';
import type { ProtocolDefinition } from '../types.js';
import { ACCEPTABILITY_SCALE } from './scale.js';

/** Gold and trap answers are the stored values: 2 Not Annoying, 1 Annoying but Acceptable, 0 Not Acceptable. */
const asGiven = (value: number) => value;
const analysis = ratingAnalysis(singleSource, asGiven);
const checks = scoreChecks<GenericStimulusSpec>({ minimum: 0, maximum: 2 }, analysis, ACCEPTABILITY_SCALE, asGiven);

/** acceptability_annoyance (/accann/{id}, the ACR playlist path): one image or video, then the acceptability dialog; value = 2 Not Annoying, 1 Annoying but Acceptable, 0 Not Acceptable. */
export const acceptabilityAnnoyance = {
  name: 'acceptability_annoyance',
  route: 'accann',
  playlistPath: 'getacr',
  eligibility: GENERIC_PAGE_ELIGIBILITY,
  instructionImage: '/instructions/accann.svg',
  objectInstructionImage: '/instructions/accann-3d.svg',
  stimulus: genericStimulus({ oneOf: ['source', 'sourceA'] }, checks.answer),
  checks,
  answers: { ratingValues: [0, 1, 2], screenings: false },
  analysis,
  objectCategories: 'all',
  web: () => import('./web.js'),
} satisfies ProtocolDefinition;
