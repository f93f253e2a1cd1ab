import { availableParallelism } from 'node:os';
import type { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { errorCodes } from 'fastify';
import { BubbleScreeningBody, RatingBody, SessionLogsBody } from '../../contract/payloads.js';
import { ajvErrorDetails, HttpError } from '../errors.js';
import { badTextPath, type BodyReading, createBodyReader } from './body-reader.mjs';

export { badTextPath };

/**
 * Large JSON bodies (bubble mouse logs up to 16 MiB, session logs up to 8 MiB) are parsed and validated in worker
 * threads: JSON.parse of 12 MB takes 100-200 ms on a small server, and a body full of wrongly typed samples used to
 * take seconds in the validator; either would stall every other request on the event loop. The event loop hands
 * each chunk of the body to the worker as it arrives (never joining megabytes itself: a 7.5 MB Buffer.concat took
 * 20-30 ms of loop under load); a worker answers with the small fields and the large part already serialised for
 * storage, as UTF-8 bytes whose buffer is transferred (a 7.5 MB string sent back took as long again to copy in).
 * Validation fails fast (the first error refuses the body).
 */

/** rating: a rating body over SMALL_BODY_BYTES (its fields come back as `fields`, its camera `views` as JSON text). */
export type LargeBodyKind = 'screening' | 'logs' | 'rating';

/**
 * Bodies up to this size are parsed on the event loop (a few milliseconds at worst, however they are built), larger
 * ones in the workers: 473 KB of 45,000 unknown keys took 80-140 ms of loop to parse. A rating over it goes to the
 * workers; a session log or mouse log goes to them unless its Content-Length announces at most this size.
 * bench/api/inline-body.ts times the worst shapes of this size read on the loop (docs/security.md).
 */
export const SMALL_BODY_BYTES = 16 * 1024;

export interface ParsedLargeBody {
  /** The body's small fields (ids, token, screening_no...). */
  fields: Record<string, unknown>;
  /** The large part as JSON text in UTF-8: the screening's mouse_logs, the session logs without their token, or a
   * rating's views (empty when the rating has none). */
  largeJson: Buffer;
}

type WorkerAnswer = BodyReading & { id: number };

const BODY_KINDS = {
  schemas: { screening: BubbleScreeningBody, logs: SessionLogsBody, rating: RatingBody },
  keep: { screening: ['stimuli_id', 'session_id', 'session_token', 'screening_no', 'logs', 'timing'], logs: ['sessionToken'], rating: Object.keys(RatingBody.properties).filter((key) => key !== 'views') },
  largeField: { screening: 'mouse_logs', logs: null, rating: 'views' },
};

/**
 * A worker with no body to read for this long is ended: the memory a flood of large bodies left in its heap goes
 * back to the system (200 slow senders left the server 120 MB above idle with the workers kept), and the next body
 * starts a new one (about 50 ms, once).
 */
export const IDLE_WORKER_MS = 10_000;

export class JsonWorkerPool {
  private readonly workers: Worker[] = [];
  private readonly idleTimers = new Map<Worker, ReturnType<typeof setTimeout>>();
  private readonly pending = new Map<number, { worker: Worker; resolve(answer: WorkerAnswer): void; reject(error: Error): void }>();
  private nextId = 1;
  private turn = 0;
  /** The event loop's own reader, for small bodies (its validators compiled by `warm`: at start, or on first use). */
  private readInline: ((kind: LargeBodyKind, bytes: Buffer) => BodyReading) | undefined;

  constructor(
    private readonly size = Math.max(1, Math.min(2, availableParallelism() - 1)),
    private readonly idleMs = IDLE_WORKER_MS,
  ) {}

  private worker(): Worker {
    if (this.workers.length < this.size) {
      // TypeBox schemas are plain JSON Schema objects (their symbol tags do not cross threads, and ajv needs none).
      const worker = new Worker(new URL('./json-worker.mjs', import.meta.url), { workerData: JSON.parse(JSON.stringify(BODY_KINDS)) });
      worker.on('message', (answer: WorkerAnswer) => {
        this.pending.get(answer.id)?.resolve(answer);
        this.pending.delete(answer.id);
        this.retireWhenIdle(worker);
      });
      worker.on('error', (error) => this.failWorker(worker, error));
      worker.on('exit', (code) => this.failWorker(worker, new Error(`JSON worker exited with code ${code}`)));
      worker.unref();
      this.workers.push(worker);
      return worker;
    }
    return this.workers[this.turn++ % this.workers.length]!;
  }

  /**
   * A worker that failed (or was killed) fails the bodies it held, and only those (as 503: the client sends them
   * again); the next body starts a new worker.
   */
  private failWorker(worker: Worker, error: Error): void {
    const at = this.workers.indexOf(worker);
    if (at < 0) return;
    this.workers.splice(at, 1);
    clearTimeout(this.idleTimers.get(worker));
    this.idleTimers.delete(worker);
    void worker.terminate();
    const failure = new HttpError(503, 'BODY_READER_FAILED', `the server could not read this body (${error.message}); nothing was stored: send it again`, { retryAfterSeconds: 1 });
    for (const [id, body] of this.pending) {
      if (body.worker !== worker) continue;
      this.pending.delete(id);
      body.reject(failure);
    }
  }

  /** Ends `worker` once it has held no body for `idleMs` (IDLE_WORKER_MS). */
  private retireWhenIdle(worker: Worker): void {
    if ([...this.pending.values()].some((body) => body.worker === worker)) return;
    clearTimeout(this.idleTimers.get(worker));
    const timer = setTimeout(() => {
      this.idleTimers.delete(worker);
      const at = this.workers.indexOf(worker);
      if (at < 0 || [...this.pending.values()].some((body) => body.worker === worker)) return;
      this.workers.splice(at, 1);
      void worker.terminate();
    }, this.idleMs);
    timer.unref();
    this.idleTimers.set(worker, timer);
  }

  /** Tests: the worker threads reading bodies now. */
  get threads(): readonly Worker[] {
    return this.workers;
  }

  /**
   * Reads a request body chunk by chunk into a worker, then parses and validates it there. Fastify's own checks
   * for a body it reads: 413 past `limit` (from Content-Length at once, or when the bytes pass it), 400 when the
   * bytes received differ from Content-Length or the stream fails.
   */
  async receive(kind: LargeBodyKind, payload: Readable, limit: number, contentLength: number): Promise<ParsedLargeBody> {
    if (contentLength > limit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
    if (contentLength <= SMALL_BODY_BYTES) return this.receiveInline(kind, payload, contentLength);
    const { id, worker, answer } = this.start();
    let received = 0;
    try {
      for await (const chunk of payload as AsyncIterable<Buffer>) {
        received += chunk.length;
        if (received > limit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
        // Cloned into the message, not copied into a new buffer to transfer: megabytes a second of fresh buffers
        // on this thread made the collector pause it (most of the event loop's stalls under 20 uploads).
        worker.postMessage({ id, kind, chunk });
      }
      if (!Number.isNaN(contentLength) && received !== contentLength) throw new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH();
    } catch (error) {
      this.pending.delete(id);
      worker.postMessage({ id, abort: true });
      this.retireWhenIdle(worker);
      if (typeof (error as { statusCode?: unknown }).statusCode !== 'number') Object.assign(error as object, { statusCode: 400 });
      throw error;
    }
    worker.postMessage({ id, kind, end: true });
    return outcomeOf(await answer);
  }

  /**
   * A body that announced at most SMALL_BODY_BYTES is read on the event loop: the same reader as the workers', with
   * the same answers. Handing it to a worker costs more than reading it, and the workers, which yield the CPU to the
   * event loop, made small session logs wait for seconds on a saturated machine (bench:launch, docs/benchmarks.md).
   */
  private async receiveInline(kind: LargeBodyKind, payload: Readable, contentLength: number): Promise<ParsedLargeBody> {
    const chunks: Buffer[] = [];
    let received = 0;
    try {
      for await (const chunk of payload as AsyncIterable<Buffer>) {
        received += chunk.length;
        // Content-Length is the announcement the choice was made on: more bytes than it said are a bad request.
        if (received > contentLength) throw new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH();
        chunks.push(chunk);
      }
      if (received !== contentLength) throw new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH();
    } catch (error) {
      if (typeof (error as { statusCode?: unknown }).statusCode !== 'number') Object.assign(error as object, { statusCode: 400 });
      throw error;
    }
    return outcomeOf(this.warm()(kind, Buffer.concat(chunks, received)));
  }

  /** The event loop's reader of small bodies, its validators compiled (start.ts calls it before listening). */
  warm(): (kind: LargeBodyKind, bytes: Buffer) => BodyReading {
    return (this.readInline ??= createBodyReader(BODY_KINDS, Object.keys(BODY_KINDS.schemas)));
  }

  /** A new body's id, the worker that takes all of its messages, and its answer to come. */
  private start(): { id: number; worker: Worker; answer: Promise<WorkerAnswer> } {
    const id = this.nextId++;
    const worker = this.worker();
    clearTimeout(this.idleTimers.get(worker));
    this.idleTimers.delete(worker);
    const answer = new Promise<WorkerAnswer>((resolve, reject) => this.pending.set(id, { worker, resolve, reject }));
    // Awaited once the body is sent; a worker that dies meanwhile must not leave it an unhandled rejection.
    answer.catch(() => undefined);
    return { id, worker, answer };
  }

  async close(): Promise<void> {
    for (const timer of this.idleTimers.values()) clearTimeout(timer);
    this.idleTimers.clear();
    const workers = this.workers.splice(0);
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** The worker's answer, or the same 400 answers as the other routes' validation. */
function outcomeOf(answer: BodyReading): ParsedLargeBody {
  switch (answer.outcome) {
    case 'ok':
      return { fields: answer.fields, largeJson: Buffer.from(answer.largeJson.buffer, answer.largeJson.byteOffset, answer.largeJson.byteLength) };
    case 'json':
      throw new HttpError(400, 'BAD_REQUEST', `body is not valid JSON: ${answer.message}`);
    case 'text':
      throw badText(answer.path);
    case 'invalid': {
      const details = ajvErrorDetails(answer.errors, 'body');
      throw new HttpError(400, 'VALIDATION', `invalid body: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`, { details });
    }
  }
}

/** A small JSON body parsed on the event loop: 400 for JSON that does not parse or text that cannot be stored. */
export function parseSmallJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, 'BAD_REQUEST', `body is not valid JSON: ${(error as Error).message}`);
  }
  const bad = badTextPath(value, 'body');
  if (bad) throw badText(bad);
  return value;
}

/** NUL and lone surrogates cannot be stored as text (PostgreSQL refuses NUL; neither is a character). */
export const badText = (path: string) =>
  new HttpError(400, 'BAD_TEXT', `${path} holds a NUL character or a lone surrogate, which cannot be stored as text`, { details: [{ path, message: 'NUL or lone surrogate' }] });
