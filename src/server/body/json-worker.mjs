// Parses and validates large JSON request bodies off the event loop (json-pool.ts explains why). Plain JavaScript:
// it runs in a worker thread of the server process, which may not have a TypeScript loader (tests, production).
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createBodyReader } from './body-reader.mjs';

// This thread yields the CPU to the event loop's: where they share a core (2 cores, 20 logs of 8 MB being
// parsed), a request waits for the scheduler less. Linux only: setpriority() of a thread id (its /proc/thread-self)
// sets that thread's niceness alone; raising it needs no privilege. Elsewhere the thread keeps the default.
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 10);
} catch {
  // not Linux, or no /proc: same priority as the event loop
}

const read = createBodyReader(workerData, Object.keys(workerData.schemas));

/** Bodies being received: their chunks, sent one by one as they arrive (json-pool.ts receive). */
const receiving = new Map();

parentPort.on('message', (message) => {
  const { id } = message;
  if (message.chunk) {
    const body = receiving.get(id) ?? { kind: message.kind, chunks: [] };
    body.chunks.push(Buffer.from(message.chunk.buffer, message.chunk.byteOffset, message.chunk.byteLength));
    receiving.set(id, body);
    return;
  }
  const body = receiving.get(id);
  receiving.delete(id);
  if (message.abort) return;
  const answer = read(message.kind, body ? Buffer.concat(body.chunks) : Buffer.alloc(0));
  // The large part's buffer is transferred (a string of megabytes sent back took as long again to copy in).
  parentPort.postMessage({ id, ...answer }, answer.outcome === 'ok' ? [answer.largeJson.buffer] : []);
});
