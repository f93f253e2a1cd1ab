import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { HttpError } from '../errors.js';

/**
 * Password hashing in its own bounded place (docs/security.md: participants first). Each scrypt check costs about
 * 100 ms of CPU and 32 MiB. Node's asynchronous scrypt runs on libuv's thread pool, the same four threads that run
 * every file operation, the WAL's fdatasync included: a sign-in flood used to queue participants' acknowledgements
 * behind password checks. Here each check runs synchronously on a worker thread of this pool (scryptSync inside a
 * worker blocks only that worker, never libuv's pool), at most `threads` at once for the whole process, with at
 * most `queueLimit` waiting; past that the check is refused at once (503 SIGN_IN_BUSY, Retry-After) rather than
 * queued without end, and so is one that waited `maxWaitMs` for a thread. Plain JS evaluated in the worker, so it runs the same under tsx, vitest and node.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
// Yields the CPU to the event loop, like the JSON workers (json-worker.mjs): where a check and a participant's
// request share a core, the request goes first. Linux only; elsewhere the default priority.
try {
  require('node:os').setPriority(Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()), 10);
} catch {}
parentPort.on('message', ({ id, password, salt, keyBytes, cost }) => {
  try {
    const key = scryptSync(password, Buffer.from(salt), keyBytes, { ...cost, maxmem: 256 * cost.N * cost.r });
    parentPort.postMessage({ id, key });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message) });
  }
});
`;

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

interface Job {
  id: number;
  /** A known browser's sign-in (or the CLI's): checked before the unknown ones waiting. */
  priority: boolean;
  /** Times a worker died under this job (it is retried once on a new one). */
  crashes: number;
  password: string;
  salt: Uint8Array;
  keyBytes: number;
  cost: ScryptCost;
  queuedAt: number;
  resolve(key: Buffer): void;
  reject(error: Error): void;
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

export class PasswordPool {
  private readonly idle: Worker[] = [];
  /** Arrival times of recent unknown browsers' checks (the rate of CHECKS_PER_SECOND_PER_THREAD is counted over the last second). */
  private readonly recentStarts: number[] = [];
  private readonly started: Worker[] = [];
  private readonly queue: Job[] = [];
  private readonly running = new Map<Worker, Job>();
  private nextId = 1;
  /** Checks done since start (benchmarks and tests count them). */
  derived = 0;

  constructor(
    readonly threads = Math.max(1, Math.min(2, availableParallelism() - 1)),
    readonly queueLimit = 64,
    /** A check that waited this long for a thread is refused rather than started (the client gave up, or will). */
    readonly maxWaitMs = 10_000,
  ) {}

  /**
   * scrypt of `password`, on a thread of this pool; rejects with 503 SIGN_IN_BUSY when the queue is full, or when
   * more than the rate of checks arrived in the last second. A `priority` check (a known browser) is queued before
   * the others and passes both bounds: no flood of strangers keeps a researcher's own browser waiting.
   */
  derive(password: string, salt: Uint8Array, keyBytes: number, cost: ScryptCost, priority = false): Promise<Buffer> {
    const now = performance.now();
    while (this.recentStarts.length > 0 && this.recentStarts[0]! < now - 1000) this.recentStarts.shift();
    if (!priority && (this.queue.length >= this.queueLimit || this.recentStarts.length >= CHECKS_PER_SECOND_PER_THREAD * this.threads)) return Promise.reject(signInBusy());
    if (!priority) this.recentStarts.push(now);
    return new Promise<Buffer>((resolve, reject) => {
      const job: Job = { id: this.nextId++, priority, crashes: 0, password, salt, keyBytes, cost, queuedAt: now, resolve, reject };
      const firstUnknown = priority ? this.queue.findIndex((waiting) => !waiting.priority) : -1;
      if (firstUnknown >= 0) this.queue.splice(firstUnknown, 0, job);
      else this.queue.push(job);
      this.pump();
    });
  }

  /** Checks waiting for a thread. */
  get waiting(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(signInBusy());
    const workers = this.started.splice(0);
    this.idle.length = 0;
    await Promise.all(workers.map((w) => w.terminate()));
  }

  /** Tests: the threads that are working now (to kill one mid-check). */
  get busyWorkers(): Worker[] {
    return [...this.running.keys()];
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.started.length < this.threads ? this.startWorker() : null);
      if (!worker) return;
      const job = this.queue.shift()!;
      if (performance.now() - job.queuedAt > this.maxWaitMs) {
        // Too late: on a starved server 64 waiting checks could outlast the request timeout (the socket is cut).
        job.reject(signInBusy());
        this.idle.push(worker);
        continue;
      }
      this.running.set(worker, job);
      // Held while it works (a CLI process must not exit under it), released when idle (nor stay alive for it).
      worker.ref();
      worker.postMessage({ id: job.id, password: job.password, salt: job.salt, keyBytes: job.keyBytes, cost: job.cost });
    }
  }

  private startWorker(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.on('message', (answer: { id: number; key?: Uint8Array; error?: string }) => {
      const job = this.running.get(worker);
      this.running.delete(worker);
      worker.unref();
      this.idle.push(worker);
      this.derived++;
      if (job) answer.key ? job.resolve(Buffer.from(answer.key)) : job.reject(new Error(`scrypt failed: ${answer.error}`));
      this.pump();
    });
    // A worker that dies (an error, or killed: out of memory) is forgotten, idle or not, so no check is ever posted
    // to it; its job runs again once on a new worker, then fails.
    const died = (error: Error) => {
      if (!this.started.includes(worker)) return;
      const job = this.running.get(worker);
      this.running.delete(worker);
      this.started.splice(this.started.indexOf(worker), 1);
      const idleAt = this.idle.indexOf(worker);
      if (idleAt >= 0) this.idle.splice(idleAt, 1);
      if (job && job.crashes++ === 0) this.queue.unshift(job);
      else job?.reject(new HttpError(503, 'SIGN_IN_BUSY', `the password check failed (${error.message}): try again`, { retryAfterSeconds: BUSY_RETRY_SECONDS }));
      this.pump();
    };
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`password worker exited with code ${code}`)));
    worker.unref();
    this.started.push(worker);
    return worker;
  }
}
