/**
 * The result files a report is made from (bench/results/*.json), read once. The report checks that every file was
 * used by some section, so a new benchmark's result cannot sit unreported.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RunStamp } from '../shared/run-stamp.js';
import { num, when } from './markdown.js';

export interface Stamped {
  run?: RunStamp;
  date?: string;
  started?: string;
}

export class Results {
  private readonly used = new Set<string>();
  constructor(private readonly files: ReadonlyMap<string, unknown>) {}

  static readFolder(folder: string): Results {
    const files = new Map<string, unknown>();
    for (const name of readdirSync(folder).filter((n) => n.endsWith('.json')).sort()) {
      files.set(name, JSON.parse(readFileSync(path.join(folder, name), 'utf8')));
    }
    return new Results(files);
  }

  /** The parsed file, or undefined when that benchmark has not been run here. */
  get<T>(name: string): T | undefined {
    if (!this.files.has(name)) return undefined;
    this.used.add(name);
    return this.files.get(name) as T;
  }

  /** The names matching a pattern, sorted. */
  names(pattern: RegExp): string[] {
    return [...this.files.keys()].filter((name) => pattern.test(name));
  }

  unused(): string[] {
    return [...this.files.keys()].filter((name) => !this.used.has(name));
  }
}

/** When a result was written: its stamp, else the date its benchmark recorded before stamps existed. */
export const resultDate = (result: Stamped | undefined): string | undefined =>
  result?.run?.finishedAt ?? result?.date ?? result?.started;

/**
 * One sentence on the run a result came from: its time, commit and tree, host, calibration and load. Results
 * written before run stamps (2026-11-28) say so instead of guessing.
 */
export function runLine(file: string, result: Stamped | undefined, fallbackDate?: string): string {
  if (!result) return `\`${file}\`: not run on this checkout.`;
  const stamp = result.run;
  if (!stamp) {
    return `\`${file}\`: ${when(resultDate(result) ?? fallbackDate)}; written before results recorded their run: its commit, tree and calibration are not known.`;
  }
  const tree = stamp.dirty ? '**tracked files differed from it**' : 'clean tree';
  const load = `${num(stamp.loadAverage.start[0], 2)} → ${num(stamp.loadAverage.end[0], 2)}`;
  return (
    `\`${file}\`: ${when(stamp.finishedAt)}, commit \`${stamp.commit.slice(0, 7)}\` (${tree}), ` +
    `${stamp.host.cpus} × ${stamp.host.model ?? 'unknown CPU'}, Node ${stamp.host.node}, ` +
    `calibration ${num(stamp.calibration.sha256Of16MiBMs, 1)} ms, load average ${load}.`
  );
}
