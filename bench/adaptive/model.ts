import { JOD_SIGMA, scaleThurstone } from '../../src/analysis/paired/thurstone.js';
import type { Random } from '../../src/analysis/random.js';
import { pearson, spearman } from '../../src/analysis/stats.js';

/**
 * The simulated crowd of bench:adaptive (run.ts) and of its run through the real server (server.ts): contents of
 * conditions on a true JOD ladder, Thurstone Case V observers and random clickers, and the accuracy of the scale a
 * researcher gets from Glimpse against the truth.
 */

export const CONTENTS = 10;
export const CONDITIONS = 8;
export const CLICKER_SHARE = 0.1;

/** Per content, a quality ladder: cumulative steps U(0, step) JOD from 0, then centred on 0. */
export function truthOf(random: Random, step: number): Float64Array[] {
  return Array.from({ length: CONTENTS }, () => {
    const q = new Float64Array(CONDITIONS);
    for (let i = 1; i < CONDITIONS; i++) q[i] = q[i - 1] + step * random.next();
    return centred(q);
  });
}

export function centred(q: Float64Array): Float64Array {
  const m = q.reduce((s, x) => s + x, 0) / q.length;
  return q.map((x) => x - m);
}

/** One comparison: true if i is preferred to j, by a Thurstone observer (1 JOD = 75 %) or a clicker (50/50). */
export function prefers(q: Float64Array, i: number, j: number, random: Random, clicker: boolean): boolean {
  if (clicker) return random.next() < 0.5;
  return q[i] - q[j] + JOD_SIGMA * random.normal() > 0;
}

/**
 * The scale's accuracy: the pwcmp Thurstone scale of each content (mean 0) against the mean-0 truth: RMSE over every
 * condition (JOD), and Pearson and Spearman r per content, averaged.
 */
export function scaleAccuracy(counts: readonly Float64Array[], truth: readonly Float64Array[]): { rmse: number; pearson: number; spearman: number } {
  let se = 0;
  let r = 0;
  let rho = 0;
  for (let c = 0; c < truth.length; c++) {
    const n = truth[c]!.length;
    const jod = scaleThurstone(counts[c]!, n, 'pwcmp').jod;
    for (let i = 0; i < n; i++) se += (jod[i]! - truth[c]![i]!) ** 2;
    r += pearson(jod, truth[c]!);
    rho += spearman(jod, truth[c]!);
  }
  return { rmse: Math.sqrt(se / (truth.length * truth[0]!.length)), pearson: r / truth.length, spearman: rho / truth.length };
}
