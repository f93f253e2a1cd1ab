import { pairComparison } from '../pair/index.js';
import type { PairAnswer, PairParams } from '../pair/plan.js';
import type { ProtocolModule } from '../types.js';

/**
 * mlds_pair (/mlds_pair/{id}, playlist /api/getmldspc/): the paired-comparison variant of MLDS. Each trial is a
 * pair comparison (same layouts 1-4, labels, replay, Submit/Modify, value first/left 0 and last/right 1); only the
 * playlist (pairs drawn for an MLDS/Thurstone scale) and the instruction image differ.
 */
export const mldsPair: ProtocolModule<PairParams, PairAnswer> = {
  ...pairComparison,
  name: 'mlds_pair',
  instructionImage: '/instructions/mlds-pair.svg',
};
