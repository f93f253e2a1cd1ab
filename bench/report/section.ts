import type { Results } from './results.js';

/** One benchmark's part of docs/benchmarks.md, written from its result files only. */
export interface BenchSection {
  /** The npm script, also the heading: "bench:api". */
  title: string;
  /** The line of the "Latest figures" table: when it ran, its headline figures, its files. */
  latest(results: Results): { ran: string; headline: string; files: string[] };
  /** The section's body under its heading: command, method, run lines, tables. */
  render(results: Results): string;
}

/** The heading's anchor as GitHub writes it: "bench:api" → "benchapi". */
export const anchorOf = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
