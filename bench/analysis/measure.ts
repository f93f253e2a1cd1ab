/**
 * One measurement of bench/analysis in a fresh process (so that no heap is left over from building the data or
 * from another measurement): `measure.ts DB JOB export|report RESAMPLES OUTDIR`. Prints one JSON line:
 * wall times, the process's peak RSS (the kernel's high-water mark) and its peak V8 heap (sampled: every 5 ms
 * while the event loop turns, at every progress event of the bootstrap, and between phases).
 */
import { Writable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { isUnavailable, writeReport, type AnyReport, type PairedReport, type RatingReport } from '../../src/analysis/index.js';
import { exportJob } from '../../src/server/export/export.js';
import { jobReport } from '../../src/server/report/job-report.js';
import { openStorage } from '../../src/server/storage/open.js';

const [databaseUrl, jobId, task, resamplesText, outDir] = process.argv.slice(2);
if (!databaseUrl || !jobId || (task !== 'export' && task !== 'report') || !outDir) {
  throw new Error('usage: measure.ts DB JOB export|report RESAMPLES OUTDIR');
}

let peakHeap = 0;
const sample = () => {
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
};
const sampler = setInterval(sample, 5);

/** A sink that only counts: the export's cost without the disk's. */
function discard() {
  let bytes = 0;
  const out = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      bytes += chunk.length;
      callback();
    },
  });
  return { out, bytes: () => bytes };
}

/** What the bench compares with the truth: the scale of each stimulus (no more, to keep the pipe small). */
function summary(report: AnyReport) {
  if (isUnavailable(report)) return { unavailable: report.unavailable };
  if (report.family === 'rating') {
    const r = report as RatingReport;
    return {
      family: r.family,
      observers: r.observers.length,
      stimuli: r.stimuli.map((s) => ({ stimulus: s.stimulus, mos: s.mos, ci95: s.ci95 })),
      p910: r.p910 ? r.p910.stimuli.map((s) => ({ stimulus: s.stimulus, quality: s.quality, ci95: s.ci95 })) : null,
    };
  }
  if (report.family === 'paired') {
    const r = report as PairedReport;
    return {
      family: r.family,
      observers: r.observers.length,
      outliers: r.observers.filter((o) => o.outlier).length,
      scored: r.observers.filter((o) => o.logLik10PerPair !== null).length,
      converged: r.converged,
      resamples: r.resamples,
      scale: r.scale.map((s) => ({ stimulus: s.stimulus, jod: s.jod, ci95: s.ci95, bt: s.bt, bt_ci95: s.bt_ci95 })),
    };
  }
  return { family: report.family };
}

const storage = await openStorage({ databaseUrl, migrate: false });
try {
  sample();
  const started = performance.now();
  if (task === 'export') {
    const sink = discard();
    const rows = await exportJob(storage, jobId, { table: 'ratings', format: 'csv', out: sink.out });
    const ms = performance.now() - started;
    sample();
    console.log(JSON.stringify({ task, jobId, ms, rows, bytes: sink.bytes(), maxRssMb: process.resourceUsage().maxRSS / 1024, peakHeapMb: peakHeap / 2 ** 20 }));
  } else {
    // When each long task (bootstrap, leave-one-out refits) reported first and last: where the time goes.
    const phases: Record<string, { firstMs: number; lastMs: number; total: number }> = {};
    const report = await jobReport(storage, jobId, {
      mediaDir: outDir,
      resamples: Number(resamplesText),
      seed: 1,
      generatedAt: new Date('2025-01-01T00:00:00Z'),
      onProgress: (event) => {
        sample();
        const at = performance.now() - started;
        phases[event.task] ??= { firstMs: at, lastMs: at, total: event.total };
        phases[event.task]!.lastMs = at;
      },
    });
    const analysedMs = performance.now() - started;
    sample();
    await writeReport(outDir, report);
    const ms = performance.now() - started;
    sample();
    console.log(
      JSON.stringify({
        task,
        jobId,
        ms,
        analysedMs,
        writeMs: ms - analysedMs,
        phases,
        votes: report.votes,
        maxRssMb: process.resourceUsage().maxRSS / 1024,
        peakHeapMb: peakHeap / 2 ** 20,
        summary: summary(report),
      }),
    );
  }
} finally {
  clearInterval(sampler);
  await storage.close();
}
