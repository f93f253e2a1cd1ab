import { Worker } from 'node:worker_threads';

/** Items per piece: a piece of 1,000 stimuli takes about 1 ms to receive. */
const PIECE_ITEMS = 1_000;

type Piece = { error: string } | { root: unknown } | { path: Array<string | number>; items: unknown[] } | { done: true };

/**
 * JSON.parse of a file, done in a worker thread, for files a server reads while participants are being answered (a
 * console upload's study.json: 300,000 stimuli took about 105 ms of the event loop, and a study.json may be
 * hundreds of MB). The value comes back in pieces of PIECE_ITEMS array items, each received in its own turn of the
 * loop. A file that is not JSON rejects with JSON.parse's message.
 */
export function parseJsonOffLoop(file: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./json-worker.mjs', import.meta.url), { workerData: { file, pieceItems: PIECE_ITEMS } });
    const box: { value?: unknown } = {};
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
      void worker.terminate();
    };
    worker.on('message', (piece: Piece) => {
      if ('error' in piece) return settle(() => reject(new Error(piece.error)));
      if ('done' in piece) return settle(() => resolve(box.value));
      if ('root' in piece) box.value = piece.root;
      else {
        let holder = box as Record<string | number, unknown>;
        for (const key of piece.path.slice(0, -1)) holder = holder[key] as Record<string | number, unknown>;
        (holder[piece.path.at(-1)!] as unknown[]).push(...piece.items);
      }
      // The next piece is asked for in a later turn: participants' requests waiting now go first.
      setImmediate(() => worker.postMessage('next'));
    });
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', () => settle(() => reject(new Error('the JSON reader stopped'))));
    worker.postMessage('next');
  });
}
