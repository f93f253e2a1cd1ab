/**
 * One-pass collection of votes into compact numeric arrays: strings are interned once, each vote keeps a few
 * typed-array slots, and the source rows are dropped as they are read.
 */
import type { VoteSource } from './types.js';

/** Maps names to dense indices in order of first appearance. */
export class Interner {
  readonly names: string[] = [];
  private readonly index = new Map<string, number>();

  id(name: string): number {
    let i = this.index.get(name);
    if (i === undefined) {
      i = this.names.length;
      this.index.set(name, i);
      this.names.push(name);
    }
    return i;
  }

  find(name: string): number | undefined {
    return this.index.get(name);
  }

  get size(): number {
    return this.names.length;
  }
}

type TypedArray = Float64Array | Int32Array | Uint8Array;
type TypedArrayConstructor<T extends TypedArray> = { new (length: number): T };

/** Append-only typed array that doubles its capacity. */
export class Growable<T extends TypedArray> {
  private data: T;
  length = 0;

  constructor(private readonly make: TypedArrayConstructor<T>, capacity = 1024) {
    this.data = new make(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new this.make(this.data.length * 2);
      bigger.set(this.data as never);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  /** The filled part, trimmed to its length (a copy, so the spare capacity is freed). */
  toArray(): T {
    return this.data.slice(0, this.length) as T;
  }
}

export interface VoteCounts {
  /** Votes read from the source (valid ones; see `skipped`). */
  read: number;
  /** Votes marked flagged (timing problem). */
  flagged: number;
  /** Flagged votes left out because of `excludeFlagged`. */
  excluded: number;
  /** Votes left out because they were unusable (the caller says why in `notes`). */
  skipped: number;
}

/**
 * Reads a vote source once; `accept` returns false for unusable votes (counted as skipped).
 * Flagged votes are counted and, with `excludeFlagged`, not passed on.
 */
export async function consumeVotes<T extends { flagged?: boolean }>(
  source: VoteSource<T>,
  excludeFlagged: boolean,
  accept: (vote: T) => boolean,
): Promise<VoteCounts> {
  const counts: VoteCounts = { read: 0, flagged: 0, excluded: 0, skipped: 0 };
  for await (const vote of source as AsyncIterable<T>) {
    counts.read++;
    if (vote.flagged) {
      counts.flagged++;
      if (excludeFlagged) {
        counts.excluded++;
        continue;
      }
    }
    if (!accept(vote)) counts.skipped++;
  }
  return counts;
}
