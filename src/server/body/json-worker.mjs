// Parses and validates large JSON request bodies off the event loop (json-pool.ts explains why). Plain JavaScript:
// it runs in a worker thread of the server process, which may not have a TypeScript loader (tests, production).
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { Ajv } from 'ajv';
import { summariseLogStates } from './log-summary.mjs';

// This thread yields the CPU to the event loop's: where they share a core (2 cores, 20 logs of 8 MB being
// parsed), a request waits for the scheduler less. Linux only: setpriority() of a thread id (its /proc/thread-self)
// sets that thread's niceness alone; raising it needs no privilege. Elsewhere the thread keeps the default.
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 10);
} catch {
  // not Linux, or no /proc: same priority as the event loop
}

// Fail fast: the first error is enough to refuse, and a junk body must not cost one error object per sample.
const ajv = new Ajv({ allErrors: false, strict: false, verbose: true, coerceTypes: false, removeAdditional: false, useDefaults: false });
const validators = Object.fromEntries(Object.entries(workerData.schemas).map(([kind, schema]) => [kind, ajv.compile(schema)]));

/** NUL, or a surrogate without its pair (the same test as json-pool.ts's). */
const UNSTORABLE_TEXT = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The path of the first string holding NUL or a lone surrogate (neither can be stored as text), or null. */
function badText(value, path) {
  if (typeof value === 'string') return UNSTORABLE_TEXT.test(value) ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = typeof value[i] === 'number' ? null : badText(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const found = badText(key, `${path}[key]`) ?? badText(value[key], `${path}.${key}`);
      if (found) return found;
    }
  }
  return null;
}

const encoder = new TextEncoder();

/** Bodies being received: their chunks, sent one by one as they arrive (json-pool.ts BodyStream). */
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
  answer(id, message.kind, body ? Buffer.concat(body.chunks) : Buffer.alloc(0));
});

function answer(id, kind, bytes) {
  let value;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return parentPort.postMessage({ id, outcome: 'json', message: error.message });
  }
  const text = badText(value, 'body');
  if (text) return parentPort.postMessage({ id, outcome: 'text', path: text });
  const validate = validators[kind];
  if (!validate(value)) return parentPort.postMessage({ id, outcome: 'invalid', errors: validate.errors.map(({ data, parentSchema, ...e }) => ({ ...e, schema: e.schema })) });
  // The small fields come back as values; the large part as JSON text encoded in UTF-8, its buffer transferred:
  // the event loop neither rebuilds thousands of objects nor copies a string of megabytes, and stores those bytes
  // as they are, a page at a time (storage/session-log-pages.ts).
  const keep = workerData.keep[kind];
  const fields = {};
  const large = {};
  for (const [key, field] of Object.entries(value)) (keep.includes(key) ? fields : large)[key] = field;
  // Session logs: what the statistics and the screening read of them, so that no one parses the body again.
  if (kind === 'logs') fields.logSummary = summariseLogStates(value.logStates);
  const only = workerData.largeField[kind];
  const largeJson = encoder.encode(JSON.stringify(only ? large[only] : large));
  parentPort.postMessage({ id, outcome: 'ok', fields, largeJson }, [largeJson.buffer]);
}
