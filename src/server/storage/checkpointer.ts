import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints on a worker thread. SQLite's automatic checkpoint runs inside a COMMIT on the connection that
 * crosses the threshold, i.e. on the server's event loop, copying megabytes and fsyncing the database file while
 * every request waits. The server connection turns it off (wal_autocheckpoint=0) and this thread checkpoints
 * with its own connection instead (PASSIVE: never blocks the writer), often enough to keep the WAL small.
 * Plain JS evaluated in the worker, so it runs the same under tsx, vitest and node.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
const reported = new Set();
const timer = setInterval(() => {
  try {
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
    // Under steady writes a PASSIVE checkpoint never catches up, so the WAL never restarts and keeps growing:
    // past the limit, RESTART waits for the writer's current transaction and resets the WAL.
    if (log > workerData.maxWalFrames) db.pragma('wal_checkpoint(RESTART)');
  } catch (error) {
    // Busy: next time. Anything else (an I/O error) is said once: a failed checkpoint leaves the WAL untouched
    // (SQLite resets it only after a complete, synced checkpoint), so nothing acknowledged is lost, but the WAL grows.
    if (!/^SQLITE_(BUSY|LOCKED)/.test(error.code) && !reported.has(error.code)) {
      reported.add(error.code);
      console.error('WAL checkpoint failed (' + error.code + '): ' + error.message + '; retrying every ' + workerData.intervalMs + ' ms');
    }
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  try { db.pragma('wal_checkpoint(TRUNCATE)'); } catch { /* the next open checkpoints */ }
  db.close();
  parentPort.postMessage('closed');
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/** `onFailure` runs if the thread dies (the caller then turns automatic checkpoints back on). */
export function startCheckpointer(file: string, onFailure: (error: Error) => void, intervalMs = 100, maxWalFrames = 16384): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, intervalMs, maxWalFrames } });
  worker.on('error', onFailure);
  worker.unref();
  return {
    async stop() {
      const closed = new Promise<void>((resolve) => {
        worker.once('message', () => resolve());
        worker.once('exit', () => resolve());
      });
      worker.postMessage('stop');
      await closed;
      await worker.terminate();
    },
  };
}
