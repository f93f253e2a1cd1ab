import { Worker } from 'node:worker_threads';
import type { StudyFile } from '../../contract/study.js';
import { PROTOCOLS, protocolOf } from '../../protocols/registry.js';
import type { CheckedModel } from './gltf-check.js';
import { StudyValidationError, type LoadedStudy } from './validate.js';

/** Items per piece: a piece of 1,000 stimuli takes about 1 ms to receive. */
const PIECE_ITEMS = 1_000;

type Message =
  | { id: string | null }
  | { refused: { file: string; problems: StudyValidationError['problems']; total: number; checkedAll: boolean } }
  | { error: string }
  | { root: unknown }
  | { path: Array<string | number>; items: unknown[] }
  | { done: true };

interface LoadedInWorker {
  file: string;
  study: StudyFile;
  protocol: string;
  mediaRoot: string;
  models: Array<[string, CheckedModel]>;
}

export interface StudyLoading {
  /** The study's id once the file is parsed (null: it has none, or the file is not JSON; the loading says why). */
  id: Promise<string | null>;
  /** The study loaded and checked, as loadStudy gives it; rejects with StudyValidationError as it does. */
  loaded: Promise<LoadedStudy>;
  /** Stops the worker (the uploader may not import it). */
  cancel(): void;
  /** Messages the loaded study came in so far, each received in its own turn of the loop. */
  readonly pieces: number;
}

/**
 * loadStudy (validate.ts: JSON.parse, the schema, every stimulus and media file) in a worker thread, for a study
 * the running server imports (a console upload): a study.json may be hundreds of MB, and parsing and checking
 * 300,000 stimuli took about a second of the event loop (105 ms at once for the parse). The study comes back in
 * pieces of PIECE_ITEMS array items, each received in its own turn of the loop. The worker checks with the
 * built-in protocol table (PROTOCOLS).
 */
export function loadStudyOffLoop(file: string): StudyLoading {
  const worker = new Worker(new URL('./study-worker.mjs', import.meta.url), { workerData: { file, pieceItems: PIECE_ITEMS } });
  let settleId: (id: string | null) => void = () => undefined;
  let pieces = 0;
  const id = new Promise<string | null>((resolve) => (settleId = resolve));
  const loaded = new Promise<LoadedStudy>((resolve, reject) => {
    const box: { value?: unknown } = {};
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      settleId(null);
      fn();
      void worker.terminate();
    };
    worker.on('message', (message: Message) => {
      if ('id' in message) {
        settleId(message.id);
        // The checked study is asked for now: the worker sends it once its checks are done.
        worker.postMessage('next');
        return;
      }
      if ('refused' in message) {
        const { file: refusedFile, problems, total, checkedAll } = message.refused;
        return settle(() => reject(new StudyValidationError(refusedFile, problems, total, checkedAll)));
      }
      if ('error' in message) return settle(() => reject(new Error(message.error)));
      if ('done' in message) return settle(() => resolve(loadedStudyOf(box.value as LoadedInWorker)));
      pieces++;
      if ('root' in message) box.value = message.root;
      else {
        let holder = box as Record<string | number, unknown>;
        for (const key of message.path.slice(0, -1)) holder = holder[key] as Record<string | number, unknown>;
        (holder[message.path.at(-1)!] as unknown[]).push(...message.items);
      }
      // The next piece is asked for in a later turn: participants' requests waiting now go first.
      setImmediate(() => worker.postMessage('next'));
    });
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', () => settle(() => reject(new Error('the study reader stopped'))));
  });
  loaded.catch(() => undefined);
  return {
    id,
    loaded,
    cancel: () => void worker.terminate(),
    get pieces() {
      return pieces;
    },
  };
}

function loadedStudyOf(value: LoadedInWorker): LoadedStudy {
  return { file: value.file, study: value.study, protocol: protocolOf(value.protocol, PROTOCOLS)!, mediaRoot: value.mediaRoot, models: new Map(value.models) };
}
