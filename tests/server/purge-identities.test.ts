import { beforeEach, expect, it } from 'vitest';
import { cli, useCliEnvironment } from '../../testkit/cli.js';
import { parseCsv } from '../../testkit/csv.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { takeTest } from '../../testkit/participants.js';
import { getPlaylist, participantData, useServer } from '../../testkit/server.js';
import { PAIR_STUDY, studyOf, writeStudy } from '../../testkit/studies.js';

const PAIR = '/api/getrandomtasks/fixture-pair';
const OTHER = '/api/getrandomtasks/other';
const LAST_YEAR = '2024-03-01T10:00:00.000Z';

describeEachDialect('CLI purge-identities', (dialect) => {
  const ctx = useServer(dialect);
  useCliEnvironment(ctx);
  beforeEach(async () => {
    await ctx().importStudy(PAIR_STUDY);
    await ctx().importStudy(await writeStudy(studyOf('pair_comparison', { id: 'other', playlists: 1, perPlaylist: 2 })));
  });

  const take = (query: string, opts?: Parameters<typeof takeTest>[3]) => takeTest(ctx().app, PAIR, query, opts);
  const startedLastYear = (...ids: number[]) => ctx().storage.db.updateTable('sessions').set({ created_at: LAST_YEAR }).where('id', 'in', ids).execute();
  const playlistStatus = async (path: string, query: string) => (await getPlaylist(ctx().app, path, query)).statusCode;

  it("deletes only the identities of that job's sessions started before the date; answers and export stay", async () => {
    const old1 = await take('platform=mturk&workerId=W1&assignmentId=A1&hitId=H1', { complete: true });
    const old2 = await take('platform=prolific&PROLIFIC_PID=P2&STUDY_ID=S2&SESSION_ID=X2');
    const old4 = await take('platform=mturk&workerId=W4', { complete: true });
    const new3 = await take('platform=mturk&workerId=W3', { complete: true });
    await take('platform=mturk&workerId=W5', { complete: true });
    const other = await takeTest(ctx().app, OTHER, 'platform=mturk&workerId=W1', { complete: true });
    await startedLastYear(old1.sessionId, old2.sessionId, old4.sessionId);
    // Two withdrawals leave tombstones: one for a session of last year, one for a recent session.
    expect((await cli(['withdraw', '--worker-id', 'W4'])).code).toBe(0);
    expect((await cli(['withdraw', '--worker-id', 'W5'])).code).toBe(0);
    const before = await participantData(ctx().storage);
    expect(before.withdrawals.map((w) => w.session_started_at)).toEqual([LAST_YEAR, expect.not.stringContaining('2024')]);

    const res = await cli(['purge-identities', 'fixture-pair', '--before', '2025-01-01']);
    expect(res).toMatchObject({ code: 0, err: '' });
    expect(res.out.split('\n')).toEqual([
      'job fixture-pair: 2 sessions started before 2025-01-01T00:00:00.000Z',
      'deleted 2 identity rows (platform ids, invitation emails) and 1 withdrawal record',
      'kept: sessions, ratings, screenings, session logs and browser checks, pseudonymous (a verification code still finds its session: withdraw --code)',
      'repeat-participant blocking no longer works for these sessions: a participant whose identity is purged gets a new session instead of ALREADY_COMPLETED if they open the job link again',
      '',
    ]);

    const after = await participantData(ctx().storage);
    expect(after.session_identities.map((i) => i.session_id)).toEqual([new3.sessionId, other.sessionId]);
    expect(after.session_identities).toEqual(before.session_identities.filter((i) => ![old1.sessionId, old2.sessionId].includes(i.session_id as number)));
    expect(after.withdrawals).toEqual([before.withdrawals[1]]);
    for (const table of ['sessions', 'ratings', 'screenings', 'session_logs', 'bchecks', 'consents'] as const) expect(after[table]).toEqual(before[table]);

    // The export still has every answer; the purged sessions just have empty platform columns.
    const rows = parseCsv((await cli(['export', 'fixture-pair'])).out);
    expect(rows.map((r) => Number(r.session_id))).toEqual([old1.sessionId, old1.sessionId, old2.sessionId, new3.sessionId, new3.sessionId]);
    expect(rows[0]).toMatchObject({ platform: 'mturk', worker_id: '', assignment_id: '', hit_id: '', value: '1', session_started_at: LAST_YEAR });
    expect(rows[2]).toMatchObject({ platform: 'prolific', prolific_pid: '', study_id: '', prolific_session_id: '', email: '' });
    expect(rows[3]).toMatchObject({ worker_id: 'W3' });
    expect(parseCsv((await cli(['export', 'other'])).out)[0]).toMatchObject({ worker_id: 'W1' });

    // Repeat blocking: gone for the purged sessions (as printed), intact for the others and the other job.
    expect(await playlistStatus(PAIR, 'platform=mturk&workerId=W1')).toBe(200);
    expect(await playlistStatus(PAIR, 'platform=mturk&workerId=W4')).toBe(200);
    expect(await playlistStatus(PAIR, 'platform=mturk&workerId=W3')).toBe(403);
    expect(await playlistStatus(PAIR, 'platform=mturk&workerId=W5')).toBe(403);
    expect(await playlistStatus(OTHER, 'platform=mturk&workerId=W1')).toBe(403);

    // The verification code still finds a purged session for a withdrawal.
    const withdrawn = await cli(['withdraw', '--code', old1.code!]);
    expect(withdrawn.out).toContain(`session ${old1.sessionId}, job fixture-pair (mturk), started ${LAST_YEAR}`);
    expect(withdrawn.out).toContain('no platform identity (purged)');
    expect(withdrawn.out).toContain('deleted in one transaction: 1 session, 2 ratings, 0 screenings, 1 session log, 0 identity rows');
  });

  it('without --before purges every session of the job; --dry-run deletes nothing; a second run finds nothing', async () => {
    await take('platform=mturk&workerId=W1', { complete: true });
    await take('platform=nantes&email=someone%40univ-nantes.fr');
    const other = await takeTest(ctx().app, OTHER, 'platform=prolific&PROLIFIC_PID=P1');
    const before = await participantData(ctx().storage);

    const dry = await cli(['purge-identities', 'fixture-pair', '--dry-run']);
    expect(dry.out.split('\n').slice(0, 2)).toEqual(['job fixture-pair: 2 sessions (all dates)', 'dry run, nothing deleted; would delete 2 identity rows (platform ids, invitation emails) and 0 withdrawal records']);
    expect(await participantData(ctx().storage)).toEqual(before);

    expect((await cli(['purge-identities', 'fixture-pair'])).out).toContain('deleted 2 identity rows');
    expect((await participantData(ctx().storage)).session_identities.map((i) => i.session_id)).toEqual([other.sessionId]);
    expect((await cli(['purge-identities', 'fixture-pair'])).out).toContain('deleted 0 identity rows');
  });

  it('reads --before as UTC, and fails with exit code 1 on a bad date, an unknown job or a missing job id', async () => {
    await take('platform=mturk&workerId=W1');
    const before = await participantData(ctx().storage);
    const zoned = await cli(['purge-identities', 'fixture-pair', '--before', '2025-06-01T14:00:00+02:00', '--dry-run']);
    expect(zoned.out).toContain('job fixture-pair: 0 sessions started before 2025-06-01T12:00:00.000Z');
    for (const bad of ['2025-02-30', '2025', '2025-06-01T12:00', 'yesterday']) {
      expect(await cli(['purge-identities', 'fixture-pair', '--before', bad])).toEqual({
        code: 1,
        out: '',
        err: `--before must be a date (YYYY-MM-DD, 00:00 UTC) or an ISO time with its zone (2025-06-01T12:00:00Z), got ${bad}\n`,
      });
    }
    expect(await cli(['purge-identities', 'nope'])).toMatchObject({ code: 1, err: 'no job nope\n' });
    expect((await cli(['purge-identities'])).err).toContain('purge-identities needs one job id');
    expect((await cli(['purge-identities', 'fixture-pair', 'other'])).code).toBe(1);
    expect((await cli(['purge-identities', 'fixture-pair', '--since', '2025-01-01'])).err).toContain("Unknown option '--since'");
    expect(await participantData(ctx().storage)).toEqual(before);
  });
});
