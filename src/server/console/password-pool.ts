import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { HttpError } from '../errors.js';

/**
 * Password hashing in its own bounded place (README "Security": participants first). Each scrypt check costs about
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

export class PasswordPool {
  private readonly idle: Worker[] = [];
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

  /** scrypt of `password`, on a thread of this pool; rejects with 503 SIGN_IN_BUSY when the queue is full. */
  derive(password: string, salt: Uint8Array, keyBytes: number, cost: ScryptCost): Promise<Buffer> {
    if (this.queue.length >= this.queueLimit) return Promise.reject(signInBusy());
    return new Promise<Buffer>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, password, salt, keyBytes, cost, queuedAt: performance.now(), resolve, reject });
      this.pump();
    });
  }

  /** Checks waiting for a thread. */
  get waiting(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(signInBusy());
    await Promise.all(this.started.splice(0).map((w) => w.terminate()));
    this.idle.length = 0;
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
    worker.on('error', (error) => {
      const job = this.running.get(worker);
      this.running.delete(worker);
      this.started.splice(this.started.indexOf(worker), 1);
      job?.reject(error);
      this.pump();
    });
    worker.unref();
    this.started.push(worker);
    return worker;
  }
}
