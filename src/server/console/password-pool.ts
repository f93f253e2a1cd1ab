import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { Piscina, type TaskQueue } from 'piscina';
import { HttpError } from '../errors.js';

/**
 * Password hashing in its own bounded place (docs/security.md: participants first). Each scrypt check costs about
 * 100 ms of CPU and 32 MiB. Node's asynchronous scrypt runs on libuv's thread pool, the same four threads that run
 * every file operation, the WAL's fdatasync included: a sign-in flood used to queue participants' acknowledgements
 * behind password checks. Here each check runs synchronously on a worker thread of this pool (scryptSync inside a
 * worker blocks only that worker, never libuv's pool), at most `threads` at once for the whole process, with at
 * most `queueLimit` waiting; past that the check is refused at once (503 SIGN_IN_BUSY, Retry-After) rather than
 * queued without end, and so is one that waited `maxWaitMs` for a thread. The threads are piscina's (a bounded pool
 * that replaces a dead worker, and ends idle ones), running password-worker.mjs.
 */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}


/** Seconds a refused check is told to wait (the body's retryAfterSeconds and the Retry-After header). */
export const BUSY_RETRY_SECONDS = 5;
export const signInBusy = () =>
  new HttpError(503, 'SIGN_IN_BUSY', `too many sign-ins are being checked right now: try again in ${BUSY_RETRY_SECONDS} seconds`, { retryAfterSeconds: BUSY_RETRY_SECONDS });

/**
 * Unknown browsers' checks accepted per second per thread, at most: a check costs 25 ms of a core here and 50 to
 * 100 ms on a small cloud core, so this keeps a flood to about half a core per thread or a full one, and refuses the
 * rest at once (503) instead of queueing them for seconds while they take the cores from participants.
 */
export const CHECKS_PER_SECOND_PER_THREAD = 20;

/** A known browser's check is queued before unknown browsers' checks (piscina's queue, ordered by this flag). */
const PRIORITY = Piscina.queueOptionsSymbol;

/** One check as its thread gets it (password-worker.mjs); `late` set by the queue when it waited past its deadline. */
interface Check {
  password: string;
  salt: Uint8Array;
  keyBytes: number;
  cost: ScryptCost;
  deadline: number;
  late?: boolean;
}

type Task = Parameters<TaskQueue['push']>[0];
const isPriority = (task: Task) => ((task as unknown as Record<symbol, { priority?: boolean } | null>)[PRIORITY])?.priority === true;

class PriorityQueue implements TaskQueue {
  private readonly tasks: Task[] = [];
  get size(): number {
    return this.tasks.length;
  }
  push(task: Task): void {
    const first = isPriority(task);
    const firstUnknown = first ? this.tasks.findIndex((waiting) => !isPriority(waiting)) : -1;
    if (firstUnknown >= 0) this.tasks.splice(firstUnknown, 0, task);
    else this.tasks.push(task);
  }
  /** The next check, as a thread takes it: one that waited past its deadline goes out marked late (refused, 503). */
  shift(): Task | null {
    const task = this.tasks.shift() ?? null;
    const check = (task as { task?: Check } | null)?.task;
    if (check && Date.now() > check.deadline) check.late = true;
    return task;
  }
  remove(task: Task): void {
    const at = this.tasks.indexOf(task);
    if (at >= 0) this.tasks.splice(at, 1);
  }
}

/**
 * Threads beyond the first with no check to run are ended after this long (their memory goes back). One is always
 * kept: piscina replaces a dead thread only up to its minimum, so with none a check queued behind a thread that died
 * before it started would wait for the next sign-in.
 */
const IDLE_THREAD_MS = 30_000;

export class PasswordPool {
  /** Arrival times of recent unknown browsers' checks (the rate of CHECKS_PER_SECOND_PER_THREAD is counted over the last second). */
  private readonly recentStarts: number[] = [];
  /** Started at the first check: a process that never checks a password (most CLI commands) starts no thread. */
  private started: Piscina<Check, Uint8Array | null> | null = null;
  /** Checks done since start (benchmarks and tests count them). */
  derived = 0;

  constructor(
    readonly threads = Math.max(1, Math.min(2, availableParallelism() - 1)),
    readonly queueLimit = 64,
    /** A check that waited this long for a thread is refused rather than started (the client gave up, or will). */
    readonly maxWaitMs = 10_000,
  ) {}

  private get pool(): Piscina<Check, Uint8Array | null> {
    this.started ??= new Piscina({ filename: new URL('./password-worker.mjs', import.meta.url).href, minThreads: 1, maxThreads: this.threads, idleTimeout: IDLE_THREAD_MS, taskQueue: new PriorityQueue() });
    return this.started;
  }

  /**
   * scrypt of `password`, on a thread of this pool; rejects with 503 SIGN_IN_BUSY when the queue is full, or when
   * more than the rate of checks arrived in the last second. A `priority` check (a known browser) is queued before
   * the others and passes both bounds: no flood of strangers keeps a researcher's own browser waiting.
   */
  derive(password: string, salt: Uint8Array, keyBytes: number, cost: ScryptCost, priority = false): Promise<Buffer> {
    const now = performance.now();
    while (this.recentStarts.length > 0 && this.recentStarts[0]! < now - 1000) this.recentStarts.shift();
    if (!priority && (this.pool.queueSize >= this.queueLimit || this.recentStarts.length >= CHECKS_PER_SECOND_PER_THREAD * this.threads)) return Promise.reject(signInBusy());
    if (!priority) this.recentStarts.push(now);
    // Too late once it reaches a thread: on a starved server 64 waiting checks could outlast the request timeout.
    const task = { password, salt, keyBytes, cost, deadline: Date.now() + this.maxWaitMs, [PRIORITY]: { priority } };
    return this.run(task, 0);
  }

  /** A check whose thread died (an error, or killed: out of memory) runs once more on a new one, then fails. */
  private async run(task: Check, crashes: number): Promise<Buffer> {
    let key: Uint8Array | null;
    try {
      key = await this.pool.run(task);
    } catch (error) {
      if (crashes === 0) return this.run(task, 1);
      throw new HttpError(503, 'SIGN_IN_BUSY', `the password check failed (${(error as Error).message}): try again`, { retryAfterSeconds: BUSY_RETRY_SECONDS });
    }
    if (key === null) throw signInBusy();
    this.derived++;
    return Buffer.from(key);
  }

  /** Checks waiting for a thread. */
  get waiting(): number {
    return this.started?.queueSize ?? 0;
  }

  async close(): Promise<void> {
    await this.started?.destroy();
    this.started = null;
  }

  /** Tests: the pool's threads now (to kill one mid-check). */
  get workers(): Worker[] {
    return this.started?.threads ?? [];
  }
}
