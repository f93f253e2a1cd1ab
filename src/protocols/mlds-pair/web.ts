/**
 * mlds_pair trials are pair comparisons (same layouts 1-4, labels, replay, Submit/Modify, value first/left 0 and
 * last/right 1); only the playlist (pairs drawn for an MLDS/Thurstone scale) and the instruction image differ.
 */
export { default } from '../pair/web.js';
