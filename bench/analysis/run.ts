/**
 * npm run bench:analysis [-- --quick] — the report of a stored job against exporting the same rows, in the same
 * run (issue 11's benchmark). Builds synthetic jobs from a known truth in a fresh SQLite database (synthetic.ts):
 * ACR, 500 observers × 100 stimuli, and pair comparison, 500 observers × 2,000 comparisons over 50 stimuli, each
 * also with 250 observers for the memory comparison. Then, each in a fresh process (measure.ts): the CSV export of
 * the ratings table to a discarding stream, the full report (jobReport with 1,000 bootstrap resamples, then
 * writeReport), and the export again; ratio = report time / mean of the two exports. The report's scale is checked
 * against the truth so that a fast but wrong report cannot pass. Writes bench/results/analysis.json and prints a
 * markdown table. Target: ratio ≤ 3, memory flat in the number of observers.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pearson } from '../../src/analysis/stats.js';
import { openStorage } from '../../src/server/storage/open.js';
import { buildAcrJob, buildPairedJob } from './synthetic.js';
import { writeBenchResult } from '../shared/run-stamp.js';

const QUICK = process.argv.includes('--quick');
const TARGET_RATIO = 3;
const SIZES = QUICK
  ? { observers: [20, 40], acrStimuli: 20, pairedStimuli: 12, comparisons: 100, resamples: 100 }
  : { observers: [250, 500], acrStimuli: 100, pairedStimuli: 50, comparisons: 2000, resamples: 1000 };
const PAIRED_PLAYLISTS = 10;

interface Measured {
  ms: number;
  maxRssMb: number;
  /** Largest heapUsed sampled (garbage included). */
  peakHeapMb: number;
  /** Largest heap left after a full garbage collection (what was live then). */
  liveHeapMb: number;
  [key: string]: unknown;
}
type Interval = [number, number] | null;
interface ReportSummary {
  family: string;
  observers: number;
  stimuli?: Array<{ stimulus: string; mos: number; ci95: Interval }>;
  p910?: Array<{ stimulus: string; quality: number; ci95: Interval }> | null;
  scale?: Array<{ stimulus: string; jod: number; ci95: Interval; bt: number; bt_ci95: Interval }>;
  [key: string]: unknown;
}

/** Runs measure.ts in a fresh Node process and returns its JSON line. */
function measure(db: string, jobId: string, task: 'export' | 'report', outDir: string): Promise<Measured & { summary?: ReportSummary }> {
  return new Promise((resolve, reject) => {
    // --trace-gc: the heap left after each full collection (the live data) is read from its lines.
    const child = spawn(process.execPath, ['--trace-gc', '--import', 'tsx', 'bench/analysis/measure.ts', db, jobId, task, String(SIZES.resamples), outDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const lines = out.trim().split('\n');
      const line = lines.findLast((l) => l.startsWith('{')) ?? '';
      if (code !== 0 || !line.startsWith('{')) return reject(new Error(`measure ${jobId} ${task} exited ${code}: ${err.slice(-2000)}`));
      let liveHeapMb = 0;
      for (const trace of lines) {
        const full = /Mark-Compact[^\d]*[\d.]+ \([\d.]+\) -> ([\d.]+) \(/.exec(trace);
        if (full) liveHeapMb = Math.max(liveHeapMb, Number(full[1]));
      }
      resolve({ ...(JSON.parse(line) as Measured & { summary?: ReportSummary }), liveHeapMb });
    });
  });
}

const round = (x: number, digits = 3) => Number(x.toFixed(digits));
const centred = (values: number[]) => {
  const m = values.reduce((a, b) => a + b, 0) / values.length;
  return values.map((v) => v - m);
};
/** Share of intervals that contain their true value. */
const coverage = (rows: Array<{ truth: number; ci95: Interval }>) => rows.filter((r) => r.ci95 && r.ci95[0] <= r.truth && r.truth <= r.ci95[1]).length / rows.length;

function acrRecovery(summary: ReportSummary, truth: Map<string, number>) {
  const mos = summary.stimuli!;
  const p910 = summary.p910 ?? [];
  return {
    pearsonMos: round(pearson(mos.map((s) => s.mos), mos.map((s) => truth.get(s.stimulus)!)), 4),
    pearsonP910: round(pearson(p910.map((s) => s.quality), p910.map((s) => truth.get(s.stimulus)!)), 4),
    // Votes are rounded and clamped to 1..5, so the MOS is pulled in at both ends: no coverage of the latent truth.
    rmseMos: round(Math.sqrt(mos.reduce((a, s) => a + (s.mos - truth.get(s.stimulus)!) ** 2, 0) / mos.length), 4),
  };
}

function pairedRecovery(summary: ReportSummary, truth: Map<string, number>) {
  const scale = summary.scale!;
  // The report's gauge is mean 0 (pwcmp mean0): compare with the truth shifted the same way.
  const trueJod = centred(scale.map((s) => truth.get(s.stimulus)!));
  const error = scale.map((s, i) => s.jod - trueJod[i]!);
  return {
    pearsonJod: round(pearson(scale.map((s) => s.jod), trueJod), 5),
    pearsonBt: round(pearson(scale.map((s) => s.bt), trueJod), 5),
    rmseJod: round(Math.sqrt(error.reduce((a, e) => a + e * e, 0) / error.length), 4),
    // pwcmp's prior pulls large differences in a little; coverage of the (mean-0) truth by the bootstrap CIs.
    ciCoverage: round(coverage(scale.map((s, i) => ({ truth: trueJod[i]!, ci95: s.ci95 }))), 3),
    meanCiWidth: round(scale.reduce((a, s) => a + (s.ci95 ? s.ci95[1] - s.ci95[0] : NaN), 0) / scale.length, 4),
  };
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'glimpse-bench-analysis-'));
  const db = join(dir, 'bench.sqlite');
  try {
    const building = performance.now();
    const storage = await openStorage({ databaseUrl: db, sqliteSynchronous: 'NORMAL' });
    const jobs: Array<{ jobId: string; family: 'acr' | 'paired'; observers: number; rows: number; truth: Map<string, number> }> = [];
    for (const observers of SIZES.observers) {
      const acr = await buildAcrJob(storage, { jobId: `acr-${observers}`, observers, stimuli: SIZES.acrStimuli, seed: 11 });
      jobs.push({ jobId: `acr-${observers}`, family: 'acr', observers, rows: acr.rows, truth: acr.truth.quality });
      const paired = await buildPairedJob(storage, { jobId: `paired-${observers}`, observers, comparisons: SIZES.comparisons, stimuli: SIZES.pairedStimuli, playlists: PAIRED_PLAYLISTS, seed: 12 });
      jobs.push({ jobId: `paired-${observers}`, family: 'paired', observers, rows: paired.rows, truth: paired.truth.jod });
    }
    await storage.close();
    const buildS = (performance.now() - building) / 1000;
    console.error(`built ${jobs.map((j) => `${j.jobId} (${j.rows} rows)`).join(', ')} in ${buildS.toFixed(1)} s`);

    const results: Array<Record<string, any>> = [];
    for (const job of jobs) {
      const outDir = join(dir, `report-${job.jobId}`);
      await mkdir(outDir, { recursive: true });
      // Exports before and after the report bracket it under the same machine load.
      const exportBefore = await measure(db, job.jobId, 'export', outDir);
      const report = await measure(db, job.jobId, 'report', outDir);
      const exportAfter = await measure(db, job.jobId, 'export', outDir);
      const exportMs = (exportBefore.ms + exportAfter.ms) / 2;
      const recovery = job.family === 'acr' ? acrRecovery(report.summary!, job.truth) : pairedRecovery(report.summary!, job.truth);
      const { summary, ...reportFigures } = report;
      const result = {
        job: job.jobId,
        family: job.family,
        observers: job.observers,
        rows: job.rows,
        exportMs: [round(exportBefore.ms, 0), round(exportAfter.ms, 0)],
        exportMaxRssMb: round(Math.max(exportBefore.maxRssMb, exportAfter.maxRssMb), 1),
        reportMs: round(report.ms, 0),
        analysedMs: round(report.analysedMs as number, 0),
        writeMs: round(report.writeMs as number, 0),
        phases: report.phases,
        ratio: round(report.ms / exportMs, 3),
        reportMaxRssMb: round(report.maxRssMb, 1),
        reportPeakHeapMb: round(report.peakHeapMb, 1),
        reportLiveHeapMb: round(report.liveHeapMb, 1),
        votes: reportFigures.votes,
        recovery,
        ...(summary && 'outliers' in summary ? { outliers: summary.outliers, converged: summary.converged } : {}),
      };
      console.error(JSON.stringify(result));
      results.push(result);
    }

    const largest = Math.max(...SIZES.observers);
    const smallest = Math.min(...SIZES.observers);
    const memory = (['acr', 'paired'] as const).map((family) => {
      const at = (observers: number) => results.find((r) => r.family === family && r.observers === observers)!;
      return {
        family,
        observers: [smallest, largest],
        rows: [at(smallest).rows, at(largest).rows],
        maxRssMb: [at(smallest).reportMaxRssMb, at(largest).reportMaxRssMb],
        peakHeapMb: [at(smallest).reportPeakHeapMb, at(largest).reportPeakHeapMb],
        liveHeapMb: [at(smallest).reportLiveHeapMb, at(largest).reportLiveHeapMb],
      };
    });
    const targetRows = results.filter((r) => r.observers === largest);
    const output = {
      bench: 'analysis',
      quick: QUICK,
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', loadavg: loadavg().map((x) => round(x, 2)), node: process.version },
      sizes: { ...SIZES, pairedPlaylists: PAIRED_PLAYLISTS },
      buildS: round(buildS, 1),
      targetRatio: TARGET_RATIO,
      targetMet: targetRows.every((r) => r.ratio <= TARGET_RATIO),
      results,
      memory,
    };
    if (!QUICK) {
      writeBenchResult('bench/results/analysis.json', output);
    }

    console.log(`\nbench:analysis${QUICK ? ' (--quick: small jobs, not written)' : ''} — report / export of the same rows, target ≤ ${TARGET_RATIO}×\n`);
    console.log('| job | rows | export ms (before / after) | report ms (analysis + write) | ratio | report peak RSS / heap / live heap MB | truth recovery |');
    console.log('|---|---:|---|---|---:|---|---|');
    for (const r of results) {
      const recovery = Object.entries(r.recovery)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      console.log(`| ${r.job} | ${r.rows} | ${r.exportMs[0]} / ${r.exportMs[1]} | ${r.reportMs} (${r.analysedMs} + ${r.writeMs}) | ${r.ratio} | ${r.reportMaxRssMb} / ${r.reportPeakHeapMb} / ${r.reportLiveHeapMb} | ${recovery} |`);
    }
    console.log('');
    for (const m of memory) {
      console.log(`memory ${m.family}: ${m.observers[0]} → ${m.observers[1]} observers (${m.rows[0]} → ${m.rows[1]} rows): peak RSS ${m.maxRssMb[0]} → ${m.maxRssMb[1]} MB, peak heap ${m.peakHeapMb[0]} → ${m.peakHeapMb[1]} MB, live heap ${m.liveHeapMb[0]} → ${m.liveHeapMb[1]} MB`);
    }
    console.log(`target (ratio ≤ ${TARGET_RATIO} at ${largest} observers): ${output.targetMet ? 'met' : 'NOT met'}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
