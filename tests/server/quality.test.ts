import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { RatingReport } from '../../src/analysis/index.js';
import { jobReport } from '../../src/server/report/job-report.js';
import { placeRandomChecks } from '../../src/server/study/check-positions.js';
import { cli, useCliEnvironment } from '../../testkit/cli.js';
import { parseCsv } from '../../testkit/csv.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { sessionLogsOf, timingEnvelopeOf } from '../../testkit/participants.js';
import { countRows, getPlaylist, json, postJson, useServer, type GenericPlaylist } from '../../testkit/server.js';
import type { BubblePlaylistStimulus, PlaylistResponse } from '../../src/contract/playlist.js';
import { jobFields, studyOf, writeStudy } from '../../testkit/studies.js';

/**
 * Quality control (issue 12) on both databases: check declarations at import, verdicts stored when a session
 * completes, balancing that counts accepted sessions, the study-full answer, the platforms' decision lists,
 * the export's verdict columns and the report's exclusion of rejected sessions.
 */

const FILES = ['s1.png', 's2.png', 's3.png', 's4.png', 's5.png', 'trap.png', 'gold.png'];
let mediaDir = '';
beforeAll(async () => {
  mediaDir = await mkdtemp(join(tmpdir(), 'glimpse-quality-media-'));
  for (const [i, file] of FILES.entries()) {
    await sharp({ create: { width: 8, height: 6, channels: 3, background: { r: 30 * i, g: 90, b: 200 - 25 * i } } }).png().toFile(join(mediaDir, file));
  }
});

/** The truth of the careful participant, on the ACR scale (5 = Excellent). */
const TRUTH: Record<string, number> = { 's1.png': 5, 's2.png': 4, 's3.png': 3, 's4.png': 2, 's5.png': 1 };
const acrPlaylist = () => ({
  stimuli: [
    ...Object.keys(TRUTH).map((source) => ({ source })),
    // The trap image tells the participant to select Bad; the gold one is known to be Good (4) within ±1.
    { source: 'trap.png', check: { kind: 'trap', answer: 1 } },
    { source: 'gold.png', check: { kind: 'gold', answer: 4, tolerance: 1 } },
  ],
});
const acrStudy = (id: string, extra: Record<string, unknown> = {}) => ({ id, media: mediaDir, job: jobFields('absolute_category_rating'), playlists: [acrPlaylist()], ...extra });

/** The ACR score a careful participant gives a stimulus. */
const carefulScore = (source: string) => (source.endsWith('trap.png') ? 1 : source.endsWith('gold.png') ? 4 : TRUTH[source.split('/').pop()!]!);

describeEachDialect('quality control', (dialect) => {
  const ctx = useServer(dialect);
  useCliEnvironment(ctx);

  /** A participant through the API as the page does it: ratings with timing, session logs, then the code. */
  async function participate(path: string, query: string, score: (source: string) => number, opts: { answerAfterMs?: number; step?: Record<string, unknown> } = {}) {
    const res = await getPlaylist(ctx().app, path, query);
    expect(res.statusCode).toBe(200);
    const playlist = json<GenericPlaylist>(res);
    for (const s of playlist.stimulis) {
      const body = {
        stimuli_id: s.stimuliId,
        session_id: playlist.session_id,
        session_token: playlist.sessionToken,
        value: 5 - score(s.source!), // the ACR dialog stores the index, 0 = Excellent
        nbReplay: 0,
        logs: 'inner:1280x720;outer:1280x720;screen:1280x720;fullscreen:1',
        timing: timingEnvelopeOf({ media: s.source, answerAfterMs: opts.answerAfterMs, step: opts.step }),
      };
      expect((await postJson(ctx().app, '/api/ratings/', body)).statusCode).toBe(201);
    }
    const code = json<{ verification_code: string }>(await ctx().app.inject(`/api/sessions/token/${playlist.sessionToken}`)).verification_code;
    expect(code).toMatch(/^[A-Z3-9]{12}$/);
    expect((await postJson(ctx().app, '/api/sessionlogs/', sessionLogsOf(playlist.sessionToken!))).statusCode).toBe(201);
    return { playlist, code, sessionId: playlist.session_id! };
  }
  const verdictOf = (sessionId: number) => ctx().storage.db.selectFrom('session_verdicts').selectAll().where('session_id', '=', sessionId).executeTakeFirst();
  const failedRules = async (sessionId: number) => {
    const row = await verdictOf(sessionId);
    return (JSON.parse(row!.outcomes) as Array<{ rule: string; status: string }>).filter((o) => o.status === 'failed').map((o) => o.rule);
  };

  describe('check declarations at import', () => {
    it('refuses malformed gold, trap and attention declarations with the JSON path of each, and stores nothing', async () => {
      const study = acrStudy('bad-checks', {
        playlists: [
          {
            stimuli: [
              { source: 's1.png', check: { kind: 'gold', answer: 7 } },
              { source: 's2.png', check: { kind: 'golden', answer: 4 } },
              { source: 's3.png', check: { kind: 'trap', answer: 1, tolerance: 1 } },
              { source: 's4.png', check: { kind: 'attention', answer: 2, position: 'first' } },
              { source: 's5.png', check: { kind: 'gold', answer: 4, hint: 'good' } },
              { source: 'gold.png', check: { kind: 'gold' } },
            ],
            training: [{ source: 'trap.png', check: { kind: 'trap', answer: 1 } }],
          },
        ],
        quality: { rules: { minVariance: 0.2, traps: 'yes' } },
      });
      const res = await cli(['import', await writeStudy(study)]);
      expect(res.code).toBe(1);
      const problems = res.err.split('\n').filter((l) => l.startsWith('  $'));
      expect(problems).toEqual(
        expect.arrayContaining([
          '  $.playlists[0].stimuli[0].check.answer: must be <= 5',
          '  $.playlists[0].stimuli[1].check.kind: must be equal to one of the allowed values',
          '  $.playlists[0].stimuli[2].check.tolerance: a tolerance applies to gold stimuli only (a trap has one right answer)',
          '  $.playlists[0].stimuli[3].check.position: must be equal to constant',
          '  $.playlists[0].stimuli[4].check.hint: unknown field',
          '  $.playlists[0].stimuli[5].check.answer: required field is missing',
          '  $.playlists[0].training[0].check: gold, trap and attention checks belong among the test stimuli: training answers are not stored',
          '  $.quality.rules.traps: must be boolean',
        ]),
      );
      expect(await ctx().storage.db.selectFrom('jobs').select('id').execute()).toEqual([]);
    });

    it('refuses a tolerance on a choice and rating-only rules on a pair job', async () => {
      const study = {
        id: 'bad-pair-checks',
        media: mediaDir,
        job: jobFields('pair_comparison'),
        playlists: [{ stimuli: [{ sourceA: 's1.png', sourceB: 's2.png', check: { kind: 'gold', answer: 'A', tolerance: 1 } }, { sourceA: 's3.png', sourceB: 's4.png', check: { kind: 'trap', answer: 'C' } }] }],
        quality: { rules: { minVariance: 0.15, minCorrelation: false } },
      };
      const res = await cli(['import', await writeStudy(study)]);
      expect(res.code).toBe(1);
      expect(res.err).toContain('  $.playlists[0].stimuli[0].check.tolerance: pair_comparison answers are choices: a gold answer is right or wrong, without tolerance');
      expect(res.err).toMatch(/ {2}\$\.playlists\[0\]\.stimuli\[1\]\.check\.answer: must be equal to one of the allowed values/);
      expect(res.err).toContain('  $.quality.rules.minVariance: applies to rating scales only; pair_comparison is a paired protocol (remove it or set false)');
      expect(res.err).not.toContain('minCorrelation');
      expect(await ctx().storage.db.selectFrom('jobs').select('id').execute()).toEqual([]);
    });

    it('places random-position checks the same way on every import, and the playlist never shows a check', async () => {
      const study = acrStudy('random-checks', {
        playlists: [{ stimuli: [...Object.keys(TRUTH).map((source) => ({ source })), { source: 'trap.png', check: { kind: 'trap', answer: 1, position: 'random' } }] }],
      });
      const file = await writeStudy(study);
      expect((await cli(['import', file])).code).toBe(0);
      expect((await cli(['import', file])).out).toContain('unchanged job random-checks');
      const res = await getPlaylist(ctx().app, '/api/getacr/random-checks', 'platform=prolific&PROLIFIC_PID=RC1');
      const served = json<GenericPlaylist>(res).stimulis;
      for (const s of served) expect(Object.keys(s).sort()).toEqual(['reversed', 'source', 'stimuliId']);
      const sources = served.map((s) => s.source!.split('/').pop());
      const placed = placeRandomChecks(study as never).playlists[0]!.stimuli.map((s) => (s as { source: string }).source);
      expect(sources).toEqual(placed);
      expect([...sources].sort()).toEqual([...Object.keys(TRUTH), 'trap.png'].sort());
      // Another study id draws its own places; over many ids the trap lands everywhere, not always last.
      const positions = new Set(Array.from({ length: 40 }, (_, i) => placeRandomChecks({ ...study, id: `r${i}` } as never).playlists[0]!.stimuli.findIndex((s) => (s as { check?: unknown }).check)));
      expect(positions.size).toBeGreaterThanOrEqual(5);
    });
  });

  describe('verdicts', () => {
    it('approves and includes a careful participant, rejects a straight-liner who misses the trap with those two reasons in words; both get their code', async () => {
      await ctx().importStudy(await writeStudy(acrStudy('qc-acr')));
      const careful = await participate('/api/getacr/qc-acr', 'platform=prolific&PROLIFIC_PID=CAREFUL&STUDY_ID=S1&SESSION_ID=SUB1', carefulScore);
      const straight = await participate('/api/getacr/qc-acr', 'platform=prolific&PROLIFIC_PID=STRAIGHT&STUDY_ID=S1&SESSION_ID=SUB2', () => 3);
      expect(await verdictOf(careful.sessionId)).toMatchObject({ accepted: 1, included: 1, job_id: 'qc-acr' });
      expect(await verdictOf(straight.sessionId)).toMatchObject({ accepted: 0, included: 0 });
      expect(await failedRules(straight.sessionId)).toEqual(['traps', 'minVariance']);

      // The same code on a later call, and the verdict is not changed by asking again.
      const again = json<{ verification_code: string }>(await ctx().app.inject(`/api/sessions/token/${straight.playlist.sessionToken}`));
      expect(again.verification_code).toBe(straight.code);

      // `screen` judges again and prints both verdicts with the reasons in words; the trap's answer as the
      // participant saw it (3 is Fair on the ACR scale, stored as index 2), not a score beside a stored index.
      const screened = await cli(['screen', 'qc-acr']);
      expect(screened.code).toBe(0);
      expect(screened.out).toContain(`${careful.sessionId}\tapprove\tinclude\t\n`);
      expect(screened.out).toMatch(
        new RegExp(`${straight.sessionId}\\treject\\texclude\\tMissed a question that said what to answer \\(1 of 1 stimulus missed: stimulus \\d+: answered Fair, expected Bad\\); Gave \\(almost\\) the same answer to every question \\(variance 0 of 5 ratings \\(minimum 0\\.15\\)\\)`),
      );
      expect(screened.out).toContain('2 completed sessions: 1 approved, 1 rejected; 1 included in the analysis, 1 excluded');

      // Export: both verdict columns on every answer row, the check columns on the check stimuli.
      const rows = parseCsv((await cli(['export', 'qc-acr'])).out);
      const straightRows = rows.filter((r) => Number(r.session_id) === straight.sessionId);
      expect(new Set(straightRows.map((r) => `${r.session_verdict} ${r.session_analysis}`))).toEqual(new Set(['rejected excluded']));
      expect(straightRows[0]!.session_verdict_reasons).toMatch(/^Missed a question that said what to answer \(.*\); Gave \(almost\) the same answer to every question \(variance 0 of 5 ratings/);
      const trapRow = (sessionId: number) => rows.find((r) => Number(r.session_id) === sessionId && r.source === 'trap.png')!;
      expect(trapRow(straight.sessionId)).toMatchObject({ check_kind: 'trap', check_answer: '1', check_passed: '0' });
      expect(trapRow(careful.sessionId)).toMatchObject({ check_kind: 'trap', check_answer: '1', check_passed: '1', session_verdict: 'approved', session_analysis: 'included', session_verdict_reasons: '' });
      expect(rows.find((r) => r.source === 's1.png')).toMatchObject({ check_kind: '', check_passed: '' });
    });

    it('dropped frames or a wrong exposure exclude a session from the analysis but never reject it; holds and clicks do not count', async () => {
      await ctx().importStudy(await writeStudy(acrStudy('qc-timing', { quality: { bonus: { amount: '0.20' } } })));
      const slow = await participate('/api/getacr/qc-timing', 'platform=prolific&PROLIFIC_PID=SLOW&STUDY_ID=S1&SESSION_ID=SUBSLOW', carefulScore, { step: { droppedFrames: 4, shownFrames: 63 } });
      // 4 dropped frames moved the offset 3 frames late: the exposure is wrong.
      expect(await verdictOf(slow.sessionId)).toMatchObject({ accepted: 1, included: 0 });
      expect(await failedRules(slow.sessionId)).toEqual(['maxMistimedShare']);
      // One frame over on a step of 60 is within the tolerance; a face held until the answer and a click-ended image
      // are not exposures: however many frames they dropped, the session is included.
      const within = await participate('/api/getacr/qc-timing', 'platform=prolific&PROLIFIC_PID=WITHIN', carefulScore, { step: { shownFrames: 61, droppedFrames: 1 } });
      const held = await participate('/api/getacr/qc-timing', 'platform=prolific&PROLIFIC_PID=HELD', carefulScore, { step: { endedBy: 'answer', requestedFrames: null, shownFrames: 300, droppedFrames: 25 } });
      const clicked = await participate('/api/getacr/qc-timing', 'platform=prolific&PROLIFIC_PID=CLICKED', carefulScore, { step: { endedBy: 'click', shownFrames: 40, droppedFrames: 9 } });
      for (const p of [within, held, clicked]) expect(await verdictOf(p.sessionId)).toMatchObject({ accepted: 1, included: 1 });

      const out = await mkdtemp(join(tmpdir(), 'glimpse-timing-decisions-'));
      expect((await cli(['decisions', 'qc-timing', '--platform', 'prolific', '--out', out])).out).toContain('prolific: 4 to approve, 0 to reject');
      expect(parseCsv(await readFile(join(out, 'approve.csv'), 'utf8')).map((r) => r.participant_id)).toContain('SLOW');
      expect(await readFile(join(out, 'bonus.csv'), 'utf8')).toContain('SLOW,0.20');
      const verdicts = parseCsv(await readFile(join(out, 'verdicts.csv'), 'utf8'));
      expect(verdicts.find((v) => v.participant === 'SLOW')).toMatchObject({ payment: 'approve', payment_reasons: '', analysis: 'exclude' });
      expect(verdicts.find((v) => v.participant === 'SLOW')!.analysis_reasons).toMatch(/^Stimuli shown for the wrong duration on this device \(7 of 7 timed answers mistimed \(100 %, maximum 10 %\): stimulus \d+: stimulus: 63 of 60 frames \(± 1 allowed\)/);

      // The report leaves the excluded session out and says so; --include excluded keeps it.
      const report = await jobReport(ctx().storage, 'qc-timing', { mediaDir: ctx().mediaDir, resamples: 0 });
      expect(report.votes.observers).toBe(3);
      expect(report.notes).toContain('Sessions excluded for technical reasons: 1, left out (--include excluded keeps them).');
      const kept = await jobReport(ctx().storage, 'qc-timing', { mediaDir: ctx().mediaDir, resamples: 0, include: { excluded: true } });
      expect(kept.votes.observers).toBe(4);
      expect(kept.notes).toContain('Sessions excluded for technical reasons: 1, kept (--include excluded).');
    });

    it('rejects answers faster than the minimum trial time, and applies the rules the study sets', async () => {
      await ctx().importStudy(await writeStudy(acrStudy('qc-fast', { quality: { rules: { minTrialMs: 1000, traps: false } } })));
      const fast = await participate('/api/getacr/qc-fast', 'platform=prolific&PROLIFIC_PID=FAST', carefulScore, { answerAfterMs: 800 });
      expect(await failedRules(fast.sessionId)).toEqual(['minTrialMs']);
      const straight = await participate('/api/getacr/qc-fast', 'platform=prolific&PROLIFIC_PID=STRAIGHT2', () => 3);
      expect(await failedRules(straight.sessionId)).toEqual(['minVariance']);
    });

    it('judges the visual tests from the session logs that arrive after the code', async () => {
      await ctx().importStudy(await writeStudy(acrStudy('qc-visual', { job: jobFields('absolute_category_rating', { visualTests: ['acuity'] }) })));
      const p = await participate('/api/getacr/qc-visual', 'platform=prolific&PROLIFIC_PID=V1', carefulScore);
      // sessionLogsOf logs no visual step: rejected.
      expect(await failedRules(p.sessionId)).toEqual(['visualTests']);
      const logs = { ...sessionLogsOf(p.playlist.sessionToken!), logStates: [{ state: 'Eligibility', status: 'visual', time: 1 }, { state: 'Instruction', status: 'welcome', time: 2 }] };
      expect((await postJson(ctx().app, '/api/sessionlogs/', logs)).statusCode).toBe(201);
      expect(await verdictOf(p.sessionId)).toMatchObject({ accepted: 1 });
    });
  });

  describe('balancing and the study-full screen', () => {
    it('gives the next participant the playlist whose session was rejected, then answers STUDY_FULL and stores no session', async () => {
      const job = jobFields('absolute_category_rating', { allowPlaylistChoice: true });
      await ctx().importStudy(await writeStudy(acrStudy('qc-full', { job, playlists: [acrPlaylist(), acrPlaylist()], quality: { targetAcceptedPerPlaylist: 1 } })));
      const first = await participate('/api/getacr/qc-full', 'platform=prolific&PROLIFIC_PID=F1', () => 3); // rejected
      const second = await participate('/api/getacr/qc-full', 'platform=prolific&PROLIFIC_PID=F2', carefulScore);
      expect(second.playlist.playlistId).not.toBe(first.playlist.playlistId);
      // Playlist 1 has one rejected session: it still needs its accepted observer.
      const third = await participate('/api/getacr/qc-full', 'platform=prolific&PROLIFIC_PID=F3', carefulScore);
      expect(third.playlist.playlistId).toBe(first.playlist.playlistId);

      const sessions = await countRows(ctx().storage, 'sessions');
      const full = await getPlaylist(ctx().app, '/api/getacr/qc-full', 'platform=prolific&PROLIFIC_PID=F4');
      expect(full.statusCode).toBe(403);
      expect(json(full)).toMatchObject({ error: 'STUDY_FULL' });
      const preview = await getPlaylist(ctx().app, '/api/getacr/qc-full', 'platform=mturk&assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE');
      expect(json(preview)).toMatchObject({ error: 'STUDY_FULL' });
      const named = await getPlaylist(ctx().app, '/api/getacr/qc-full', `platform=prolific&PROLIFIC_PID=F5&playlist_id=${first.playlist.playlistId}`);
      expect(json(named)).toMatchObject({ error: 'STUDY_FULL' });
      expect(await countRows(ctx().storage, 'sessions')).toBe(sessions);
    });

    it('counts a running session against the target until its lease ends', async () => {
      await ctx().importStudy(await writeStudy(acrStudy('qc-running', { quality: { targetAcceptedPerPlaylist: 1 } })));
      expect((await getPlaylist(ctx().app, '/api/getacr/qc-running', 'platform=prolific&PROLIFIC_PID=R1')).statusCode).toBe(200);
      expect(json(await getPlaylist(ctx().app, '/api/getacr/qc-running', 'platform=prolific&PROLIFIC_PID=R2'))).toMatchObject({ error: 'STUDY_FULL' });
      // Past the lease (an hour later) the running session is taken as abandoned: the slot reopens.
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(Date.now() + 61 * 60_000);
        expect((await getPlaylist(ctx().app, '/api/getacr/qc-running', 'platform=prolific&PROLIFIC_PID=R2')).statusCode).toBe(200);
      } finally {
        vi.useRealTimers();
      }
    });
  });

  describe('decisions for the platforms', () => {
    it('writes Prolific approve/reject/bonus/block lists and MTurk decisions, bonus and block lists', async () => {
      await ctx().importStudy(await writeStudy(acrStudy('qc-decisions', { quality: { bonus: { amount: '0.50', reason: 'Careful work' }, rejectionMessage: 'Sorry, your answers failed our checks.' } })));
      const good = await participate('/api/getacr/qc-decisions', 'platform=prolific&PROLIFIC_PID=PGOOD&STUDY_ID=ST&SESSION_ID=SUBGOOD', carefulScore);
      const bad = await participate('/api/getacr/qc-decisions', 'platform=prolific&PROLIFIC_PID=PBAD&STUDY_ID=ST&SESSION_ID=SUBBAD', () => 3);
      const mgood = await participate('/api/getacr/qc-decisions', 'platform=mturk&workerId=WGOOD&assignmentId=AGOOD&hitId=H1', carefulScore);
      await participate('/api/getacr/qc-decisions', 'platform=mturk&workerId=WBAD&assignmentId=ABAD&hitId=H1', () => 3);

      const out = await mkdtemp(join(tmpdir(), 'glimpse-decisions-'));
      const prolific = await cli(['decisions', 'qc-decisions', '--platform', 'prolific', '--out', join(out, 'prolific')]);
      expect(prolific.code).toBe(0);
      expect(prolific.out).toContain('prolific: 1 to approve, 1 to reject');
      expect(prolific.out).toContain(`skipped session ${mgood.sessionId}: came from mturk`);
      const read = (file: string) => readFile(join(out, file), 'utf8');
      expect(parseCsv(await read('prolific/approve.csv'))).toEqual([{ participant_id: 'PGOOD', submission_id: 'SUBGOOD', study_id: 'ST', session_id: String(good.sessionId) }]);
      const [reject] = parseCsv(await read('prolific/reject.csv'));
      expect(reject).toMatchObject({ participant_id: 'PBAD', submission_id: 'SUBBAD', study_id: 'ST', session_id: String(bad.sessionId), rejection_category: 'FAILED_CHECK' });
      expect(reject!.message).toMatch(
        /^Sorry, your answers failed our checks\. Reasons: Missed a question that said what to answer \(1 of 1 stimulus missed: .*\); Gave \(almost\) the same answer to every question \(variance 0 of 5 ratings \(minimum 0\.15\)\)\./,
      );
      expect(reject!.message.length).toBeGreaterThanOrEqual(100);
      expect(await read('prolific/bonus.csv')).toBe('PGOOD,0.50\r\n');
      expect(await read('prolific/block-list.txt')).toBe('PBAD\n');

      const mturk = await cli(['decisions', 'qc-decisions', '--platform', 'mturk', '--out', join(out, 'mturk')]);
      expect(mturk.out).toContain('mturk: 1 to approve, 1 to reject');
      const decisions = parseCsv(await read('mturk/decisions.csv'));
      expect(decisions.map((d) => [d.HITId, d.AssignmentId, d.WorkerId, d.Approve])).toEqual([
        ['H1', 'AGOOD', 'WGOOD', 'x'],
        ['H1', 'ABAD', 'WBAD', ''],
      ]);
      expect(decisions[0]!.Reject).toBe('');
      expect(decisions[1]!.Reject).toMatch(/^Sorry, your answers failed our checks\. Reasons: Missed a question that said what to answer .*Gave \(almost\) the same answer/);
      expect(decisions[1]!.Reject).not.toMatch(/traps|minVariance/);
      expect(parseCsv(await read('mturk/bonus.csv'))).toEqual([{ WorkerId: 'WGOOD', AssignmentId: 'AGOOD', BonusAmount: '0.50', Reason: 'Careful work' }]);
      expect(parseCsv(await read('mturk/block-list.csv'))).toEqual([{ WorkerId: 'WBAD', Reason: 'Failed the quality checks of a previous study of ours' }]);

      expect((await cli(['decisions', 'qc-decisions', '--platform', 'nantes', '--out', out])).err).toContain('--platform must be prolific or mturk; got nantes');
    });
  });

  it('the report leaves rejected sessions out by default, says who and why in words, and keeps them with --include rejected', async () => {
    await ctx().importStudy(await writeStudy(acrStudy('qc-report')));
    for (let i = 0; i < 3; i++) await participate('/api/getacr/qc-report', `platform=prolific&PROLIFIC_PID=G${i}`, carefulScore);
    const bad = await participate('/api/getacr/qc-report', 'platform=prolific&PROLIFIC_PID=B1', () => 3);
    const report = (await jobReport(ctx().storage, 'qc-report', { mediaDir: ctx().mediaDir, resamples: 0 })) as RatingReport;
    expect(report.votes.observers).toBe(3);
    expect(report.stimuli.find((s) => s.stimulus === 's1.png')).toMatchObject({ n: 3, mos: 5 });
    expect(report.quality!.sessions).toEqual({ completed: 4, approved: 3, rejected: 1, included: 3, excluded: 1, notJudged: 0, incomplete: 0, kept: 3 });
    expect(report.quality!.observers.find((o) => o.observer === String(bad.sessionId))).toMatchObject({
      payment: 'reject',
      analysis: 'exclude',
      inReport: false,
      failed: [{ rule: 'traps', decides: 'payment' }, { rule: 'minVariance', decides: 'payment' }],
    });
    expect(report.notes).toContain('Rejected sessions: 1, left out (--include rejected keeps them).');

    const kept = (await jobReport(ctx().storage, 'qc-report', { mediaDir: ctx().mediaDir, resamples: 0, include: { rejected: true } })) as RatingReport;
    expect(kept.votes.observers).toBe(4);
    expect(kept.stimuli.find((s) => s.stimulus === 's1.png')).toMatchObject({ n: 4, mos: 4.5 });

    const out = await mkdtemp(join(tmpdir(), 'glimpse-qc-report-'));
    expect((await cli(['report', 'qc-report', '--out', out, '--resamples', '0'])).code).toBe(0);
    const html = await readFile(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<strong>3 sessions in this report.</strong> Of 4 completed sessions, 3 approved and 1 rejected for payment (left out of everything below)');
    expect(html).toContain('Gave (almost) the same answer to every question (variance 0 of 5 ratings (minimum 0.15))');
    expect(parseCsv(await readFile(join(out, 'quality-observers.csv'), 'utf8')).find((r) => r.observer === String(bad.sessionId))).toMatchObject({
      payment: 'reject',
      analysis: 'exclude',
      in_report: 'false',
      failed_rules: 'traps minVariance',
    });
    const keptOut = await mkdtemp(join(tmpdir(), 'glimpse-qc-report-kept-'));
    expect((await cli(['report', 'qc-report', '--out', keptOut, '--resamples', '0', '--include', 'rejected'])).code).toBe(0);
    expect(JSON.parse(await readFile(join(keptOut, 'report.json'), 'utf8')).votes.observers).toBe(4);
    expect((await cli(['report', 'qc-report', '--out', keptOut, '--include', 'everyone'])).err).toContain('--include takes rejected, excluded or all; got everyone');
  });

  it('the bubble report analyses its completed sessions: a display that dropped frames but kept its exposure is included', async () => {
    await ctx().importStudy(await writeStudy(studyOf('bubble', { id: 'qc-bubble', playlists: 1, perPlaylist: 1 })));
    const mouse = { mediaA: [{ x: 1, y: 2, t: 3, vt: 0 }, { x: 4, y: 5, t: 60, vt: 0 }], mediaB: [{ x: 7, y: 8, t: 9, vt: 0 }] };
    // A 7-second display (420 frames) shown exactly, with the 9 late frames a software renderer drops.
    const timing = timingEnvelopeOf({ step: { label: 'A', requestedFrames: 420, shownFrames: 420, droppedFrames: 9 } });
    const take = async (pid: string, complete: boolean) => {
      const p = json<PlaylistResponse<BubblePlaylistStimulus>>(await getPlaylist(ctx().app, '/api/getbubble/qc-bubble', `ft=1&platform=prolific&PROLIFIC_PID=${pid}`));
      const body = { stimuli_id: p.stimulis[0]!.stimuli_id, session_id: p.session_id, session_token: p.sessionToken, mouse_logs: mouse, screening_no: 1, logs: null, timing };
      expect((await postJson(ctx().app, '/api/bubblescreenings/', body)).statusCode).toBe(201);
      if (complete) expect((await ctx().app.inject(`/api/sessions/token/${p.sessionToken}`)).statusCode).toBe(200);
      return p.session_id!;
    };
    const completed = [await take('BB1', true), await take('BB2', true)];
    await take('BB3', false);
    for (const id of completed) expect(await verdictOf(id)).toMatchObject({ accepted: 1, included: 1 });
    const report = await jobReport(ctx().storage, 'qc-bubble', { mediaDir: ctx().mediaDir, resamples: 0 });
    expect(report.quality!.sessions).toMatchObject({ completed: 2, approved: 2, included: 2, excluded: 0, incomplete: 1, kept: 3 });
    expect(report.votes.observers).toBe(3);
    expect(report.quality!.observers.filter((o) => o.inReport && o.payment === 'approve').map((o) => Number(o.observer))).toEqual(completed);
  });

  it('a report with every session rejected still answers: what is missing, who was left out and how to keep them', async () => {
    await ctx().importStudy(await writeStudy(acrStudy('qc-all-rejected')));
    for (let i = 0; i < 2; i++) await participate('/api/getacr/qc-all-rejected', `platform=prolific&PROLIFIC_PID=AR${i}`, () => 3);
    const out = await mkdtemp(join(tmpdir(), 'glimpse-qc-all-rejected-'));
    const res = await cli(['report', 'qc-all-rejected', '--out', out, '--resamples', '0']);
    expect(res.code).toBe(0);
    const json = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    expect(json.unavailable).toEqual([
      {
        section: 'Results',
        missing: 'no usable rating votes. 2 sessions were left out by quality control (see "Observers kept and why"); `--include rejected` or `--include excluded` keeps them.',
        // The same as facts: the console words them in its language.
        because: { missing: { code: 'noRatingVotes' }, leftOut: 2 },
      },
    ]);
    expect(json.notes[0]).toBe('No results: no usable rating votes. 2 sessions were left out by quality control (see "Observers kept and why"); `--include rejected` or `--include excluded` keeps them.');
    expect(json.quality.sessions).toMatchObject({ completed: 2, rejected: 2, kept: 0 });
    expect(json.notes).toContain('Rejected sessions: 2, left out (--include rejected keeps them).');
    const html = await readFile(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<strong>Results: not computed.</strong> Missing: no usable rating votes. 2 sessions were left out by quality control');
    expect(parseCsv(await readFile(join(out, 'quality-observers.csv'), 'utf8')).map((r) => r.payment)).toEqual(['reject', 'reject']);
    // With the rejected sessions kept, the same job gives its results, still saying they were rejected.
    const kept = await cli(['report', 'qc-all-rejected', '--out', out, '--resamples', '0', '--include', 'rejected']);
    expect(kept.code).toBe(0);
    const keptJson = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    expect(keptJson.unavailable).toBeUndefined();
    expect(keptJson.stimuli.find((s: { stimulus: string }) => s.stimulus === 's1.png')).toMatchObject({ n: 2, mos: 3 });
    expect(keptJson.notes).toContain('Rejected sessions: 2, kept (--include rejected).');
  });
});
