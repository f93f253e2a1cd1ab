import { HttpError } from '../errors.js';

/**
 * The live statistics streams (server-sent events) of a node: one computation per job per interval, shared by every
 * stream watching that job, and a cap on streams per account and in all, so that no one can make the node compute
 * statistics in a loop. At every interval, and before any event, a stream asks `stillAllowed` (its session and role
 * are checked again), and ends when the answer is no.
 */

export interface LiveStreamLimits {
  /** Open streams per console account on this node. */
  perUser: number;
  /** Open streams on this node. */
  total: number;
}

const HEARTBEAT = '';

export const DEFAULT_LIVE_STREAM_LIMITS: LiveStreamLimits = { perUser: 5, total: 100 };

export interface LiveStream {
  userId: number;
  /** Writes an event's text to the client. */
  write(text: string): void;
  /** Checked before every event: false ends the stream (signed out, session expired, role removed). */
  stillAllowed(): Promise<boolean>;
  /** Closes the client's connection. */
  end(): void;
}

interface Watched {
  streams: Set<LiveStream>;
  timer: NodeJS.Timeout;
  /** The last statistics sent, as JSON (null before the first computation). */
  last: string | null;
  ticks: number;
  running: boolean;
}

export class LiveStatsHub {
  private readonly jobs = new Map<string, Watched>();
  private readonly perUser = new Map<number, number>();
  private open = 0;
  /** Statistics computed since start (the tests count them). */
  computations = 0;

  constructor(
    /** The job's statistics as JSON, or null when the job is gone. */
    private readonly compute: (jobId: string) => Promise<string | null>,
    private readonly intervalMs: number,
    private readonly limits: LiveStreamLimits,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Adds a stream to its job's watchers (429 past a cap); returns the function that removes it. */
  watch(jobId: string, stream: LiveStream): () => void {
    const mine = this.perUser.get(stream.userId) ?? 0;
    if (mine >= this.limits.perUser) throw new HttpError(429, 'TOO_MANY_STREAMS', `an account may watch at most ${this.limits.perUser} live pages at once: close one and try again`);
    if (this.open >= this.limits.total) throw new HttpError(429, 'TOO_MANY_STREAMS', `this server serves at most ${this.limits.total} live pages at once: try again in a moment`);
    this.perUser.set(stream.userId, mine + 1);
    this.open++;
    let watched = this.jobs.get(jobId);
    if (!watched) {
      const created: Watched = { streams: new Set(), timer: setInterval(() => void this.tick(jobId, created), this.intervalMs), last: null, ticks: 0, running: false };
      this.jobs.set(jobId, (watched = created));
      void this.tick(jobId, created);
    } else if (watched.last !== null) {
      // A newcomer gets the statistics already computed at once.
      void this.send(stream, watched.last, () => this.remove(jobId, stream));
    }
    watched.streams.add(stream);
    let removed = false;
    return () => {
      if (!removed) (removed = true), this.remove(jobId, stream);
    };
  }

  get openStreams(): number {
    return this.open;
  }

  close(): void {
    for (const [jobId, watched] of this.jobs) for (const stream of [...watched.streams]) (this.remove(jobId, stream), stream.end());
  }

  private remove(jobId: string, stream: LiveStream): void {
    const watched = this.jobs.get(jobId);
    if (!watched?.streams.delete(stream)) return;
    this.open--;
    const mine = (this.perUser.get(stream.userId) ?? 1) - 1;
    if (mine > 0) this.perUser.set(stream.userId, mine);
    else this.perUser.delete(stream.userId);
    if (watched.streams.size === 0) {
      clearInterval(watched.timer);
      this.jobs.delete(jobId);
    }
  }

  private async tick(jobId: string, watched: Watched): Promise<void> {
    // One computation at a time per job: a slow database skips an interval rather than piling them up.
    if (watched.running) return;
    watched.running = true;
    try {
      this.computations++;
      const text = await this.compute(jobId);
      if (text === null) {
        for (const stream of [...watched.streams]) (this.remove(jobId, stream), stream.end());
        return;
      }
      const changed = text !== watched.last;
      watched.last = text;
      const heartbeat = !changed && ++watched.ticks % 8 === 0;
      // Every stream is checked at every interval, event or not: a signed-out page stops within one interval.
      await Promise.all([...watched.streams].map((stream) => this.send(stream, changed ? text : heartbeat ? HEARTBEAT : null, () => this.remove(jobId, stream))));
    } catch (error) {
      this.onError(error);
    } finally {
      watched.running = false;
    }
  }

  /** The stream's own check, then one event: the statistics, a heartbeat comment, or nothing (null). */
  private async send(stream: LiveStream, stats: string | null, remove: () => void): Promise<void> {
    if (!(await stream.stillAllowed().catch(() => false))) {
      remove();
      // Tells the page why (sign-out, expiry, a removed account or role), then closes.
      stream.write('event: ended\ndata: {"reason":"SIGN_IN_REQUIRED"}\n\n');
      stream.end();
      return;
    }
    if (stats === HEARTBEAT) stream.write(': still here\n\n');
    else if (stats !== null) stream.write(`event: stats\ndata: ${stats}\n\n`);
  }
}
