import type { GenericStimulusSpec } from '../../contract/stimulus.js';
import { ratingAnalysis, singleSource } from '../common/analysis.js';
import { scoreChecks } from '../common/checks.js';
import { GENERIC_PAGE_ELIGIBILITY } from '../common/eligibility.js';
import { genericStimulus } from '../common/genericStimulus.js';
import type { ProtocolDefinition } from '../types.js';
import { acrScale } from './scale.js';

// The stored index 0 = Excellent … 4 = Bad is reported on the ACR scale 5 … 1.
const scoreOf = (index: number) => 5 - index;
const analysis = ratingAnalysis(singleSource, scoreOf);
/** Gold and trap answers are scores on the reporting scale, 5 = Excellent … 1 = Bad. */
const checks = scoreChecks<GenericStimulusSpec>({ minimum: 1, maximum: 5 }, analysis, acrScale(false), scoreOf);

/** absolute_category_rating (/acr/{id}): one image or video, then the five ACR levels; value = level index 0 (Excellent) ... 4 (Bad). */
export const absoluteCategoryRating = {
  name: 'absolute_category_rating',
  route: 'acr',
  playlistPath: 'getacr',
  eligibility: GENERIC_PAGE_ELIGIBILITY,
  instructionImage: '/instructions/acr.svg',
  objectInstructionImage: '/instructions/acr-3d.svg',
  stimulus: genericStimulus({ oneOf: ['source', 'sourceA'] }, checks.answer),
  checks,
  answers: { ratingValues: [0, 1, 2, 3, 4], screenings: false },
  analysis,
  objectCategories: 'all',
  web: () => import('./web.js'),
} satisfies ProtocolDefinition;
