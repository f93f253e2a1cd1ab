import { Worker } from 'node:worker_threads';
import { VIDEO_LIMITS, type VideoLimits } from './video-tables.js';

/** What the stage's demuxer finds in a video (video-worker.mjs): its primary video track, or null without one. */
export interface VideoTrackFacts {
  codec: string | null;
  codecString: string | null;
  colorSpace: { primaries?: string | null; transfer?: string | null; matrix?: string | null } | null;
  /** Packets listed (counting stops one past the limit) and the bytes they take. */
  packets: number;
  bytes: number;
}

/** `container` / `packets`: the demuxer threw there; `timeout` / `memory`: the read went past a bound and was stopped. */
export type VideoReading = { track: VideoTrackFacts | null } | { failed: 'container' | 'packets' | 'timeout' | 'memory'; message: string };

/**
 * Videos are read one at a time by one worker, kept between reads (a worker and mediabunny take ~100 ms to start);
 * a read past the time or heap bound terminates it (a synchronous loop in the demuxer included), and the next read
 * starts another. The worker does not keep the process alive between reads (a CLI import ends).
 */
let worker: { thread: Worker; heapMb: number } | null = null;
let queue: Promise<unknown> = Promise.resolve();

/** Lists a video's packets as the stage does, within `limits.readTimeoutMs` and `limits.readHeapMb`. */
export function readVideo(path: string, limits: VideoLimits = VIDEO_LIMITS): Promise<VideoReading> {
  const turn = queue.then(() => readInWorker(path, limits));
  queue = turn.catch(() => undefined);
  return turn;
}

function readInWorker(path: string, limits: VideoLimits): Promise<VideoReading> {
  if (worker && worker.heapMb !== limits.readHeapMb) stop(worker.thread);
  const thread = (worker ??= { thread: startWorker(limits.readHeapMb), heapMb: limits.readHeapMb }).thread;
  return new Promise((resolve) => {
    const done = (reading: VideoReading, end: boolean) => {
      clearTimeout(timer);
      thread.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (end) stop(thread);
      resolve(reading);
    };
    const onMessage = (reading: VideoReading) => done(reading, false);
    const onError = (error: Error & { code?: string }) =>
      done(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? { failed: 'memory', message: `more than ${limits.readHeapMb} MiB` } : { failed: 'container', message: error.message }, true);
    const onExit = () => done({ failed: 'container', message: 'the reader stopped' }, true);
    // The timer also keeps the process alive while the (unreferenced) worker reads.
    const timer = setTimeout(() => done({ failed: 'timeout', message: `more than ${limits.readTimeoutMs / 1000} s` }, true), limits.readTimeoutMs);
    thread.on('message', onMessage).on('error', onError).on('exit', onExit);
    thread.postMessage({ path, maxPackets: limits.maxFrames });
  });
}

function startWorker(heapMb: number): Worker {
  const thread = new Worker(new URL('./video-worker.mjs', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: heapMb } });
  thread.unref();
  // Between reads nobody listens: an idle worker's end only means the next read starts another.
  thread.on('error', () => undefined).on('exit', () => {
    if (worker?.thread === thread) worker = null;
  });
  return thread;
}

function stop(thread: Worker): void {
  if (worker?.thread === thread) worker = null;
  void thread.terminate();
}
