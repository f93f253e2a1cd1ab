import { describe, expect, it } from 'vitest';
import { createRandom } from '../random.js';
import { fixtureVotes, maxAbsDiff, readFixtureJson } from '../test-support.js';
import type { QuadrupleVote, TripletVote } from '../types.js';
import { normalCdf, normalPdf } from '../stats.js';
import { collectMldsTrials, fitMlds, mldsDesign } from './mlds.js';
import { fitProbitGlm, MLDS_GLM_CONTROL } from './probit-glm.js';

interface RReference {
  levels: number[];
  quadruples: { pscale: number[]; logLik: number; se: number[] };
  triads: { pscale: number[]; logLik: number; se: number[] };
}
const reference = readFixtureJson<RReference>('mlds-reference.json');

describe('MLDS agrees with R MLDS::mlds(method = "glm")', () => {
  it.each([
    ['quadruples', 'mlds-quadruples.csv', 'maximum_likelihood_difference_scaling', 'quadruple'],
    ['triads', 'mlds-triads.csv', 'triplet', 'triad'],
  ] as const)('%s: scale, SE and log-likelihood to 1e-6', async (key, file, protocol, kind) => {
    const votes = await fixtureVotes<'mlds'>(file, protocol);
    const trials = await collectMldsTrials(votes, kind, false);
    const result = fitMlds(trials, 0, createRandom(1));
    expect(result.scale.map((s) => s.level)).toEqual(reference.levels);
    expect(maxAbsDiff(result.scale.map((s) => s.value), reference[key].pscale)).toBeLessThan(1e-6);
    expect(maxAbsDiff(result.scale.map((s) => s.se), reference[key].se)).toBeLessThan(1e-6);
    expect(Math.abs(result.logLik - reference[key].logLik)).toBeLessThan(1e-6);
    expect(result.converged).toBe(true);
  });
});

/** Quadruples or triads drawn from the probit model with a known ψ. */
function simulate(kind: 'quadruple' | 'triad', psi: number[], repeats: number, seed: number): (QuadrupleVote | TripletVote)[] {
  const random = createRandom(seed);
  const votes: (QuadrupleVote | TripletVote)[] = [];
  const n = psi.length;
  for (let rep = 0; rep < repeats; rep++) {
    for (let a = 0; a < n; a++)
      for (let b = a + 1; b < n; b++)
        for (let c = b + 1; c < n; c++) {
          if (kind === 'triad') {
            const delta = psi[c] - psi[b] - (psi[b] - psi[a]);
            votes.push({ observer: `o${rep}`, s1: a, s2: b, s3: c, response: delta + random.normal() > 0 ? 1 : 0 });
            continue;
          }
          for (let d = c + 1; d < n; d++) {
            const delta = psi[d] - psi[c] - (psi[b] - psi[a]);
            votes.push({ observer: `o${rep}`, s1: a, s2: b, s3: c, s4: d, response: delta + random.normal() > 0 ? 1 : 0 });
          }
        }
  }
  return votes;
}

describe('MLDS recovers a known scale', () => {
  const psi = [0, 0.3, 0.7, 1.0, 1.4, 1.7, 2.1];

  it('fits simulated quadruples close to the truth, reordering pairs written high → low', async () => {
    const votes = simulate('quadruple', psi, 10, 7) as QuadrupleVote[];
    // Write every other quadruple with its pairs reversed and swapped: the same judgement.
    const shuffled = votes.map((v, i) => (i % 2 ? { ...v, s1: v.s4, s2: v.s3, s3: v.s2, s4: v.s1, response: (1 - v.response) as 0 | 1 } : v));
    const straight = fitMlds(await collectMldsTrials(votes, 'quadruple', false), 0, createRandom(1));
    const reordered = fitMlds(await collectMldsTrials(shuffled, 'quadruple', false), 0, createRandom(1));
    expect(maxAbsDiff(straight.scale.map((s) => s.value), reordered.scale.map((s) => s.value))).toBeLessThan(1e-9);
    expect(reordered.reordered).toBe(Math.floor(votes.length / 2));
    expect(maxAbsDiff(straight.scale.map((s) => s.value), psi)).toBeLessThan(0.3);
  });

  // Few resamples (100, against 1,000 by default) keep this under 5 s; coverage needs many studies, not many resamples.
  it('parametric bootstrap CIs cover the true ψ at the nominal rate (150 simulated studies of 140 triads)', async () => {
    let covered = 0;
    let coveredPercentile = 0;
    let total = 0;
    for (let study = 0; study < 150; study++) {
      const votes = simulate('triad', psi, 4, 1000 + study);
      const result = fitMlds(await collectMldsTrials(votes, 'triad', false), 100, createRandom(study));
      result.scale.slice(1).forEach((row, i) => {
        total++;
        if (row.ci95 && row.ci95[0] <= psi[i + 1] && psi[i + 1] <= row.ci95[1]) covered++;
        if (row.ci95Percentile && row.ci95Percentile[0] <= psi[i + 1] && psi[i + 1] <= row.ci95Percentile[1]) coveredPercentile++;
      });
    }
    const coverage = covered / total;
    console.info(`MLDS triad bootstrap coverage: ${(coverage * 100).toFixed(1)} % (percentile ${((coveredPercentile / total) * 100).toFixed(1)} %) of ${total} intervals`);
    // 900 intervals (6 per study, correlated): a 95 % rate lies in [93 %, 97.5 %] but for bad luck.
    expect(coverage).toBeGreaterThan(0.93);
    expect(coverage).toBeLessThan(0.985);
  });
});

describe('MLDS GLM convergence and separation', () => {
  /** Score equations of the probit GLM, Xᵀ·(y − μ)·φ(η)/(μ(1 − μ)): zero at the MLE. */
  function scoreNorm(trials: Awaited<ReturnType<typeof collectMldsTrials>>, coefficients: Float64Array): number {
    const design = mldsDesign(trials);
    const score = new Float64Array(design.columns);
    for (let r = 0; r < design.rows; r++) {
      let eta = 0;
      for (let a = design.start[r]; a < design.start[r + 1]; a++) eta += design.value[a] * coefficients[design.column[a]];
      const mu = normalCdf(eta, 0, 1);
      const g = ((trials.response[r] - mu) * normalPdf(eta)) / (mu * (1 - mu));
      for (let a = design.start[r]; a < design.start[r + 1]; a++) score[design.column[a]] += g * design.value[a];
    }
    return Math.max(...Array.from(score, Math.abs));
  }

  it('iterates past the deviance test until ψ stops moving: the score equations hold to 1e-10', async () => {
    const trials = await collectMldsTrials(await fixtureVotes<'mlds'>('mlds-quadruples.csv', 'maximum_likelihood_difference_scaling'), 'quadruple', false);
    const devianceOnly = fitProbitGlm(mldsDesign(trials), trials.response, { ...MLDS_GLM_CONTROL, coefficientTolerance: null });
    const tight = fitProbitGlm(mldsDesign(trials), trials.response);
    expect(tight.converged).toBe(true);
    expect(tight.iterations).toBeGreaterThanOrEqual(devianceOnly.iterations);
    expect(scoreNorm(trials, tight.coefficients)).toBeLessThan(1e-10);
    // R's deviance test alone stops 4 iterations earlier, ψ 1.3e-8 away from the MLE.
    expect(scoreNorm(trials, devianceOnly.coefficients)).toBeGreaterThan(1e-8);
    const result = fitMlds(trials, 0, createRandom(1));
    expect(result.separated).toBe(false);
    expect(result.notIdentified).toEqual([]);
    // AIC as R's AIC(mlds(...)$obj): −2 logLik + 2 × 10 coefficients.
    expect(result.aic).toBeCloseTo(-2 * reference.quadruples.logLik + 20, 9);
  });

  it('unanimous responses: separated, every free level not identified, as R warns', async () => {
    // Responses follow ψ = level exactly: any multiple of the scale fits better, so ψ grows without end.
    const votes: TripletVote[] = [];
    for (let rep = 0; rep < 3; rep++)
      for (let a = 0; a < 5; a++)
        for (let b = a + 1; b < 5; b++)
          for (let c = b + 1; c < 5; c++) if (c - b !== b - a) votes.push({ observer: 'o', s1: a, s2: b, s3: c, response: c - b > b - a ? 1 : 0 });
    const result = fitMlds(await collectMldsTrials(votes, 'triad', false), 0, createRandom(1));
    expect(result.separated).toBe(true);
    expect(result.notIdentified).toEqual([1, 2, 3, 4]);
  });
});
