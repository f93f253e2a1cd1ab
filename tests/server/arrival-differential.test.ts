import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStorage } from '../../src/server/storage/open.js';
import type { Storage } from '../../src/server/storage/types.js';
import { arrivalCommands, arrivalJob, playOnBoth, type ArrivalJob, type Command, type Coverage } from '../../testkit/arrivals.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../../testkit/databases.js';

/**
 * Issue 37, "One arrival program": the arrival's decision is written twice, in TypeScript for SQLite (sessions.ts
 * openSession, playlist-loads.ts) and as the plpgsql function `glimpse_open_session` (migration 017) for
 * PostgreSQL. This differential property test plays the same random history on both databases (testkit/arrivals.ts):
 * arrivals with platform ids in several spellings, anonymous resumes by the token a browser kept, playlists named by a
 * link, researcher previews, MTurk HIT previews, completions, quality verdicts, withdrawals (by token or id), pauses,
 * lease expiries (a fake clock around the 1-minute lease and the 5 s sweep period) and lost counts. After every step
 * it compares what each answered (sessions by the order they were opened, playlists by position), the balancing
 * counts (`playlist_loads`, `job_loads`) and the sessions, and checks the counts against a recount.
 *
 * Each run is a new job with 2-4 playlists (a target of accepted observers or none), in one SQLite database and one
 * PostgreSQL schema opened for the file: everything an arrival reads is its job's, so a new job is a fresh start.
 * A failure prints the seed, the job and the numbered history with both databases' answers. Longer runs:
 * `ARRIVAL_RUNS=2000 ARRIVAL_SEED=7 npx vitest run tests/server/arrival-differential.test.ts`.
 */

const SEED = Number(process.env.ARRIVAL_SEED ?? 20261201);
const RUNS = Number(process.env.ARRIVAL_RUNS ?? 300);

describe.skipIf(!DIALECTS.includes('postgres'))('one arrival program: SQLite and PostgreSQL decide alike (issue 37)', () => {
  const databases: TestDatabase[] = [];
  let storages: [Storage, Storage];
  let jobs = 0;
  const play = (spec: ArrivalJob, commands: readonly Command[], coverage?: Coverage) =>
    playOnBoth(storages, `arrivals-${++jobs}`, spec, commands, { seed: SEED, equal: isDeepStrictEqual, coverage });

  beforeAll(async () => {
    const opened: Storage[] = [];
    for (const dialect of ['sqlite', 'postgres'] as const) {
      const database = await createTestDatabase(dialect);
      databases.push(database);
      opened.push(await openStorage({ databaseUrl: database.url, sqliteSynchronous: 'NORMAL' }));
    }
    storages = opened as [Storage, Storage];
  });

  afterAll(async () => {
    vi.useRealTimers();
    for (const s of storages ?? []) await s.close();
    for (const d of databases) await d.drop();
  });

  it(`answers every random history alike, with the same balancing counts (seed ${SEED}, ${RUNS} runs)`, async () => {
    const coverage: Coverage = new Map();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      await fc.assert(
        fc.asyncProperty(arrivalJob, arrivalCommands, async (spec, commands) => {
          await play(spec, commands, coverage);
        }),
        { seed: SEED, numRuns: RUNS },
      );
    } finally {
      vi.useRealTimers();
    }
    // The histories reached every case of the decision (a generator that stopped reaching one would pass vacuously).
    console.info(`arrival histories (seed ${SEED}, ${RUNS} runs):`, Object.fromEntries([...coverage].sort()));
    for (const reached of [
      'arrive opened',
      'arrive resumed',
      'arrive resumed by token',
      'preview opened',
      'preview resumed',
      'arrive refused: AlreadyCompletedError',
      'arrive refused: JobNotOpenError',
      'arrive refused: StudyFullError',
      'peek refused: StudyFullError',
      'arrival on an uncounted job',
      'an unfinished session swept off running',
      'tie on load broken by sessions',
      'verdict excluded',
      'completed session withdrawn',
      'unfinished session withdrawn',
    ]) {
      expect(coverage.get(reached) ?? 0, reached).toBeGreaterThan(0);
    }
  }, 600_000);

  it(`keeps a refused arrival's lease sweep on both databases, so the next participant gets the same playlist`, async () => {
    // Found by the property above: glimpse_open_session answers a refusal (paused, full, already completed) as a
    // result, so the lease sweep it made commits; SQLite threw inside its transaction, which undid the sweep. Three
    // seconds later the next arrival swept on SQLite only (its sweep point was older), and that sweep also took off a
    // session whose lease had just ended, which PostgreSQL still counted (a session counts for its lease plus at most
    // the 5 s between sweeps): SQLite gave the second playlist, PostgreSQL the first.
    const at = (who: number, pick: number | null): Command => ({ op: 'arrive', who, platform: 'prolific', upper: false, browser: 0, pick });
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const answers = await play({ playlists: 2, target: null, leaseMinutes: 1, uncounted: false }, [
        at(0, 0), // t = 0: two sessions on the first playlist (a link that names it) ...
        at(1, 0),
        { op: 'tick', ms: 3000 },
        at(2, 1), // t = 3 s: ... and one on the second
        { op: 'tick', ms: 58_000 },
        { op: 'status', open: false },
        at(3, null), // t = 61 s: refused (paused); its sweep takes off the first two sessions (leases ended at 60 s)
        { op: 'status', open: true },
        { op: 'tick', ms: 3000 },
        at(4, null), // t = 64 s: no sweep (3 s since the last); the third session, ended at 63 s, still counts
      ]);
      expect(answers[6]).toEqual({ refused: 'JobNotOpenError' });
      expect(answers[9]).toEqual({ session: 3, playlist: 0, resumed: false });
    } finally {
      vi.useRealTimers();
    }
  });
});
