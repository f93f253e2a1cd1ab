/**
 * `npm run bench:adaptive [-- --quick] [-- --seeds N]`: how many pair comparisons ASAP saves (issue 38 item 5).
 *
 * Simulation with known true scores: 10 contents × 8 conditions, pair comparisons within a content only. Each trial
 * is answered by an observer drawn from a crowd where 90 % follow Thurstone Case V (prefer i when
 * q_i − q_j + ε > 0, ε ~ N(0, 1.4826²) in JOD, so 1 JOD = 75 %) and 10 % click at random (50/50). The true JOD
 * of a content's conditions is a quality ladder: cumulative steps U(0, step) JOD from 0, drawn per content and
 * seed, in two scenarios run together: `close` (step 0.5: 8 levels over ~1.75 JOD) and `wide` (step 1.5: ~5 JOD).
 *
 * Three designs, given the same number of trials per content, checked every 28 trials (one full-design round):
 * - full: every one of the 28 pairs once per round (round order shuffled);
 * - random: each trial a uniformly drawn pair;
 * - asap: rounds of 7 pairs, the batch of runAsap (src/analysis/asap) on the content's counts so far (the first
 *   round a random tree, as the reference).
 * At each check the scores are what a researcher gets from Glimpse: the pwcmp Thurstone scale (src/analysis/paired,
 * scaleThurstone with pwcmp's prior, mean 0 per content), against the mean-0 truth: RMSE over the 80 conditions
 * (JOD), and Pearson and Spearman r per content, averaged over the 10. Same seed = same truth and same crowd
 * for every design.
 *
 * "Trials to RMSE ≤ 0.15 JOD": per seed, the first check where the RMSE is ≤ 0.15 and stays so at the next check
 * (a single lucky dip does not count); and, less noisy, where the RMSE averaged over the seeds first falls to 0.15
 * (linear between checks). Ratios are against the full design (< 1: fewer trials). Random clickers shrink the
 * fitted scale (a bias no design removes; on the wide ladder it keeps every design above 0.15 JOD), so each
 * scenario also gives the trials needed to reach the RMSE the full design has at 280 trials per content, and the
 * RMSE ratios at fixed budgets. Writes bench/results/adaptive.json and prints tables.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { runAsap } from '../../src/analysis/asap/asap.js';
import { createRandom, shuffled, type Random } from '../../src/analysis/random.js';
import { quantile } from '../shared/measure.js';
import { writeBenchResult } from '../shared/run-stamp.js';
import { JOD_SIGMA } from '../../src/analysis/paired/thurstone.js';
import { CLICKER_SHARE, CONDITIONS, CONTENTS, prefers, scaleAccuracy, truthOf } from './model.js';

const quick = process.argv.includes('--quick');
const seedsArg = process.argv.indexOf('--seeds');
const SEEDS = seedsArg > 0 ? Number(process.argv[seedsArg + 1]) : quick ? 3 : 20;
const PAIRS = (CONDITIONS * (CONDITIONS - 1)) / 2; // 28: one full-design round
const ROUNDS = quick ? 12 : 60; // checks: 28 … 1,680 trials per content
/** Largest step between neighbouring conditions of the ladder (JOD). */
const SCENARIOS = [
  { name: 'close', step: 0.5 },
  { name: 'wide', step: 1.5 },
] as const;
/** The full design's RMSE at this many trials per content is the second, always reachable, accuracy target. */
const REFERENCE_BUDGET = 280;
const TARGET_RMSE = 0.15;
const DESIGNS = ['full', 'random', 'asap'] as const;
type Design = (typeof DESIGNS)[number];

interface Curve {
  rmse: number[];
  pearson: number[];
  spearman: number[];
}

/** One trial: true if i is preferred to j; each trial's observer is a clicker with probability CLICKER_SHARE. */
function answer(q: Float64Array, i: number, j: number, random: Random): boolean {
  return prefers(q, i, j, random, random.next() < CLICKER_SHARE);
}

function allPairs(): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < CONDITIONS; i++) for (let j = i + 1; j < CONDITIONS; j++) pairs.push([i, j]);
  return pairs;
}


/** The next `count` pairs a design asks for, given the content's counts so far (row-major win matrix). */
function nextPairs(design: Design, counts: Float64Array, count: number, random: Random, asapRandom: Random): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  while (out.length < count) {
    if (design === 'full') out.push(...shuffled(allPairs(), random));
    else if (design === 'random') {
      const pairs = allPairs();
      out.push(pairs[random.int(pairs.length)]);
    } else {
      // One ASAP batch on the counts including the pairs already planned in this call (answered below first).
      const batch = runAsap(counts, { random: asapRandom }).batch;
      if (batch.length === 0) throw new Error("ASAP returned no pair");
      out.push(...batch);
      break;
    }
  }
  return out;
}

function simulate(design: Design, seed: number, step: number): { curve: Curve; asapMs: number } {
  const truth = truthOf(createRandom(1000 + seed), step);
  const random = createRandom(seed * 7 + DESIGNS.indexOf(design));
  const counts = truth.map(() => new Float64Array(CONDITIONS * CONDITIONS));
  const asapRandoms = truth.map((_, c) => createRandom(seed * 100 + c));
  const curve: Curve = { rmse: [], pearson: [], spearman: [] };
  let asapMs = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    for (let c = 0; c < CONTENTS; c++) {
      let done = 0;
      while (done < PAIRS) {
        const t0 = performance.now();
        const pairs = nextPairs(design, counts[c], PAIRS - done, random, asapRandoms[c]).slice(0, PAIRS - done);
        if (design === 'asap') asapMs += performance.now() - t0;
        for (const [a, b] of pairs) {
          // Order on screen does not matter to a Thurstone observer; the pair is shown once.
          if (answer(truth[c], a, b, random)) counts[c][a * CONDITIONS + b]++;
          else counts[c][b * CONDITIONS + a]++;
        }
        done += pairs.length;
      }
    }
    const accuracy = scaleAccuracy(counts, truth);
    curve.rmse.push(accuracy.rmse);
    curve.pearson.push(accuracy.pearson);
    curve.spearman.push(accuracy.spearman);
  }
  return { curve, asapMs };
}

/** Trials per content at the first check with RMSE ≤ target there and at the next check; null if never. */
function trialsToTarget(rmse: number[]): number | null {
  for (let k = 0; k < rmse.length; k++) if (rmse[k] <= TARGET_RMSE && (k + 1 >= rmse.length || rmse[k + 1] <= TARGET_RMSE)) return (k + 1) * PAIRS;
  return null;
}

/** Trials per content where a mean curve first reaches `level`, linear between checks; null if never. */
function crossing(rmse: number[], level: number): number | null {
  if (rmse[0] <= level) return PAIRS;
  for (let k = 1; k < rmse.length; k++) {
    if (rmse[k] <= level) return PAIRS * (k + (rmse[k - 1] - level) / (rmse[k - 1] - rmse[k]));
  }
  return null;
}

const round = (x: number | null, digits = 3) => (x === null || !Number.isFinite(x) ? null : Math.round(x * 10 ** digits) / 10 ** digits);
const meanCurve = (curves: number[][]) => curves[0].map((_, k) => curves.reduce((s, c) => s + c[k], 0) / curves.length);

type Summary = {
  seedsReached: number;
  medianTrialsPerContent: number | null;
  meanCurveCrossing: number | null;
  perSeedTrials: Array<number | null>;
  curve: { trialsPerContent: number[]; rmse: (number | null)[]; pearson: (number | null)[]; spearman: (number | null)[] };
};

function runScenario(step: number, started: number, label: string) {
  const results: Record<Design, { curves: Curve[]; trials: Array<number | null>; asapMs: number }> = {
    full: { curves: [], trials: [], asapMs: 0 },
    random: { curves: [], trials: [], asapMs: 0 },
    asap: { curves: [], trials: [], asapMs: 0 },
  };
  for (let seed = 1; seed <= SEEDS; seed++) {
    for (const design of DESIGNS) {
      const { curve, asapMs } = simulate(design, seed, step);
      results[design].curves.push(curve);
      results[design].trials.push(trialsToTarget(curve.rmse));
      results[design].asapMs += asapMs;
    }
    process.stderr.write(`${label}: seed ${seed}/${SEEDS} ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  }
  const checks = Array.from({ length: ROUNDS }, (_, k) => (k + 1) * PAIRS);
  const meanRmse = Object.fromEntries(DESIGNS.map((d) => [d, meanCurve(results[d].curves.map((c) => c.rmse))])) as Record<Design, number[]>;
  const summary = Object.fromEntries(
    DESIGNS.map((design) => {
      const r = results[design];
      const reached = r.trials.filter((t): t is number => t !== null);
      const s: Summary = {
        seedsReached: reached.length,
        medianTrialsPerContent: reached.length === SEEDS ? quantile(reached, 0.5) : null,
        meanCurveCrossing: round(crossing(meanRmse[design], TARGET_RMSE), 1),
        perSeedTrials: r.trials,
        curve: {
          trialsPerContent: checks,
          rmse: meanRmse[design].map((x) => round(x, 4)),
          pearson: meanCurve(r.curves.map((c) => c.pearson)).map((x) => round(x, 4)),
          spearman: meanCurve(r.curves.map((c) => c.spearman)).map((x) => round(x, 4)),
        },
      };
      return [design, s];
    }),
  ) as Record<Design, Summary>;

  // Per-seed ratios (same seed = same truth for every design), then their median.
  const perSeedRatio = (design: Design) => {
    const ratios: number[] = [];
    for (let s = 0; s < SEEDS; s++) {
      const a = results[design].trials[s];
      const f = results.full.trials[s];
      if (a !== null && f !== null) ratios.push(a / f);
    }
    return ratios.length === SEEDS ? round(quantile(ratios, 0.5)) : null;
  };
  const ratioOf = (a: number | null, b: number | null) => (a === null || b === null ? null : round(a / b));
  const level = meanRmse.full[REFERENCE_BUDGET / PAIRS - 1];
  const toLevel = Object.fromEntries(DESIGNS.map((d) => [d, round(crossing(meanRmse[d], level), 1)])) as Record<Design, number | null>;
  const at = (design: Design, trials: number) => {
    const k = trials / PAIRS - 1;
    const c = summary[design].curve;
    return { rmse: c.rmse[k], pearson: c.pearson[k], spearman: c.spearman[k] };
  };
  const budgets = [PAIRS * 2, PAIRS * 5, PAIRS * 10, PAIRS * 20, PAIRS * 40].filter((b) => b <= ROUNDS * PAIRS);
  return {
    truth: `per content: cumulative steps U(0, ${step}) JOD, mean 0`,
    ratios: {
      toRmse015: {
        note: `trials per content to RMSE ≤ ${TARGET_RMSE} JOD relative to the full design; null: not every seed reached it`,
        medianPerSeed: { random: perSeedRatio('random'), asap: perSeedRatio('asap') },
        meanCurve: { random: ratioOf(summary.random.meanCurveCrossing, summary.full.meanCurveCrossing), asap: ratioOf(summary.asap.meanCurveCrossing, summary.full.meanCurveCrossing) },
      },
      toFullLevelAt280: {
        note: `trials per content (mean curve) to the RMSE the full design has at ${REFERENCE_BUDGET}, relative to the full design`,
        rmseLevel: round(level, 4),
        trialsPerContent: toLevel,
        random: ratioOf(toLevel.random, toLevel.full),
        asap: ratioOf(toLevel.asap, toLevel.full),
      },
      rmseAtBudget: budgets.map((b) => ({ trialsPerContent: b, random: ratioOf(at('random', b).rmse, at('full', b).rmse), asap: ratioOf(at('asap', b).rmse, at('full', b).rmse) })),
    },
    atBudgets: budgets.map((b) => ({ trialsPerContent: b, full: at('full', b), random: at('random', b), asap: at('asap', b) })),
    designs: summary,
    asapSelectionMsPerBatch: round(results.asap.asapMs / (SEEDS * CONTENTS * ROUNDS * (PAIRS / (CONDITIONS - 1))), 3),
  };
}

function main() {
  const started = performance.now();
  const scenarios = Object.fromEntries(SCENARIOS.map((sc) => [sc.name, runScenario(sc.step, started, sc.name)]));
  const out = {
    bench: 'adaptive',
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
    config: {
      seeds: SEEDS,
      contents: CONTENTS,
      conditions: CONDITIONS,
      observers: `Thurstone Case V (σ = ${JOD_SIGMA} per JOD) with ${CLICKER_SHARE * 100} % random clickers, a fresh draw per trial`,
      checks: `every ${PAIRS} trials per content, up to ${ROUNDS * PAIRS}`,
      scaling: 'src/analysis/paired scaleThurstone, pwcmp prior, mean 0 per content',
      asap: 'src/analysis/asap runAsap batch (n − 1 = 7 pairs), full ASAP, selective off',
      target: `RMSE ≤ ${TARGET_RMSE} JOD over ${CONTENTS * CONDITIONS} conditions (per seed: at that check and the next)`,
    },
    scenarios,
    wallSeconds: round((performance.now() - started) / 1000, 1),
  };
  if (!quick) {
    const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'results');
    writeBenchResult(path.join(dir, 'adaptive.json'), out);
  }
  const fmt = (x: number | null | undefined) => (x === null || x === undefined ? '—' : String(x));
  for (const [name, sc] of Object.entries(scenarios)) {
    const r = sc.ratios;
    console.log(`\n### ${name}: ${sc.truth}\n`);
    console.log(`| design | seeds reaching ${TARGET_RMSE} | median trials/content | ratio (median per seed) | mean-curve trials | ratio | trials to RMSE ${r.toFullLevelAt280.rmseLevel} | ratio |`);
    console.log('|---|---|---|---|---|---|---|---|');
    for (const d of DESIGNS) {
      const s = sc.designs[d];
      const [perSeed, curve, level] = d === 'full' ? [1, 1, 1] : [r.toRmse015.medianPerSeed[d], r.toRmse015.meanCurve[d], r.toFullLevelAt280[d]];
      console.log(
        `| ${d} | ${s.seedsReached}/${SEEDS} | ${fmt(s.medianTrialsPerContent)} | ${fmt(perSeed)} | ${fmt(s.meanCurveCrossing)} | ${fmt(curve)} | ${fmt(r.toFullLevelAt280.trialsPerContent[d])} | ${fmt(level)} |`,
      );
    }
    console.log('\n| trials/content | full RMSE / r / ρ | random | asap | RMSE ratio random, asap |\n|---|---|---|---|---|');
    sc.atBudgets.forEach((b, k) => {
      const cell = (x: { rmse: number | null; pearson: number | null; spearman: number | null }) => `${fmt(x.rmse)} / ${fmt(x.pearson)} / ${fmt(x.spearman)}`;
      console.log(`| ${b.trialsPerContent} | ${cell(b.full)} | ${cell(b.random)} | ${cell(b.asap)} | ${fmt(r.rmseAtBudget[k].random)}, ${fmt(r.rmseAtBudget[k].asap)} |`);
    });
    console.log(`\nASAP batch selection: ${sc.asapSelectionMsPerBatch} ms per batch (n = ${CONDITIONS})`);
  }
  console.log(`\nwall ${out.wallSeconds} s${quick ? ' (quick: nothing written)' : ''}`);
}

main();
