import { createStore, del, entries, set, type UseStore } from 'idb-keyval';
import type { BubbleScreeningBody, RatingBody } from '../../contract/payloads.js';

/**
 * The answer outbox (docs/data-safety.md "Participant continuity"): every answer is written to IndexedDB before it is
 * posted and removed only once the server acknowledges it, so closing the tab while a post retries loses nothing. The
 * next load of any Glimpse page, and the browser coming back online, send what is left with the original
 * Idempotency-Keys. Where IndexedDB is unavailable (blocked, Node tests) the outbox lives in memory for the page.
 */

export interface OutboxEntry {
  /** The answer's Idempotency-Key. */
  key: string;
  kind: 'rating' | 'screening';
  body: RatingBody | BubbleScreeningBody;
  /** Date.now() when first queued. */
  queuedAt: number;
}

export interface Outbox {
  put(entry: OutboxEntry): Promise<void>;
  remove(key: string): Promise<void>;
  /** Every entry, oldest first. */
  entries(): Promise<OutboxEntry[]>;
}

export function memoryOutbox(): Outbox {
  const items = new Map<string, OutboxEntry>();
  return {
    put: async (entry) => void items.set(entry.key, entry),
    remove: async (key) => void items.delete(key),
    entries: async () => [...items.values()].sort((a, b) => a.queuedAt - b.queuedAt),
  };
}

function indexedDbOutbox(store: UseStore): Outbox {
  return {
    put: (entry) => set(entry.key, entry, store),
    remove: (key) => del(key, store),
    entries: async () => (await entries<string, OutboxEntry>(store)).map(([, entry]) => entry).sort((a, b) => a.queuedAt - b.queuedAt),
  };
}

/**
 * The page's outbox: IndexedDB when the browser has it, falling back to memory (with a console line) when it
 * refuses (private modes, quota): an answer is then still posted and retried, only not kept across a reload.
 */
export function openOutbox(win: { indexedDB?: IDBFactory } = globalThis as { indexedDB?: IDBFactory }): Outbox {
  if (!win.indexedDB) return memoryOutbox();
  const durable = indexedDbOutbox(createStore('glimpse-outbox', 'answers'));
  const fallback = memoryOutbox();
  let broken = false;
  const guard = async <T>(run: (outbox: Outbox) => Promise<T>): Promise<T> => {
    if (!broken) {
      try {
        return await run(durable);
      } catch (error) {
        broken = true;
        console.log('IndexedDB refused the answer outbox; keeping answers in memory for this page', error);
      }
    }
    return run(fallback);
  };
  return { put: (e) => guard((o) => o.put(e)), remove: (k) => guard((o) => o.remove(k)), entries: () => guard((o) => o.entries()) };
}
