import fc from 'fast-check';
import { vi } from 'vitest';
import { PLATFORMS, type Platform } from '../src/contract/platforms.js';
import type { StudyFile } from '../src/contract/study.js';
import { storeFirstVerdict } from '../src/server/storage/quality-sums.js';
import { completeSession, leastLoadedPlaylist, openSession, type PlatformIdentity } from '../src/server/storage/sessions.js';
import { saveStudy } from '../src/server/storage/studies.js';
import type { Storage } from '../src/server/storage/types.js';
import { withdraw } from '../src/server/storage/withdrawals.js';
import { studyOf } from './studies.js';

/**
 * Random arrival histories for the differential test of the arrival's two copies (issue 37,
 * tests/server/arrival-differential.test.ts): commands, a job, and a Runner that plays them on one database at the
 * storage level (openSession, completeSession, storeFirstVerdict, withdraw, leastLoadedPlaylist) and reads back the
 * job's state normalised (sessions by the order they were opened, playlists by position), so that two databases'
 * answers and states compare with toEqual.
 */

export const MAX_COMMANDS = 20;
const PARTICIPANTS = 4;
const BROWSERS = 3;
/** Where every run's fake clock starts. */
export const ARRIVALS_START = Date.parse('2026-12-01T09:00:00.000Z');

export type Command =
  /** A participant (who: null = a link without an id) opens the job in a browser, which sends the token it kept. */
  | { op: 'arrive'; who: number | null; platform: Platform; upper: boolean; browser: number; pick: number | null }
  /** A researcher's preview link opened in a browser (no platform ids; resumes a preview only). */
  | { op: 'preview'; browser: number }
  /** An MTurk worker previewing the HIT: the playlist they would get, no session (a sweep may happen). */
  | { op: 'peek'; pick: number | null }
  /** The n-th session opened (modulo those opened) completes. */
  | { op: 'complete'; session: number }
  /** Quality control's first verdict on the n-th session, when it is completed. */
  | { op: 'judge'; session: number; included: boolean }
  /** The lab withdraws the n-th session by its token. */
  | { op: 'withdrawToken'; session: number }
  /** The lab withdraws a participant by the id they typed (worker id, Prolific id or e-mail). */
  | { op: 'withdrawId'; who: number; platform: Platform; upper: boolean }
  /** The clock moves on (the lease is a minute; the sweep runs at most every 5 s). */
  | { op: 'tick'; ms: number }
  /** The job is paused (no new participant) or opened again. */
  | { op: 'status'; open: boolean }
  /** The job's counts are lost (a job counted before migration 013): the next arrival counts it again. */
  | { op: 'forgetCounts' };

export interface ArrivalJob {
  playlists: number;
  /** Accepted observers each playlist needs (job.quality.targetAcceptedPerPlaylist), or none. */
  target: number | null;
  leaseMinutes: number;
  /** The job starts without counts ('uncounted' in glimpse_open_session; rebuildLoads inside on SQLite). */
  uncounted: boolean;
}

const platform = fc.constantFrom(...PLATFORMS);
const sessionRef = fc.nat({ max: MAX_COMMANDS - 1 });
/** A playlist named by a link (by position, modulo the job's playlists), in one arrival out of `1 + none`. */
const pick = (none: number) => fc.oneof({ weight: none, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat({ max: 3 }) });

export const arrivalCommand: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      op: fc.constant('arrive' as const),
      who: fc.option(fc.nat({ max: PARTICIPANTS - 1 }), { freq: 4 }),
      platform,
      upper: fc.boolean(),
      browser: fc.nat({ max: BROWSERS - 1 }),
      pick: pick(5),
    }),
  },
  // Mostly in the researcher's own browser (number BROWSERS), sometimes in a participant's (its token is not a preview's).
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('preview' as const),
      browser: fc.oneof({ weight: 3, arbitrary: fc.constant(BROWSERS) }, { weight: 1, arbitrary: fc.nat({ max: BROWSERS - 1 }) }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('peek' as const), pick: pick(4) }) },
  { weight: 5, arbitrary: fc.record({ op: fc.constant('complete' as const), session: sessionRef }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('judge' as const), session: sessionRef, included: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('withdrawToken' as const), session: sessionRef }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('withdrawId' as const), who: fc.nat({ max: PARTICIPANTS - 1 }), platform, upper: fc.boolean() }) },
  // Around the lease (60 s) and the sweep's period (5 s), and far past both.
  { weight: 3, arbitrary: fc.record({ op: fc.constant('tick' as const), ms: fc.constantFrom(1000, 3000, 4999, 5000, 30_000, 59_999, 60_000, 61_000, 3_600_000) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('status' as const), open: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ op: 'forgetCounts' as const }) },
);

export const arrivalJob: fc.Arbitrary<ArrivalJob> = fc.record({
  playlists: fc.integer({ min: 2, max: 4 }),
  target: fc.option(fc.integer({ min: 1, max: 3 }), { freq: 2 }),
  leaseMinutes: fc.constant(1),
  uncounted: fc.boolean(),
});

export const arrivalCommands = fc.array(arrivalCommand, { minLength: 1, maxLength: MAX_COMMANDS });

const idOf = (who: number, upper: boolean) => `${upper ? 'W' : 'w'}${who}`;

function identityOf(cmd: { who: number | null; platform: Platform; upper: boolean }): PlatformIdentity {
  if (cmd.who === null) return { platform: cmd.platform };
  const id = idOf(cmd.who, cmd.upper);
  if (cmd.platform === 'mturk') return { platform: 'mturk', workerId: id, assignmentId: `A-${id}`, hitId: 'H1' };
  if (cmd.platform === 'prolific') return { platform: 'prolific', PROLIFIC_PID: id, STUDY_ID: 'S1', SESSION_ID: `X-${id}` };
  return { platform: 'nantes', email: `${id}@lab.example` };
}

/** What a step answered: sessions by the order they were opened, playlists by position. */
export type Outcome = Record<string, unknown>;

/** The refusal an arrival ended with (its class: the route maps each to its code), or anything unexpected. */
function refusal(error: unknown): string {
  const name = (error as Error).constructor?.name;
  if (name === 'AlreadyCompletedError' || name === 'JobNotOpenError' || name === 'StudyFullError') return name;
  return `unexpected: ${(error as Error).message}`;
}

export type ArrivalState = Awaited<ReturnType<Runner['state']>>;

/** One database playing a job's commands. */
export class Runner {
  private readonly sessions: Array<{ id: number; token: string }> = [];
  private readonly ordinalOf = new Map<number, number>();
  /** The token each browser kept (the page keeps the last session's). */
  private readonly kept = new Map<number, string>();
  private acceptsNew = true;
  private playlistIds: number[] = [];

  constructor(
    readonly storage: Storage,
    readonly jobId: string,
    readonly spec: ArrivalJob,
  ) {}

  /** The job, stored as an import stores it (saveStudy: its counts built), or without counts when `uncounted`. */
  async create(): Promise<void> {
    const study = studyOf('pair_comparison', { id: this.jobId, playlists: this.spec.playlists, perPlaylist: 1 });
    await saveStudy(this.storage, { ...study, media: 'media' } as StudyFile, [], { source: `/arrivals/${this.jobId}.json` });
    this.playlistIds = (await this.storage.db.selectFrom('playlists').select('id').where('job_id', '=', this.jobId).orderBy('position').execute()).map((p) => p.id);
    if (this.spec.uncounted) await this.forgetCounts();
  }

  /** As running-sums.test.ts makes a job counted before the counts existed: no job row, no playlist rows. */
  private async forgetCounts(): Promise<void> {
    await this.storage.write(async (trx) => {
      await trx.deleteFrom('playlist_loads').where('job_id', '=', this.jobId).execute();
      await trx.deleteFrom('job_loads').where('job_id', '=', this.jobId).execute();
    });
  }

  private position(playlistId: number): number {
    return this.playlistIds.indexOf(playlistId);
  }

  private session(n: number): { id: number; token: string } | null {
    return this.sessions.length === 0 ? null : this.sessions[n % this.sessions.length]!;
  }

  private pickId(pick: number | null): number | null {
    return pick === null ? null : this.playlistIds[pick % this.playlistIds.length]!;
  }

  private opened(opened: { id: number; token: string; playlistId: number; resumed: boolean }, browser: number): Outcome {
    if (!this.ordinalOf.has(opened.id)) {
      this.ordinalOf.set(opened.id, this.sessions.length);
      this.sessions.push({ id: opened.id, token: opened.token });
    }
    this.kept.set(browser, opened.token);
    return { session: this.ordinalOf.get(opened.id), playlist: this.position(opened.playlistId), resumed: opened.resumed };
  }

  async run(cmd: Command): Promise<Outcome> {
    switch (cmd.op) {
      case 'arrive':
      case 'preview': {
        try {
          const opened = await openSession(this.storage, {
            jobId: this.jobId,
            playlistId: cmd.op === 'preview' ? null : this.pickId(cmd.pick),
            resumeToken: this.kept.get(cmd.browser) ?? null,
            // A preview link carries no platform id (routes/playlists.ts checkArrival).
            identity: cmd.op === 'preview' ? { platform: 'prolific' } : identityOf(cmd),
            bcheckId: null,
            freeTask: false,
            leaseMinutes: this.spec.leaseMinutes,
            targetAccepted: this.spec.target ?? undefined,
            acceptsNew: this.acceptsNew,
            preview: cmd.op === 'preview',
          });
          return this.opened(opened, cmd.browser);
        } catch (error) {
          return { refused: refusal(error) };
        }
      }
      case 'peek': {
        // The route's MTurk HIT preview (routes/playlists.ts assignPlaylist): the least loaded playlist, or full.
        if (!this.acceptsNew) return { refused: 'JobNotOpenError' };
        const chosen = await leastLoadedPlaylist(this.storage, this.jobId, this.spec.leaseMinutes, this.pickId(cmd.pick));
        if (!chosen) return { refused: 'no playlist' };
        if (this.spec.target !== null && chosen.load >= this.spec.target) return { refused: 'StudyFullError' };
        return { playlist: this.position(chosen.id), load: chosen.load, sessions: chosen.sessions };
      }
      case 'complete': {
        const s = this.session(cmd.session);
        if (!s) return { none: true };
        try {
          await completeSession(this.storage, s.id);
          return { completed: this.ordinalOf.get(s.id) };
        } catch (error) {
          // A withdrawn session: no row left to complete.
          return { gone: this.ordinalOf.get(s.id), error: (error as Error).constructor?.name };
        }
      }
      case 'judge': {
        const s = this.session(cmd.session);
        if (!s) return { none: true };
        const row = await this.storage.db.selectFrom('sessions').select(['id', 'job_id', 'playlist_id', 'preview', 'completed_at']).where('id', '=', s.id).executeTakeFirst();
        if (!row || row.completed_at === null) return { notJudged: this.ordinalOf.get(s.id), exists: row !== undefined };
        const stored = await storeFirstVerdict(this.storage, row, { approved: cmd.included, included: cmd.included, outcomes: [] }, new Map());
        return { judged: this.ordinalOf.get(s.id), included: cmd.included, stored };
      }
      case 'withdrawToken': {
        const s = this.session(cmd.session);
        if (!s) return { none: true };
        const { deleted } = await withdraw(this.storage, { by: 'token', value: s.token }, { jobId: this.jobId });
        return { withdrawn: this.ordinalOf.get(s.id), sessions: deleted.sessions, tombstones: deleted.tombstones };
      }
      case 'withdrawId': {
        const identity = identityOf(cmd);
        const selector =
          cmd.platform === 'mturk'
            ? ({ by: 'worker-id', value: identity.workerId! } as const)
            : cmd.platform === 'prolific'
              ? ({ by: 'prolific-pid', value: identity.PROLIFIC_PID! } as const)
              : ({ by: 'email', value: identity.email! } as const);
        const { plan, deleted } = await withdraw(this.storage, selector, { jobId: this.jobId });
        return { withdrawn: plan.sessions.map((s) => this.ordinalOf.get(s.sessionId)), sessions: deleted.sessions, tombstones: deleted.tombstones };
      }
      case 'tick':
        return {};
      case 'status':
        this.acceptsNew = cmd.open;
        return {};
      case 'forgetCounts':
        await this.forgetCounts();
        return {};
    }
  }

  /** The job's balancing counts (`job_loads`, `playlist_loads`) and sessions, normalised. */
  async state() {
    const db = this.storage.db;
    const jobLoads = await db.selectFrom('job_loads').select('swept_until').where('job_id', '=', this.jobId).executeTakeFirst();
    const loadRows = await db.selectFrom('playlist_loads').select(['playlist_id', 'sessions', 'included', 'running']).where('job_id', '=', this.jobId).execute();
    const loads = this.playlistIds.map((id) => {
      const l = loadRows.find((r) => r.playlist_id === id);
      return l ? { sessions: Number(l.sessions), included: Number(l.included), running: Number(l.running) } : null;
    });
    const rows = await db
      .selectFrom('sessions as s')
      .leftJoin('session_verdicts as v', 'v.session_id', 's.id')
      .select(['s.id', 's.playlist_id', 's.preview', 's.created_at', 's.completed_at', 'v.included'])
      .where('s.job_id', '=', this.jobId)
      .execute();
    const sessions = this.sessions.map(({ id }) => {
      const r = rows.find((x) => x.id === id);
      return r
        ? { playlist: this.position(r.playlist_id), preview: r.preview === 1, createdAt: r.created_at, completed: r.completed_at !== null, included: r.included === null ? null : r.included === 1 }
        : null;
    });
    return { sweptUntil: jobLoads?.swept_until ?? null, loads, sessions, unknownSessions: rows.filter((r) => !this.ordinalOf.has(r.id)).length };
  }
}

/**
 * The counts a recount from the sessions gives (playlist-loads.ts rebuildLoads): each playlist's sessions ever,
 * those completed and included (no verdict yet counts as included), those uncompleted created after the sweep point.
 */
export function recount(state: ArrivalState): ArrivalState['loads'] {
  if (state.sweptUntil === null) return state.loads.map(() => null);
  return state.loads.map((_, position) => {
    const own = state.sessions.filter((s): s is NonNullable<typeof s> => s !== null && !s.preview && s.playlist === position);
    return {
      sessions: own.length,
      included: own.filter((s) => s.completed && s.included !== false).length,
      running: own.filter((s) => !s.completed && s.createdAt > state.sweptUntil!).length,
    };
  });
}

/** A difference between the two databases, or counts that are not a recount's; the message holds the whole history. */
export class ArrivalMismatch extends Error {}

/** What the runs went through (a generator that stopped reaching a case would leave its count at 0). */
export type Coverage = Map<string, number>;

function note(coverage: Coverage, what: string): void {
  coverage.set(what, (coverage.get(what) ?? 0) + 1);
}

/**
 * Plays `commands` on a new job on each database (the first is the reference), the fake clock (vi.useFakeTimers
 * with Date faked) set to ARRIVALS_START, and after each step compares the answers and the states (toEqual's
 * semantics through `equal`), and checks the reference's counts against a recount. Throws ArrivalMismatch; returns
 * the answers (the same on both).
 */
export async function playOnBoth(
  storages: readonly [Storage, Storage],
  jobId: string,
  spec: ArrivalJob,
  commands: readonly Command[],
  opts: { seed: number; equal: (a: unknown, b: unknown) => boolean; coverage?: Coverage },
): Promise<Outcome[]> {
  vi.setSystemTime(ARRIVALS_START);
  const runners = storages.map((s) => new Runner(s, jobId, spec)) as [Runner, Runner];
  for (const r of runners) await r.create();
  const names = storages.map((s) => s.dialect);
  const log: string[] = [];
  const fail = (step: number, what: string, a: unknown, b: unknown) => {
    throw new ArrivalMismatch(
      `${what} after step ${step} (seed ${opts.seed}, job ${JSON.stringify(spec)}):\n${log.join('\n')}\n${names[0]}: ${JSON.stringify(a)}\n${names[1]}: ${JSON.stringify(b)}`,
    );
  };
  let before = await runners[0].state();
  const answers: Outcome[] = [];
  for (const [step, cmd] of commands.entries()) {
    if (cmd.op === 'tick') vi.setSystemTime(Date.now() + cmd.ms);
    const a = await runners[0].run(cmd);
    const b = await runners[1].run(cmd);
    answers.push(a);
    log.push(`${step}: ${JSON.stringify(cmd)} -> ${JSON.stringify(a)}${opts.equal(a, b) ? '' : ` / ${names[1]} ${JSON.stringify(b)}`}`);
    if (!opts.equal(a, b)) fail(step, 'the answers differ', a, b);
    const [sa, sb] = [await runners[0].state(), await runners[1].state()];
    if (!opts.equal(sa, sb)) fail(step, 'the stored states differ', sa, sb);
    // Both copies could agree and both be wrong: the kept counts must also be what a recount gives.
    if (!opts.equal(sa.loads, recount(sa))) fail(step, `the counts are not a recount's`, sa.loads, recount(sa));
    if (sa.unknownSessions !== 0) fail(step, 'a session was stored that no answer named', sa, sb);
    // And a new participant's playlist must be the one leastLoaded's rule picks from those counts.
    const loads = decisionLoads(cmd, a, sa);
    if (loads && leastLoadedPosition(loads) !== a.playlist) fail(step, `the playlist is not leastLoaded's (position ${leastLoadedPosition(loads)})`, a, loads);
    if (opts.coverage) noteStep(opts.coverage, cmd, a, sa, before);
    before = sa;
  }
  return answers;
}

/**
 * The loads a new arrival chose from (the counts after it, its own sweep done, less the session it added), when it
 * opened a session on a playlist it did not name; null otherwise.
 */
function decisionLoads(cmd: Command, outcome: Outcome, after: ArrivalState) {
  if (cmd.op !== 'arrive' || cmd.pick !== null || outcome.resumed !== false || !after.loads.every((l) => l !== null)) return null;
  return (after.loads as Array<{ sessions: number; included: number; running: number }>).map((l, i) =>
    i === outcome.playlist ? { ...l, sessions: l.sessions - 1, running: l.running - 1 } : l,
  );
}

const loadOf = (l: { included: number; running: number }) => l.included + l.running;

/** leastLoaded's rule (playlist-loads.ts) on positions: the lowest load, then the fewest sessions ever, then the first. */
function leastLoadedPosition(loads: ReadonlyArray<{ sessions: number; included: number; running: number }>): number {
  let best = 0;
  loads.forEach((l, i) => {
    const b = loads[best]!;
    if (loadOf(l) < loadOf(b) || (loadOf(l) === loadOf(b) && l.sessions < b.sessions)) best = i;
  });
  return best;
}

/** Which cases a step reached. */
function noteStep(coverage: Coverage, cmd: Command, outcome: Outcome, after: ArrivalState, before: ArrivalState): void {
  if (typeof outcome.refused === 'string') note(coverage, `${cmd.op} refused: ${outcome.refused}`);
  if (cmd.op === 'arrive' || cmd.op === 'preview') {
    if (outcome.resumed === true) note(coverage, `${cmd.op} resumed${cmd.op === 'arrive' && cmd.who === null ? ' by token' : ''}`);
    if (outcome.resumed === false) note(coverage, `${cmd.op} opened`);
    if (before.sweptUntil === null && outcome.refused === undefined) note(coverage, 'arrival on an uncounted job');
  }
  // A choice between playlists of equal load that the fewest sessions ever decided (leastLoaded's tie-break).
  const loads = decisionLoads(cmd, outcome, after);
  const chosen = loads?.[outcome.playlist as number];
  if (loads && chosen && loads.some((l) => loadOf(l) === loadOf(chosen) && l.sessions > chosen.sessions)) note(coverage, 'tie on load broken by sessions');
  if (after.sessions.some((s) => s !== null && !s.completed && !s.preview && after.sweptUntil !== null && s.createdAt <= after.sweptUntil)) note(coverage, 'an unfinished session swept off running');
  if (outcome.stored === true) note(coverage, `verdict ${outcome.included ? 'included' : 'excluded'}`);
  if (typeof outcome.tombstones === 'number' && (outcome.sessions as number) > 0) note(coverage, outcome.tombstones > 0 ? 'completed session withdrawn' : 'unfinished session withdrawn');
}
