/**
 * What every benchmark result records about its run (issue 37), so that a figure can be traced and its host
 * compared: the commit and whether the tree differed from it, the host and its calibration, and the load average
 * at the start (this module's import) and at the end (the stamp). Written by writeBenchResult; a result made of
 * parts run at different times (bench:display) stamps each part.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const loadAverage = () => os.loadavg().map((l) => Math.round(l * 100) / 100);
const loadAtStart = loadAverage();
const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();

/**
 * The host's speed before the run: median milliseconds of 5 SHA-256 hashes of the same 16 MiB (one core, no I/O).
 * Two results whose calibrations differ by more than a few per cent ran on hosts (or loads) that differ as much.
 */
function calibrate(): number {
  const data = Buffer.alloc(16 * 1024 * 1024, 7);
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    createHash('sha256').update(data).digest();
    times.push(performance.now() - started);
  }
  return Math.round(times.sort((a, b) => a - b)[2]! * 10) / 10;
}
const calibrationMs = calibrate();

export interface RunStamp {
  /** The commit checked out when the bench started. */
  commit: string;
  /** Tracked files differed from it then (bench/results aside: the benchmarks write there). */
  dirty: boolean;
  finishedAt: string;
  host: { cpus: number; model: string | undefined; node: string };
  calibration: { sha256Of16MiBMs: number };
  loadAverage: { start: number[]; end: number[] };
}

/** The checkout as the bench starts: the code that runs is what was checked out then, whatever is committed meanwhile. */
function checkout(): { commit: string; dirty: boolean } {
  try {
    const commit = git('rev-parse', 'HEAD');
    const dirty = git('status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)bench/results').length > 0;
    return { commit, dirty };
  } catch {
    // not a git checkout: unknown, and counted as dirty
    return { commit: 'unknown', dirty: true };
  }
}
const atStart = checkout();

export function runStamp(): RunStamp {
  return {
    ...atStart,
    finishedAt: new Date().toISOString(),
    host: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
    calibration: { sha256Of16MiBMs: calibrationMs },
    loadAverage: { start: loadAtStart, end: loadAverage() },
  };
}

/** Writes a result as JSON (bench/results/...), with its run's stamp under `run`. */
export function writeBenchResult(file: string, result: object): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ ...result, run: runStamp() }, null, 2)}\n`);
}
