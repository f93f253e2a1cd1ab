import { pairedAnalysis, pairedChecks } from '../common/analysis.js';
import { GENERIC_PAGE_ELIGIBILITY } from '../common/eligibility.js';
import { genericStimulus } from '../common/genericStimulus.js';
import type { ProtocolDefinition } from '../types.js';

/** mlds_pair (/mlds_pair/{id}, playlist /api/getmldspc/): the paired-comparison variant of MLDS, run as a pair comparison. */
export const mldsPair = {
  name: 'mlds_pair',
  route: 'mlds_pair',
  playlistPath: 'getmldspc',
  eligibility: GENERIC_PAGE_ELIGIBILITY,
  instructionImage: '/instructions/mlds-pair.svg',
  objectInstructionImage: '/instructions/mlds-pair-3d.svg',
  stimulus: genericStimulus({ all: ['sourceA', 'sourceB'] }, pairedChecks.answer),
  checks: pairedChecks,
  answers: { ratingValues: [0, 1], screenings: false },
  analysis: pairedAnalysis,
  objectCategories: [1, 2],
  web: () => import('./web.js'),
} satisfies ProtocolDefinition;
