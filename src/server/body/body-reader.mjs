// Reads one JSON request body into what the routes store: parsed, checked for unstorable text, validated, and split
// into its small fields and its large part as UTF-8 JSON. Plain JavaScript, because the JSON worker threads
// (json-worker.mjs) run it where no TypeScript loader may exist; the event loop runs it too, for small bodies
// (json-pool.ts), so that both paths give the same answers.
import { Ajv } from 'ajv';
import { summariseLogStates } from './log-summary.mjs';

/** NUL, or a surrogate without its pair. */
const UNSTORABLE_TEXT = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The path of the first string (or key) holding NUL or a lone surrogate (neither can be stored as text), or null, in
 * document order. A loop over a stack of open containers, not recursion: 16 KB of nested brackets parse, and
 * recursing into them overflowed the stack. A path is built only for a container entered or a string found.
 */
export function badTextPath(root, rootPath) {
  if (typeof root === 'string') return UNSTORABLE_TEXT.test(root) ? rootPath : null;
  if (!root || typeof root !== 'object') return null;
  const open = [{ container: root, keys: Array.isArray(root) ? null : Object.keys(root), next: 0, path: rootPath }];
  while (open.length > 0) {
    const top = open[open.length - 1];
    const { container, keys, path } = top;
    if (top.next >= (keys ?? container).length) {
      open.pop();
      continue;
    }
    const i = top.next++;
    let child;
    let childPath;
    if (keys) {
      const key = keys[i];
      if (UNSTORABLE_TEXT.test(key)) return `${path}[key]`;
      child = container[key];
      childPath = () => `${path}.${key}`;
    } else {
      child = container[i];
      childPath = () => `${path}[${i}]`;
    }
    if (typeof child === 'string') {
      if (UNSTORABLE_TEXT.test(child)) return childPath();
    } else if (child && typeof child === 'object') {
      open.push({ container: child, keys: Array.isArray(child) ? null : Object.keys(child), next: 0, path: childPath() });
    }
  }
  return null;
}

const encoder = new TextEncoder();

/**
 * A reader for the kinds of `config` (json-pool.ts BODY_KINDS: their schemas, kept fields and large field). The
 * validators of `compileNow` are compiled at once (about 100 ms in all), the others on first use.
 */
export function createBodyReader(config, compileNow = []) {
  // Fail fast: the first error is enough to refuse, and a junk body must not cost one error object per sample.
  const ajv = new Ajv({ allErrors: false, strict: false, verbose: true, coerceTypes: false, removeAdditional: false, useDefaults: false });
  const validators = {};
  const validator = (kind) => (validators[kind] ??= ajv.compile(config.schemas[kind]));
  for (const kind of compileNow) validator(kind);

  return function read(kind, bytes) {
    let value;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      return { outcome: 'json', message: error.message };
    }
    const text = badTextPath(value, 'body');
    if (text) return { outcome: 'text', path: text };
    const validate = validator(kind);
    if (!validate(value)) return { outcome: 'invalid', errors: validate.errors.map(({ data, parentSchema, ...e }) => ({ ...e, schema: e.schema })) };
    // The small fields come back as values; the large part as JSON text encoded in UTF-8: the event loop neither
    // rebuilds thousands of objects nor copies a string of megabytes, and stores those bytes as they are, a page at a
    // time (storage/session-log-pages.ts).
    const keep = config.keep[kind];
    const fields = {};
    const large = {};
    for (const [key, field] of Object.entries(value)) (keep.includes(key) ? fields : large)[key] = field;
    // Session logs: what the statistics and the screening read of them, so that no one parses the body again.
    if (kind === 'logs') fields.logSummary = summariseLogStates(value.logStates);
    const only = config.largeField[kind];
    return { outcome: 'ok', fields, largeJson: encoder.encode(JSON.stringify(only ? large[only] : large)) };
  };
}
