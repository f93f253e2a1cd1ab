import { blocks, day, num, percent, table, times } from '../markdown.js';
import { resultDate, runLine, type Results, type Stamped } from '../results.js';
import type { BenchSection } from '../section.js';

interface JobResult {
  job: string;
  family: 'acr' | 'paired';
  observers: number;
  rows: number;
  /** The export before and the export after the report, in ms. */
  exportMs: number[];
  exportMaxRssMb: number;
  reportMs: number;
  analysedMs: number;
  writeMs: number;
  ratio: number;
  reportMaxRssMb: number;
  reportPeakHeapMb: number;
  reportLiveHeapMb: number;
  recovery: {
    pearsonMos?: number;
    rmseMos?: number;
    pearsonJod?: number;
    rmseJod?: number;
    ciCoverage?: number;
    meanCiWidth?: number;
  };
  outliers?: number;
  converged?: boolean;
}
interface MemoryRow {
  family: 'acr' | 'paired';
  observers: number[];
  rows: number[];
  maxRssMb: number[];
  peakHeapMb: number[];
  liveHeapMb: number[];
}
interface AnalysisResult extends Stamped {
  quick: boolean;
  machine: { cpus: number; model: string; loadavg?: number[]; node?: string };
  sizes: {
    observers: number[];
    acrStimuli: number;
    pairedStimuli: number;
    comparisons: number;
    resamples: number;
    pairedPlaylists: number;
  };
  buildS: number;
  targetRatio: number;
  targetMet: boolean;
  results: JobResult[];
  memory: MemoryRow[];
}

const familyName = (family: JobResult['family']) => (family === 'acr' ? 'ACR' : 'pairs');
/** Seconds with one decimal under 10 s, whole above: the run-to-run spread on shared cores is larger than that. */
const seconds = (ms: number | undefined) => (ms === undefined ? '—' : `${num(ms / 1000, ms < 10_000 ? 1 : 0)} s`);
const largestObservers = (analysis: AnalysisResult) => Math.max(...analysis.results.map((r) => r.observers));

function recovery(job: JobResult): string {
  const r = job.recovery;
  if (job.family === 'acr') return `r(MOS, truth) ${num(r.pearsonMos, 4)}, RMSE ${num(r.rmseMos, 3)}`;
  const fit = job.converged === undefined ? '' : `; ${num(job.outliers)} outliers, ${job.converged ? 'converged' : '**not converged**'}`;
  return (
    `r(JOD, truth) ${num(r.pearsonJod, 5)}, RMSE ${num(r.rmseJod, 3)} JOD, ${percent(r.ciCoverage, 0)} of CIs hold the truth ` +
    `(mean width ${num(r.meanCiWidth, 3)} JOD)${fit}`
  );
}

function jobsTable(analysis: AnalysisResult): string {
  const largest = largestObservers(analysis);
  // The target's rows (the largest job of each kind) first, as they are the ones judged.
  const ordered = [...analysis.results].sort((a, b) => b.observers - a.observers);
  return table(
    ['Job', 'Rows', 'Export before / after', 'Report (analysis + writing)', 'Ratio', 'Report peak RSS / live heap', 'Truth recovery'],
    ordered.map((job) => [
      `${familyName(job.family)}, ${num(job.observers)} observers`,
      num(job.rows),
      job.exportMs.map(seconds).join(' / '),
      `${seconds(job.reportMs)} (${seconds(job.analysedMs)} + ${seconds(job.writeMs)})`,
      job.observers === largest ? `**${num(job.ratio, 2)}**` : num(job.ratio, 2),
      `${num(job.reportMaxRssMb)} / ${num(job.reportLiveHeapMb)} MB`,
      recovery(job),
    ]),
    [1, 4],
  );
}

function memoryTable(analysis: AnalysisResult): string {
  const change = (values: number[], digits = 0) => `${values.map((v) => num(v, digits)).join(' → ')}`;
  const factor = (values: number[]) => times(values.length === 2 ? values[1]! / values[0]! : undefined);
  return table(
    ['Kind', 'Observers', 'Rows', 'Report peak RSS (MB)', 'Peak heap, garbage included (MB)', 'Live heap after full collections (MB)', 'Live heap, larger / smaller'],
    analysis.memory.map((row) => [
      familyName(row.family),
      change(row.observers),
      `${change(row.rows)} (${factor(row.rows)})`,
      change(row.maxRssMb),
      change(row.peakHeapMb),
      change(row.liveHeapMb, 1),
      `**${factor(row.liveHeapMb)}**`,
    ]),
    [6],
  );
}

export const analysisSection: BenchSection = {
  title: 'bench:analysis',
  latest(results) {
    const analysis = results.get<AnalysisResult>('analysis.json');
    if (!analysis) return { ran: 'not run', headline: '—', files: ['analysis.json'] };
    const largest = largestObservers(analysis);
    const paired = analysis.results.find((r) => r.family === 'paired' && r.observers === largest);
    const acr = analysis.results.find((r) => r.family === 'acr' && r.observers === largest);
    return {
      ran: day(resultDate(analysis)),
      headline:
        `the report of a job of ${num(paired?.rows)} pair comparisons (${num(largest)} observers) in **${times(paired?.ratio)}** ` +
        `the time of its CSV export (ACR, ${num(acr?.rows)} ratings: ${times(acr?.ratio)}); target ≤ ${num(analysis.targetRatio)} ×: ` +
        `**${analysis.targetMet ? 'met' : 'not met'}**`,
      files: ['analysis.json'],
    };
  },
  render(results: Results) {
    const analysis = results.get<AnalysisResult>('analysis.json');
    const sizes = analysis?.sizes;
    return blocks(
      '**`npm run bench:analysis [-- --quick]`** (`bench/analysis/`, [its README](../bench/analysis/README.md)): the ' +
        'report of a stored job (`jobReport` with its bootstrap resamples and leave-one-out outlier refits, then ' +
        '`writeReport`: what `cli report` does) against the CSV export of the same rows, each measurement in a fresh ' +
        'process, in the same run. The jobs are synthetic, built from a known truth in a fresh SQLite database, and ' +
        "the report's scale is compared with that truth, so a fast but wrong report cannot pass. Ratio = report / mean " +
        'of the exports before and after it (they bracket the report under the same machine load). Memory: the peak ' +
        "RSS (the kernel's high-water mark), and the live heap, the largest heap left after a full garbage collection.",
      runLine('analysis.json', analysis),
      analysis &&
        blocks(
          `${num(analysis.machine.cpus)} × ${analysis.machine.model}, Node ${analysis.machine.node ?? '—'}; the result ` +
            `records the load average as it was written: ${num(analysis.machine.loadavg?.[0], 2)}` +
            `${analysis.quick ? '; `--quick` (small jobs)' : ''}. ACR jobs have ${num(sizes?.acrStimuli)} stimuli; pair ` +
            `comparison jobs ${num(sizes?.comparisons)} comparisons per observer over ${num(sizes?.pairedStimuli)} stimuli ` +
            `in ${num(sizes?.pairedPlaylists)} playlists; ${num(sizes?.resamples)} bootstrap resamples; each with ` +
            `${(sizes?.observers ?? []).map((o) => num(o)).join(' and ')} observers. Building the database took ` +
            `${num(analysis.buildS)} s.`,
          jobsTable(analysis),
          `Target: the full report within ${num(analysis.targetRatio)} × the export's time at ` +
            `${num(largestObservers(analysis))} observers: **${analysis.targetMet ? 'met' : 'not met'}**.`,
          'Memory should stay flat in the number of observers. The bench sets no threshold for it: compare the ' +
            'live heap of the smaller and the larger job of each kind. The peak RSS includes the process with its libraries, as for the ' +
            "export; the peak heap counts garbage not yet collected.",
          memoryTable(analysis),
          "The paired report's bootstrap refits do not depend on the number of observers, while the export grows " +
            'with the rows: the ratio is expected to be higher for the smaller paired job.',
        ),
    );
  },
};
