/** Helpers of the analysis tests only: fixture paths and readers. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readVotesCsv, type VoteOf } from './votes-csv.js';
import type { AnalysisFamily } from './types.js';

export const FIXTURES = fileURLToPath(new URL('../../tests/analysis/fixtures/', import.meta.url));

export function fixturePath(name: string): string {
  return FIXTURES + name;
}

export function readFixtureJson<T>(name: string): T {
  return JSON.parse(readFileSync(fixturePath(name), 'utf8')) as T;
}

/** All votes of a fixture CSV, in file order. */
export async function fixtureVotes<F extends AnalysisFamily>(name: string, protocol: string): Promise<VoteOf<F>[]> {
  const votes: VoteOf<F>[] = [];
  for await (const vote of await readVotesCsv(fixturePath(name), protocol)) votes.push(vote as VoteOf<F>);
  return votes;
}

/** |a − b| for numbers, treating two NaN/null as equal (sureal writes NaN as null in our JSON). */
export function absDiff(a: number | null, b: number | null): number {
  const an = a === null || Number.isNaN(a);
  const bn = b === null || Number.isNaN(b);
  if (an || bn) return an && bn ? 0 : Infinity;
  return Math.abs((a as number) - (b as number));
}

export function maxAbsDiff(a: ArrayLike<number | null>, b: ArrayLike<number | null>): number {
  if (a.length !== b.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, absDiff(a[i], b[i]));
  return worst;
}
