import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { storageUnavailable, type HttpError } from '../errors.js';

/**
 * The file operations WalSync performs, each on the WAL's own sync thread (never blocking the event loop).
 * Tests replace some of them to delay or fail a sync (the disk itself cannot be made to fail on demand).
 */
export interface WalFileOps {
  /** Opens the WAL file read-only and returns its descriptor. */
  open(path: string): Promise<number>;
  /** Flushes the file's data (and the size needed to read it back) to stable storage. */
  datasync(fd: number): Promise<void>;
  /** Makes the directory entries of the folder durable (the WAL's and the database file's names). */
  syncDirectory(path: string): Promise<void>;
  close(fd: number): Promise<void>;
}

/**
 * The thread that runs them: its own, not libuv's pool. libuv's four threads also run every other file operation
 * and (before they moved to console/password-pool.ts) the sign-ins' scrypt: 600 sign-ins queued every
 * participant's acknowledgement behind password checks (p50 1.1 s). Nothing else runs on this thread, so a sync
 * waits only for the disk. Plain JS evaluated in the worker (runs the same under tsx, vitest and node); one thread
 * for the process, referenced only while a call is pending.
 */
const SYNC_THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
parentPort.on('message', ({ id, op, arg }) => {
  try {
    let result = null;
    if (op === 'open') result = fs.openSync(arg, 'r');
    else if (op === 'datasync') fs.fdatasyncSync(arg);
    else if (op === 'syncDirectory') { const fd = fs.openSync(arg, 'r'); try { fs.fsyncSync(fd); } finally { fs.closeSync(fd); } }
    else if (op === 'close') fs.closeSync(arg);
    parentPort.postMessage({ id, result });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: error.message, code: error.code } });
  }
});
`;

class SyncThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private nextId = 1;

  call<T>(op: keyof WalFileOps, arg: string | number): Promise<T> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, op, arg });
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(SYNC_THREAD_SOURCE, { eval: true });
    worker.on('message', ({ id, result, error }: { id: number; result: unknown; error?: { message: string; code?: string } }) => {
      const call = this.pending.get(id);
      this.pending.delete(id);
      if (this.pending.size === 0) worker.unref();
      if (error) call?.reject(Object.assign(new Error(error.message), { code: error.code }));
      else call?.resolve(result);
    });
    worker.on('error', (error) => {
      // The thread died: every pending call fails (a failed sync refuses writes, WalSync says so loudly); the next
      // call starts a new thread.
      this.worker = null;
      for (const call of this.pending.values()) call.reject(error);
      this.pending.clear();
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }
}

const syncThread = new SyncThread();

export const realWalFileOps: WalFileOps = {
  open: (path) => syncThread.call<number>('open', path),
  datasync: (fd) => syncThread.call<void>('datasync', fd),
  syncDirectory: (path) => syncThread.call<void>('syncDirectory', path),
  close: (fd) => syncThread.call<void>('close', fd),
};

/**
 * Makes SQLite commits durable without an fsync on the event loop (SQLITE_SYNCHRONOUS=DURABLE, docs/data-safety.md).
 *
 * The connection runs synchronous=NORMAL: a COMMIT appends its frames to the `-wal` file (page cache) and returns.
 * GroupCommit then awaits `afterCommit()`, which resolves once an fdatasync that STARTED after that commit has
 * finished: fdatasync through any descriptor of a file flushes all of that file's dirty pages, so the commit's
 * frames and every earlier commit's are on disk before anything is acknowledged. The sync runs on its own thread
 * (SyncThread above), so the event loop keeps parsing requests meanwhile; one sync at a time: the writes that arrive while one
 * runs are committed together when it ends (GroupCommit) and share the next one.
 *
 * The descriptor is opened once (the WAL exists after the first commit) and kept: checkpoints restart the WAL
 * (rewrite it from the start) or truncate it, always the same file. A descriptor kept open also sees every
 * writeback error of the file from then on (Linux reports it to each open descriptor). SQLite deletes the WAL only
 * when a connection closes while holding the database's EXCLUSIVE lock, i.e. when it is the last one: never while
 * the storage is open (its checkpointer's connection closes last, after this descriptor).
 *
 * Failures: if the WAL cannot be opened, the batch is refused (503) and the next one tries again. If fdatasync
 * fails, the kernel may already have dropped the unwritten pages and would not report it twice ("fsyncgate"), and
 * SQLite's recovery stops at the first missing frame, so no later commit could be trusted either: every write is
 * refused from then on, until the server is restarted on a healthy disk.
 */
export class WalSync {
  private readonly walPath: string;
  private fd: number | null = null;
  /** Commits so far, and how many of them a finished sync covers. */
  private committed = 0;
  private durable = 0;
  private inFlight: Promise<void> | null = null;
  /** Set when a sync failed: every later write is refused. */
  private broken: HttpError | null = null;
  /** After close() no sync starts: the descriptor's number could already belong to another file. */
  private closed = false;

  constructor(
    databaseFile: string,
    private readonly ops: WalFileOps = realWalFileOps,
  ) {
    this.walPath = `${databaseFile}-wal`;
  }

  /** Non-null once writes must be refused (a sync failed). */
  get refusal(): HttpError | null {
    return this.broken;
  }

  /** The sync in progress, if any. */
  get syncing(): Promise<void> | null {
    return this.inFlight;
  }

  /** Call right after a COMMIT returned; resolves when that commit is on disk, rejects if it cannot be made so. */
  async afterCommit(): Promise<void> {
    const commit = ++this.committed;
    while (this.durable < commit) {
      if (this.broken) throw this.broken;
      if (this.closed && !this.inFlight) throw storageUnavailable('the database is closed');
      // A sync already running may have started before this commit: wait for it, then start the next one.
      this.inFlight ??= this.syncAll().finally(() => (this.inFlight = null));
      await this.inFlight;
    }
  }

  /** Waits for a running sync and releases the descriptor. */
  async close(): Promise<void> {
    this.closed = true;
    await this.inFlight?.catch(() => undefined);
    if (this.fd !== null) await this.ops.close(this.fd).catch(() => undefined);
    this.fd = null;
  }

  /** Syncs the WAL; covers every commit made before it started. */
  private async syncAll(): Promise<void> {
    const covers = this.committed;
    const fd = await this.walDescriptor();
    try {
      await this.ops.datasync(fd);
    } catch (error) {
      this.broken = storageUnavailable('the database could not be written to disk; no write is accepted until the server is restarted');
      console.error(`!!! GLIMPSE STORAGE: fdatasync of ${this.walPath} failed (${(error as Error).message}). Writes committed since the last successful sync may be lost; every write is refused from now on. Check the disk, then restart the server.`);
      throw this.broken;
    }
    this.durable = Math.max(this.durable, covers);
  }

  private async walDescriptor(): Promise<number> {
    if (this.fd !== null) return this.fd;
    let fd: number | null = null;
    try {
      fd = await this.ops.open(this.walPath);
      // The WAL's name (and the database file's) must survive a power loss too: sync the folder once per new WAL.
      await this.ops.syncDirectory(dirname(this.walPath));
    } catch (error) {
      if (fd !== null) await this.ops.close(fd).catch(() => undefined);
      console.error(`!!! GLIMPSE STORAGE: cannot open or sync ${this.walPath} (${(error as Error).message}); writes are refused until it can.`);
      throw storageUnavailable('the database could not be written to disk; retry later');
    }
    this.fd = fd;
    return fd;
  }
}
