import { blocks, bullets, day, num, outOf, table, times } from '../markdown.js';
import { resultDate, runLine, type Results, type Stamped } from '../results.js';
import type { BenchSection } from '../section.js';

const DESIGNS = ['full', 'random', 'asap'] as const;
type Design = (typeof DESIGNS)[number];
type Compared = Exclude<Design, 'full'>;

interface Accuracy {
  rmse: number;
  pearson: number;
  spearman: number;
}
interface DesignSummary {
  seedsReached: number;
  medianTrialsPerContent: number | null;
  meanCurveCrossing: number | null;
  curve: { trialsPerContent: number[] };
}
interface Scenario {
  truth: string;
  ratios: {
    toRmse015: { medianPerSeed: Record<Compared, number | null>; meanCurve: Record<Compared, number | null> };
    toFullLevelAt280: { rmseLevel: number; trialsPerContent: Record<Design, number>; random: number | null; asap: number | null };
    rmseAtBudget: ({ trialsPerContent: number } & Record<Compared, number | null>)[];
  };
  atBudgets: ({ trialsPerContent: number } & Record<Design, Accuracy>)[];
  designs: Record<Design, DesignSummary>;
  asapSelectionMsPerBatch: number;
}
interface AdaptiveResult extends Stamped {
  machine: { cpus: number; model: string; node?: string };
  config: {
    seeds: number;
    contents: number;
    conditions: number;
    observers: string;
    checks: string;
    scaling: string;
    asap: string;
    target: string;
  };
  scenarios: Record<string, Scenario>;
  wallSeconds: number;
}

const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

/** The reference design's ratio is 1 by definition; the others' come from the result. */
const ratioCell = (design: Design, ratio: number | null | undefined) => (design === 'full' ? '1 (reference)' : times(ratio));

function targetTable(result: AdaptiveResult, scenario: Scenario): string {
  const ratios = scenario.ratios.toRmse015;
  return table(
    ['Design', 'Seeds that reached it', 'Median trials per content', 'Ratio to full (median of per-seed ratios)', 'Mean-curve crossing', 'Ratio to full'],
    DESIGNS.map((design) => {
      const summary = scenario.designs[design];
      return [
        design,
        outOf(summary.seedsReached, result.config.seeds),
        num(summary.medianTrialsPerContent),
        ratioCell(design, design === 'full' ? 1 : ratios.medianPerSeed[design]),
        num(summary.meanCurveCrossing),
        ratioCell(design, design === 'full' ? 1 : ratios.meanCurve[design]),
      ];
    }),
    [2, 3, 4, 5],
  );
}

function referenceLevelTable(scenario: Scenario): string {
  const reference = scenario.ratios.toFullLevelAt280;
  return table(
    ['Design', 'Trials per content (mean curve)', 'Ratio to full'],
    DESIGNS.map((design) => [
      design,
      num(reference.trialsPerContent[design], 1),
      design === 'full' ? ratioCell(design, 1) : `**${times(reference[design])}**`,
    ]),
    [1, 2],
  );
}

function budgetsTable(scenario: Scenario): string {
  const three = (pick: (accuracy: Accuracy) => number, digits: number, at: Record<Design, Accuracy>) =>
    DESIGNS.map((design) => num(pick(at[design]), digits)).join(' / ');
  return table(
    ['Trials per content', 'RMSE (JOD), full / random / asap', 'RMSE ÷ full: random / asap', 'Pearson r, full / random / asap', 'Spearman ρ, full / random / asap'],
    scenario.atBudgets.map((at) => {
      const ratio = scenario.ratios.rmseAtBudget.find((r) => r.trialsPerContent === at.trialsPerContent);
      return [
        num(at.trialsPerContent),
        three((a) => a.rmse, 3, at),
        `${num(ratio?.random, 2)} / ${num(ratio?.asap, 2)}`,
        three((a) => a.pearson, 3, at),
        three((a) => a.spearman, 3, at),
      ];
    }),
    [0],
  );
}

/**
 * The RMSE at the fixed budgets as a Vega-Lite spec (issue 38 asks for the curves as a chart): one line per design,
 * one panel per scenario, each with its own RMSE axis (the scenarios' scales differ). One data point per line.
 */
function rmseChart(result: AdaptiveResult): string {
  const points = Object.entries(result.scenarios).flatMap(([name, scenario]) =>
    scenario.atBudgets.flatMap((at) =>
      DESIGNS.map((design) => JSON.stringify({ scenario: name, design, trialsPerContent: at.trialsPerContent, rmse: at[design].rmse })),
    ),
  );
  // Written around the data so that each point is one line and each setting stays short.
  const settings: [string, unknown][] = [
    ['$schema', VEGA_LITE_SCHEMA],
    ['description', 'bench:adaptive: RMSE against the truth at fixed budgets, mean over the seeds (bench/results/adaptive.json)'],
    ['mark', { type: 'line', point: true }],
    [
      'encoding',
      {
        column: { field: 'scenario', type: 'nominal' },
        x: { field: 'trialsPerContent', type: 'quantitative', scale: { type: 'log' }, title: 'trials per content' },
        y: { field: 'rmse', type: 'quantitative', title: 'RMSE (JOD)' },
        color: { field: 'design', type: 'nominal', sort: [...DESIGNS] },
      },
    ],
    ['resolve', { scale: { y: 'independent' } }],
  ];
  const json = [
    '{',
    ...settings.map(([key, value]) => `  ${JSON.stringify(key)}: ${JSON.stringify(value)},`),
    '  "data": {"values": [',
    points.map((point) => `    ${point}`).join(',\n'),
    '  ]}',
    '}',
  ].join('\n');
  return ['```vega-lite', json, '```'].join('\n');
}

function scenarioBlock(result: AdaptiveResult, name: string, scenario: Scenario): string {
  const checks = scenario.designs.full.curve.trialsPerContent;
  const lastCheck = checks[checks.length - 1];
  const reachedBy = DESIGNS.filter((design) => scenario.designs[design].seedsReached > 0);
  const reference = scenario.ratios.toFullLevelAt280;
  return blocks(
    `### ${name}`,
    `True scores: ${scenario.truth}.`,
    `**Trials per content to the target**, ${result.config.target}:`,
    reachedBy.length === 0
      ? `No design reached it on any seed by ${num(lastCheck)} trials per content.`
      : targetTable(result, scenario),
    `**Trials per content to the RMSE the full design has at ${num(reference.trialsPerContent.full)}** ` +
      `(${num(reference.rmseLevel, 3)} JOD, mean curve):`,
    referenceLevelTable(scenario),
    '**At fixed budgets**, means over the seeds (Pearson and Spearman r per content, averaged over the contents):',
    budgetsTable(scenario),
    `Selecting one ASAP batch took ${num(scenario.asapSelectionMsPerBatch, 2)} ms.`,
  );
}

export const adaptiveSection: BenchSection = {
  title: 'bench:adaptive',
  latest(results) {
    const adaptive = results.get<AdaptiveResult>('adaptive.json');
    if (!adaptive) return { ran: 'not run', headline: '—', files: ['adaptive.json'] };
    const references = Object.entries(adaptive.scenarios).map(([name, scenario]) => ({ name, ...scenario.ratios.toFullLevelAt280 }));
    const budget = references[0]?.trialsPerContent.full;
    const perScenario = references.map((reference) => `**${times(reference.asap)}** (${reference.name})`);
    return {
      ran: day(resultDate(adaptive)),
      headline:
        `ASAP against the full design: trials per content to the accuracy the full design has at ${num(budget)}, ` +
        `${perScenario.join(', ')}`,
      files: ['adaptive.json'],
    };
  },
  render(results: Results) {
    const adaptive = results.get<AdaptiveResult>('adaptive.json');
    const config = adaptive?.config;
    return blocks(
      '**`npm run bench:adaptive [-- --quick] [-- --seeds N]`** (`bench/adaptive/`, [its README](../bench/adaptive/README.md); ' +
        'issue 38 item 5): how many pair comparisons three designs need to recover a known scale. The full design ' +
        'shows every pair once per round; random pairs draws each trial uniformly; ASAP (`src/analysis/asap`, batch ' +
        "mode) picks each round's pairs from the content's counts so far. The designs get the same number of trials " +
        'per content, the same truth and the same crowd for a seed. At each check the scores are what a researcher ' +
        'gets from Glimpse, compared with the mean-0 truth: RMSE over all conditions, and Pearson and Spearman r per ' +
        'content, averaged over the contents. "Trials to the target" is, per seed, the first check where the RMSE is at ' +
        'or under the target and stays so at the next; the mean-curve crossing, less noisy, is where the RMSE averaged ' +
        'over the seeds first falls to it. Ratios are against the full design (under 1: fewer trials).',
      runLine('adaptive.json', adaptive),
      adaptive &&
        config &&
        blocks(
          `${num(adaptive.machine.cpus)} × ${adaptive.machine.model}, Node ${adaptive.machine.node ?? '—'}; the run took ` +
            `${num(adaptive.wallSeconds)} s. The simulation:`,
          bullets([
            `${num(config.seeds)} seeds, ${num(config.contents)} contents × ${num(config.conditions)} conditions;`,
            `observers: ${config.observers};`,
            `checks: ${config.checks};`,
            `scores: ${config.scaling};`,
            `ASAP: ${config.asap};`,
            `target: ${config.target}.`,
          ]),
          'Random clickers shrink the fitted scale, a bias no design removes. Where no design reaches the target, the ' +
            "second comparison, to the RMSE the full design has at a fixed budget, is the one to read. When all " +
            'conditions are close, every pair is informative, so the full design leaves little to save; when they are ' +
            'far apart, many pairs have a near-certain outcome, and ASAP does not spend trials on them.',
          ...Object.entries(adaptive.scenarios).map(([name, scenario]) => scenarioBlock(adaptive, name, scenario)),
          '### RMSE at fixed budgets, as a chart',
          'The same RMSE figures as a [Vega-Lite](https://vega.github.io/vega-lite/) specification (paste it into the ' +
            '[Vega editor](https://vega.github.io/editor/) to draw it):',
          rmseChart(adaptive),
        ),
    );
  },
};
