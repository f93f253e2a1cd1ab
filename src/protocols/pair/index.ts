import { pairedAnalysis, pairedChecks } from '../common/analysis.js';
import { GENERIC_PAGE_ELIGIBILITY } from '../common/eligibility.js';
import { genericStimulus } from '../common/genericStimulus.js';
import type { ProtocolDefinition } from '../types.js';

/** pair_comparison (/pvid/{id}): two stimuli, the participant picks one; first/left 0, last/right 1. */
export const pairComparison = {
  name: 'pair_comparison',
  route: 'pvid',
  playlistPath: 'getrandomtasks',
  eligibility: GENERIC_PAGE_ELIGIBILITY,
  instructionImage: '/instructions/pair.svg',
  objectInstructionImage: '/instructions/pair-3d.svg',
  stimulus: genericStimulus({ all: ['sourceA', 'sourceB'] }, pairedChecks.answer),
  checks: pairedChecks,
  answers: { ratingValues: [0, 1], screenings: false },
  analysis: pairedAnalysis,
  objectCategories: [1, 2],
  web: () => import('./web.js'),
} satisfies ProtocolDefinition;
