import { PassThrough, Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { JsonWorkerPool, type LargeBodyKind, SMALL_BODY_BYTES } from './json-pool.js';

/**
 * A session log or mouse log of at most SMALL_BODY_BYTES is read on the event loop, a larger one in a worker: the
 * same body, padded past the limit with the whitespace JSON allows, gets the same answer on both paths.
 */
const pool = new JsonWorkerPool();
afterAll(() => pool.close());

async function answer(kind: LargeBodyKind, text: string): Promise<unknown> {
  const body = Buffer.from(text);
  try {
    const { fields, largeJson } = await pool.receive(kind, Readable.from([body]), 16 * 1024 * 1024, body.length);
    return { fields, large: largeJson.toString('utf8') };
  } catch (error) {
    const { statusCode, code, message } = error as { statusCode: number; code: string; message: string };
    return { statusCode, code, message };
  }
}

const TOKEN = 'T'.repeat(32);
const emptyLogs = { logMouseClick: [], logScroll: [], logKeyboard: [], logFocus: [], logDomSize: [] };
const cases: Array<[string, LargeBodyKind, string]> = [
  ['a valid session log', 'logs', JSON.stringify({ sessionToken: TOKEN, logStates: [{ state: 'Result', status: 'ok', time: 3 }], logMouseMovement: [{ posX: 1, posY: 2, time: 3 }], ...emptyLogs })],
  ['a valid mouse log', 'screening', JSON.stringify({ stimuli_id: 1, session_id: 2, session_token: TOKEN, screening_no: 0, logs: null, mouse_logs: { mediaA: [{ x: 1, y: 2, t: 3, vt: 0 }], mediaB: [] } })],
  ['text that is not JSON', 'logs', '{"sessionToken": '],
  ['a NUL in a key', 'logs', '{"a\\u0000": 1}'],
  ['a lone surrogate in a mouse log', 'screening', '{"mouse_logs": {"mediaA": ["\\ud800"]}}'],
  ['an unknown field', 'logs', JSON.stringify({ sessionToken: TOKEN, logStates: [], logMouseMovement: [], ...emptyLogs, extra: 1 })],
  ['nested brackets', 'logs', '['.repeat(5_000) + ']'.repeat(5_000)],
];

describe('small and large log bodies', () => {
  it.each(cases)('%s: the same answer read on the event loop and in a worker', async (_name, kind, text) => {
    expect(text.length).toBeLessThanOrEqual(SMALL_BODY_BYTES);
    const small = await answer(kind, text);
    const large = await answer(kind, text + ' '.repeat(SMALL_BODY_BYTES));
    expect(large).toEqual(small);
  });

  it('reads a valid session log into its token, its state summary and the rest as JSON', async () => {
    expect(await answer('logs', cases[0]![2])).toEqual({
      fields: { sessionToken: TOKEN, logSummary: { classes: 'O', last: { state: 'Result', status: 'ok' } } },
      large: JSON.stringify({ logStates: [{ state: 'Result', status: 'ok', time: 3 }], logMouseMovement: [{ posX: 1, posY: 2, time: 3 }], ...emptyLogs }),
    });
  });

  it('refuses a small body that sends more bytes than its Content-Length announced', async () => {
    const body = Buffer.from(cases[0]![2]);
    const refused = pool.receive('logs', Readable.from([body]), 16 * 1024 * 1024, body.length - 10);
    await expect(refused).rejects.toMatchObject({ statusCode: 400, code: 'FST_ERR_CTP_INVALID_CONTENT_LENGTH' });
  });
});

describe('a worker that dies (issue 34, item 4)', () => {
  it('fails only the bodies it held, with 503; the other worker\'s body and the next bodies are read', async () => {
    const twoWorkers = new JsonWorkerPool(2);
    const big = Buffer.from(cases[0]![2] + ' '.repeat(SMALL_BODY_BYTES));
    // Two bodies arriving slowly, one per worker: the first half of each is sent, then the first worker is killed.
    const streams = [new PassThrough(), new PassThrough()];
    const readings = streams.map((stream) => twoWorkers.receive('logs', stream, 16 * 1024 * 1024, big.length).then(
      (read) => read.fields.sessionToken,
      (error: { statusCode: number; code: string }) => [error.statusCode, error.code],
    ));
    for (const stream of streams) stream.write(big.subarray(0, 1000));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(twoWorkers.threads).toHaveLength(2);
    await twoWorkers.threads[0]!.terminate();
    streams[1]!.end(big.subarray(1000));
    streams[0]!.end(big.subarray(1000));
    expect(await Promise.all(readings)).toEqual([[503, 'BODY_READER_FAILED'], TOKEN]);
    const next = await twoWorkers.receive('logs', Readable.from([big]), 16 * 1024 * 1024, big.length);
    expect(next.fields.sessionToken).toBe(TOKEN);
    await twoWorkers.close();
  });
});

describe('idle workers (issue 34: memory back after a flood)', () => {
  it('ends a worker that has read nothing for its idle time; the next body starts a new one', async () => {
    const pool = new JsonWorkerPool(1, 50);
    const big = Buffer.from(cases[0]![2] + ' '.repeat(SMALL_BODY_BYTES));
    const read = () => pool.receive('logs', Readable.from([big]), 16 * 1024 * 1024, big.length);
    expect((await read()).fields.sessionToken).toBe(TOKEN);
    expect(pool.threads).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pool.threads).toHaveLength(0);
    expect((await read()).fields.sessionToken).toBe(TOKEN);
    await pool.close();
  });
});
