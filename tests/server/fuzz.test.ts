import fc from 'fast-check';
import { beforeEach, expect, it } from 'vitest';
import { describeEachDialect } from '../../testkit/databases.js';
import { getPlaylist, json, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { PAIR_STUDY, studyOf, writeStudy } from '../../testkit/studies.js';

/**
 * Property-based fuzzing of every endpoint (fast-check), on both databases: whatever arrives, the server never
 * answers 5xx, and a refused body stores nothing. Kept under a minute for CI (FUZZ_RUNS per property); longer runs:
 * `FUZZ_RUNS=5000 npx vitest run tests/server/fuzz.test.ts`.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const TABLES = ['sessions', 'ratings', 'screenings', 'session_logs', 'bchecks', 'consents'] as const;

/** Strings that have broken servers: NUL, lone surrogates, formulas, markup, huge and odd numbers as text. */
const nasty = fc.oneof(
  fc.string(),
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', '\udfff', 'x\ud83d', '=1+1', '<script>', '../../etc/passwd', ' ', '', 'A'.repeat(5000), '1e309', '-0', 'null'),
  fc.string({ unit: 'binary' }),
);
const value: fc.Arbitrary<unknown> = fc.oneof(
  nasty,
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 2 ** 31, 2 ** 53, Number.MAX_VALUE, -Number.MAX_VALUE, 1e-300, true, false, null),
  fc.array(fc.jsonValue(), { maxLength: 5 }),
  fc.jsonValue(),
);

/** A valid body with one field changed, removed, or one field added. */
function mutated(valid: Record<string, unknown>): fc.Arbitrary<unknown> {
  const keys = Object.keys(valid);
  return fc.oneof(
    fc.record({ key: fc.constantFrom(...keys), v: value }).map(({ key, v }) => ({ ...valid, [key]: v })),
    fc.constantFrom(...keys).map((key) => Object.fromEntries(Object.entries(valid).filter(([k]) => k !== key))),
    fc.record({ key: nasty, v: value }).map(({ key, v }) => ({ ...valid, [key]: v })),
    fc.jsonValue(),
  );
}

describeEachDialect('fuzzing every endpoint', (dialect) => {
  const ctx = useServer(dialect, { rateLimits: false });
  let pair: GenericPlaylist;
  let bubble: GenericPlaylist & { stimulis: Array<{ stimuli_id: number }> };
  beforeEach(async () => {
    await ctx().importStudy(PAIR_STUDY);
    await ctx().importStudy(await writeStudy(studyOf('bubble', { id: 'fuzz-bubble', playlists: 1, perPlaylist: 2 })));
    pair = json(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=fuzzer'));
    bubble = json(await getPlaylist(ctx().app, '/api/getbubble/fuzz-bubble', 'platform=prolific&PROLIFIC_PID=fuzzer2'));
  });
  const counts = async () => Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, Number((await ctx().storage.db.selectFrom(t).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)])));

  /** Posts every generated body: never 5xx; when refused, nothing stored. */
  async function fuzzPost(url: string, bodies: fc.Arbitrary<unknown>, headers: Record<string, string> = {}) {
    await fc.assert(
      fc.asyncProperty(bodies, fc.constantFrom('application/json', 'text/plain'), async (body, type) => {
        const before = await counts();
        const res = await ctx().app.inject({ method: 'POST', url, headers: { 'content-type': type, ...headers }, payload: JSON.stringify(body) });
        expect(res.statusCode, `${url} ${JSON.stringify(body).slice(0, 200)}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
        if (res.statusCode >= 400) expect(await counts()).toEqual(before);
      }),
      { numRuns: RUNS },
    );
  }

  it('POST /api/ratings/', async () => {
    const valid = { stimuli_id: pair.stimulis[0]!.stimuliId, session_id: pair.session_id, session_token: pair.sessionToken, value: 1, nbReplay: 0, logs: null };
    await fuzzPost('/api/ratings/', mutated(valid), { 'idempotency-key': 'fuzz' });
  });

  it('POST /api/bubblescreenings/', async () => {
    const valid = { stimuli_id: bubble.stimulis[0]!.stimuli_id, session_id: bubble.session_id, session_token: bubble.sessionToken, screening_no: 0, logs: null, mouse_logs: { mediaA: [{ x: 1, y: 2, t: 3, vt: 0 }], mediaB: [] } };
    await fuzzPost('/api/bubblescreenings/', mutated(valid));
  });

  it('POST /api/sessionlogs/', async () => {
    const valid = { sessionToken: pair.sessionToken, logStates: [{ state: 'Test', status: 'test', time: 1 }], logMouseMovement: [], logMouseClick: [], logScroll: [], logKeyboard: [], logFocus: [], logDomSize: [] };
    await fuzzPost('/api/sessionlogs/', mutated(valid));
  });

  it('POST /api/bchecks/ and /api/consent/', async () => {
    await fuzzPost('/api/bchecks/', mutated({ b_name: 'Chrome', b_version: '1', b_os: 'Linux', screen_size: '1x1' }));
    const form = { emailAddress: 'a@b.fr', paraphe: 'AB', gender: 'M.', name: 'A', familyName: 'B', birthCountry: 'France', birthDay: '1990-01-01', currentDate: { day: 1, month: 2, year: 2026 } };
    await fuzzPost('/api/consent/', mutated(form));
  });

  it('GET: playlists with any query, jobs, codes and media with any path', async () => {
    const query = fc.dictionary(fc.constantFrom('platform', 'playlist_id', 'sig', 'bcheckId', 'workerId', 'assignmentId', 'PROLIFIC_PID', 'SESSION_ID', 'email', 'ft', 'x'), nasty, { maxKeys: 5 });
    await fc.assert(
      fc.asyncProperty(query, nasty, async (params, segment) => {
        const search = new URLSearchParams(params as Record<string, string>).toString();
        // A lone surrogate has no UTF-8: sent as the bytes of one (an invalid percent-encoding the server must bear).
        const encoded = (() => {
          try {
            return encodeURIComponent(segment);
          } catch {
            return '%ED%A0%80x';
          }
        })();
        const headers = /^[\x20-\x7e]*$/.test(segment) ? { range: `bytes=${segment}` } : {};
        for (const url of [`/api/getrandomtasks/fixture-pair?${search}`, `/api/getacr/${encoded}?${search}`, `/api/jobs/${encoded}`, `/api/sessions/token/${encoded}`, `/resmedias/fixture-pair/${encoded}`, `/resmedias/${encoded}`]) {
          const res = await ctx().app.inject({ method: 'GET', url, headers });
          expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
