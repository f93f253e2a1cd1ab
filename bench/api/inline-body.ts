/**
 * What a session log or mouse log read on the event loop costs (docs/security.md, "Large valid bodies"):
 * `npx tsx bench/api/inline-body.ts`. Bodies of at most SMALL_BODY_BYTES are parsed, checked and split on the event
 * loop (body/json-pool.ts); this times the worst shapes of that size an anonymous client can send, through the pool's
 * own `receive`, against the baseline of the same run: the session log the page sends on a short session (7 KB,
 * what bench:launch posts). Median and worst of 40 reads each, after the validators are compiled as the server does
 * before it listens (timed apart); results in bench/results/inline-body.json.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { SMALL_BODY_BYTES, JsonWorkerPool, type LargeBodyKind } from '../../src/server/body/json-pool.js';
import { quantile, round1 } from '../shared/measure.js';
import { writeBenchResult } from '../shared/run-stamp.js';

const round2 = (x: number) => Math.round(x * 100) / 100;

const TOKEN = 'a'.repeat(32);
/** Repeats `unit(i)` until the body reaches `bytes`: the largest body of that shape read inline. */
function fill(head: string, unit: (i: number) => string, tail: string, bytes = SMALL_BODY_BYTES): Buffer {
  const parts = [head];
  let length = head.length + tail.length;
  for (let i = 0; ; i++) {
    const next = (i === 0 ? '' : ',') + unit(i);
    if (length + next.length > bytes) break;
    parts.push(next);
    length += next.length;
  }
  parts.push(tail);
  return Buffer.from(parts.join(''));
}

const move = (i: number) => `{"posX":${i % 1280},"posY":${i % 720},"time":${1000 + i * 16.7}}`;
const emptyLogs = '"logMouseClick":[],"logScroll":[],"logKeyboard":[],"logFocus":[],"logDomSize":[]';
const states = '"logStates":[{"state":"Eligibility","status":"checks","time":1},{"state":"Result","status":"ok","time":3}]';
const bodies: Array<{ name: string; kind: LargeBodyKind; body: Buffer }> = [
  { name: 'baseline: session log of a short session (200 moves)', kind: 'logs', body: fill(`{"sessionToken":"${TOKEN}",${states},"logMouseMovement":[`, move, `],${emptyLogs}}`, 7_000) },
  { name: 'valid session log, mouse moves', kind: 'logs', body: fill(`{"sessionToken":"${TOKEN}",${states},"logMouseMovement":[`, move, `],${emptyLogs}}`) },
  { name: 'valid session log, key presses (strings)', kind: 'logs', body: fill(`{"sessionToken":"${TOKEN}",${states},"logMouseMovement":[],"logMouseClick":[],"logScroll":[],"logFocus":[],"logDomSize":[],"logKeyboard":[`, (i) => `{"key":"\\u00e9","code":"KeyE","repeat":false,"shiftKey":false,"altKey":false,"ctrlKey":false,"time":${i}}`, ']}') },
  { name: 'unknown keys', kind: 'logs', body: fill('{', (i) => `"k${i}":0`, '}') },
  { name: 'nested brackets', kind: 'logs', body: Buffer.from('['.repeat(SMALL_BODY_BYTES / 2) + ']'.repeat(SMALL_BODY_BYTES / 2)) },
  { name: 'short strings in an array', kind: 'logs', body: fill('[', () => '"\\u00e9"', ']') },
  { name: 'mouse log samples with a wrong type last', kind: 'screening', body: fill('{"stimuli_id":1,"session_id":1,"session_token":"x","screening_no":0,"mouse_logs":{"mediaA":[', (i) => `{"x":${i},"y":${i},"t":${i}}`, '],"mediaB":"x"}}') },
];

const pool = new JsonWorkerPool();
// As the server does before listening (start.ts): the validators compile once per process, timed apart.
const warmStarted = performance.now();
pool.warm();
const validatorsCompileMs = round2(performance.now() - warmStarted);
const rows = [];
for (const { name, kind, body } of bodies) {
  const times: number[] = [];
  let outcome = '';
  for (let run = 0; run < 40; run++) {
    const started = performance.now();
    try {
      await pool.receive(kind, Readable.from([body]), 16 * 1024 * 1024, body.length);
      outcome = 'ok';
    } catch (error) {
      outcome = `${(error as { statusCode?: number }).statusCode} ${(error as { code?: string }).code ?? ''}`.trim();
    }
    times.push(performance.now() - started);
  }
  rows.push({ name, kind, bytes: body.length, outcome, medianMs: round2(quantile(times, 0.5)), worstMs: round2(Math.max(...times)) });
}
await pool.close();
const baseline = rows[0]!.medianMs;
const result = { date: new Date().toISOString(), loadAverage: loadavg(), smallBodyBytes: SMALL_BODY_BYTES, validatorsCompileMs, rows: rows.map((r) => ({ ...r, ratioToBaseline: round1(r.medianMs / baseline) })) };
writeBenchResult(join(import.meta.dirname, '../results/inline-body.json'), result);
console.log(`inline reads of at most ${SMALL_BODY_BYTES} bytes, ${result.date}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log(`validators compiled before listening: ${validatorsCompileMs} ms`);
console.log('| body | bytes | answer | median ms | worst ms | × baseline |\n|---|---:|---|---:|---:|---:|');
for (const r of result.rows) console.log(`| ${r.name} | ${r.bytes} | ${r.outcome} | ${r.medianMs} | ${r.worstMs} | ${r.ratioToBaseline} |`);
