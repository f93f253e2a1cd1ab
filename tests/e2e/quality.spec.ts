/**
 * Quality control in Chromium (docs/quality.md), with the default rules: a straight-liner who misses the
 * trapping image, a careful participant, and a careful participant whose page drops frames (injected: every frame
 * of the stage comes 230 ms late once its refresh is measured) all get their code. The server rejects the first
 * with those two reasons in words, approves and includes the second, approves the third and excludes it from the
 * analysis (its exposures were not the frames asked for); `decisions` lists them for MTurk and Prolific; the
 * playlist of the rejected and excluded sessions goes to the next participant, and once every playlist has its
 * included observer the next one sees "study is full".
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { decisionsCommand } from '../../src/server/cli-quality.js';
import { parseCsv } from '../../testkit/csv.js';
import { expect, test } from './fixtures';
import { eventually } from './participantSteps';
import { openInstructions, voteDialog } from './protocols-steps';

const JOB = 'quality-acr';
const IMAGE = '/instructions/acr.svg';

/** Take the whole test, answering each stimulus with `level(source)`; resolves with the playlist and the code shown. */
async function takeTest(page: Page, link: string, level: (source: string) => string) {
  const { playlist } = await openInstructions(page, link, IMAGE);
  await page.getByRole('button', { name: 'Go to the test' }).click();
  const total = playlist.stimulis.length;
  for (const [i, stimulus] of playlist.stimulis.entries()) {
    const modal = await voteDialog(page, i, total);
    await modal.getByRole('button', { name: level(stimulus.source!), exact: true }).click();
    await modal.getByRole('button', { name: 'Submit' }).click();
  }
  const code = page.locator('#verification-code');
  await expect(code).toHaveText(/^[A-Z3-9]{12}$/, { timeout: 30_000 });
  return { playlist, code: (await code.textContent())! };
}

/** What a careful participant answers: the trapping image says "select Bad"; the pristine images are Excellent. */
const careful = (source: string) => (source.includes('trap-bad') ? 'Bad' : source.includes('_ref') ? 'Excellent' : 'Poor');

/**
 * A slow machine: once the stage has measured its refresh (its debug probe is installed), every animation frame
 * comes 230 ms late, so frames are dropped and duration-ended steps overshoot by several frames.
 */
function dropFrames(page: Page) {
  return page.addInitScript(() => {
    const native = window.requestAnimationFrame.bind(window);
    const nativeCancel = window.cancelAnimationFrame.bind(window);
    const pending = new Map<number, { timer: number; frame: number | null }>();
    let nextId = 1_000_000;
    window.requestAnimationFrame = (callback) => {
      if (!(window as { __glimpseStage?: unknown }).__glimpseStage) return native(callback);
      const id = nextId++;
      const entry = { timer: 0, frame: null as number | null };
      entry.timer = window.setTimeout(() => {
        entry.frame = native((time) => {
          pending.delete(id);
          callback(time);
        });
      }, 230);
      pending.set(id, entry);
      return id;
    };
    window.cancelAnimationFrame = (id) => {
      const entry = pending.get(id);
      if (!entry) return nativeCancel(id);
      clearTimeout(entry.timer);
      if (entry.frame !== null) nativeCancel(entry.frame);
      pending.delete(id);
    };
  });
}

type Outcome = { rule: string; status: string; detail: string };

test('a straight-liner is rejected with reasons in words, a careful participant approved and included, dropped frames excluded but approved; decisions, rebalancing, study full', async ({ browser, page, glimpse, participant }) => {
  test.setTimeout(300_000);
  const mturk = { platform: 'mturk', workerId: `W${participant.pid}`, assignmentId: `A${participant.pid}`, hitId: 'H-quality', turkSubmitTo: 'https://workersandbox.mturk.com' };
  // MTurk's own submit page is not reachable here: the form post is answered locally.
  await page.route('https://workersandbox.mturk.com/**', (route) => route.fulfill({ status: 200, body: 'ok' }));
  const straight = await takeTest(page, participant.linkTo(JOB, mturk), () => 'Fair');

  const second = await browser.newPage();
  const carefulPid = `c${participant.pid}`;
  const accepted = await takeTest(second, participant.linkTo(JOB, { PROLIFIC_PID: carefulPid, SESSION_ID: `sub-${carefulPid}` }), careful);
  expect(accepted.playlist.playlistId).not.toBe(straight.playlist.playlistId);

  const slowPage = await browser.newPage();
  await dropFrames(slowPage);
  const slowPid = `d${participant.pid}`;
  const slow = await takeTest(slowPage, participant.linkTo(JOB, { PROLIFIC_PID: slowPid, SESSION_ID: `sub-${slowPid}` }), careful);
  // The playlist of the rejected session, which still needs an included observer.
  expect(slow.playlist.playlistId).toBe(straight.playlist.playlistId);

  const verdictOf = (sessionId: number) =>
    eventually(
      () => glimpse.db.selectFrom('session_verdicts').selectAll().where('session_id', '=', sessionId).executeTakeFirst(),
      (row) => row !== undefined,
    );
  const failedOf = (row: { outcomes: string }) => (JSON.parse(row.outcomes) as Outcome[]).filter((o) => o.status === 'failed');
  const straightVerdict = (await verdictOf(straight.playlist.session_id!))!;
  expect(straightVerdict).toMatchObject({ accepted: 0, included: 0 });
  // The payment rules it failed (a rejected session is excluded anyway, whatever its page's timing).
  const failed = failedOf(straightVerdict).filter((o) => ['traps', 'minVariance', 'gold', 'attention', 'minCorrelation', 'minTrialMs'].includes(o.rule));
  expect(failed.map((o) => o.rule)).toEqual(['traps', 'minVariance']);
  expect(failed[1]!.detail).toBe('variance 0 of 4 ratings (minimum 0.15)');
  const carefulVerdict = (await verdictOf(accepted.playlist.session_id!))!;
  expect(carefulVerdict, carefulVerdict.outcomes).toMatchObject({ accepted: 1, included: 1 });
  // The slow page: approved (a slow computer is not the participant's fault), excluded for its exposures.
  const slowVerdict = (await verdictOf(slow.playlist.session_id!))!;
  expect(slowVerdict).toMatchObject({ accepted: 1, included: 0 });
  expect(failedOf(slowVerdict).map((o) => o.rule)).toEqual(['maxMistimedShare']);
  expect(failedOf(slowVerdict)[0]!.detail).toMatch(/^\d of 5 timed answers mistimed .*: stimulus \d+: S: \d+ of 30 frames \(± 1 allowed\)/);
  const slowSteps = (await glimpse.db.selectFrom('ratings').select('timing').where('session_id', '=', slow.playlist.session_id!).execute()).flatMap(
    (r) => (JSON.parse(r.timing!) as { plays: Array<Array<{ droppedFrames: number }>> }).plays.flat(),
  );
  expect(slowSteps.reduce((n, step) => n + step.droppedFrames, 0)).toBeGreaterThan(0);
  // The trap answer of the careful participant was stored as Bad (index 4), as its check expects.
  const trap = accepted.playlist.stimulis.find((s) => s.source!.includes('trap-bad'))!;
  expect(await glimpse.db.selectFrom('ratings').select('value').where('session_id', '=', accepted.playlist.session_id!).where('stimulus_id', '=', trap.stimuliId).executeTakeFirst()).toEqual({ value: 4 });

  // decisions, as `npm run cli -- decisions quality-acr --platform ... --out DIR` writes them.
  const out = await mkdtemp(join(tmpdir(), 'glimpse-e2e-decisions-'));
  const lines: string[] = [];
  for (const platform of ['mturk', 'prolific']) {
    expect(await decisionsCommand(glimpse.storage, [JOB, '--platform', platform, '--out', join(out, platform)], (l) => lines.push(l), (l) => (lines.push(l), 1))).toBe(0);
  }
  const mturkRows = parseCsv(await readFile(join(out, 'mturk/decisions.csv'), 'utf8'));
  expect(mturkRows).toHaveLength(1);
  expect(mturkRows[0]).toMatchObject({ HITId: 'H-quality', AssignmentId: mturk.assignmentId, WorkerId: mturk.workerId, Approve: '' });
  expect(mturkRows[0]!.Reject).toMatch(
    /Reasons: Missed a question that said what to answer \(1 of 1 stimulus missed: stimulus \d+: answered Fair, expected Bad\); Gave \(almost\) the same answer to every question \(variance 0 of 4 ratings/,
  );
  expect(parseCsv(await readFile(join(out, 'mturk/block-list.csv'), 'utf8')).map((r) => r.WorkerId)).toEqual([mturk.workerId]);
  expect(parseCsv(await readFile(join(out, 'prolific/approve.csv'), 'utf8'))).toEqual([
    { participant_id: carefulPid, submission_id: `sub-${carefulPid}`, study_id: 'e2e-study', session_id: String(accepted.playlist.session_id) },
    { participant_id: slowPid, submission_id: `sub-${slowPid}`, study_id: 'e2e-study', session_id: String(slow.playlist.session_id) },
  ]);
  expect(parseCsv(await readFile(join(out, 'prolific/reject.csv'), 'utf8'))).toEqual([]);
  expect(await readFile(join(out, 'prolific/bonus.csv'), 'utf8')).toBe(`${carefulPid},0.40\r\n${slowPid},0.40\r\n`);
  const verdicts = parseCsv(await readFile(join(out, 'prolific/verdicts.csv'), 'utf8'));
  expect(verdicts.map((v) => [v.participant, v.payment, v.analysis])).toEqual([
    [carefulPid, 'approve', 'include'],
    [slowPid, 'approve', 'exclude'],
  ]);
  expect(verdicts[1]!.analysis_reasons).toMatch(/^Stimuli shown for the wrong duration on this device \(/);
  expect(lines).toContain('mturk: 0 to approve, 1 to reject');
  expect(lines).toContain('prolific: 2 to approve, 0 to reject');

  // The next participant gets the playlist whose sessions were rejected and excluded.
  const third = await browser.newPage();
  const { playlist } = await openInstructions(third, participant.linkTo(JOB, { PROLIFIC_PID: `t${participant.pid}` }), IMAGE);
  expect(playlist.playlistId).toBe(straight.playlist.playlistId);

  // Every playlist now has its observer (included, or running): the next participant is told the study is full
  // when their session would start (Continue on the eligibility screen: a visit holds no place, issue 35).
  const fourth = await browser.newPage();
  await fourth.goto(participant.linkTo(JOB, { PROLIFIC_PID: `f${participant.pid}` }));
  await fourth.getByRole('button', { name: 'Continue' }).click();
  await expect(fourth.locator('#fail-studyFull h1')).toHaveText(
    'This study is full: it already has all the participants it needs. Thank you for your interest. Please return your submission without completing it.',
  );
  expect(await glimpse.db.selectFrom('session_identities').select('session_id').where('prolific_pid', '=', `f${participant.pid}`).execute()).toEqual([]);
  for (const p of [second, slowPage, third, fourth]) await p.close();
});
