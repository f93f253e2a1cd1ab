/**
 * Quality control in Chromium (README "Quality control"): a straight-liner who misses the trapping image and a
 * careful participant both get their code; the server rejects the first with exactly those two reasons and accepts
 * the second; `decisions` lists them for MTurk and Prolific; the playlist of the rejected session goes to the next
 * participant, and once every playlist has its accepted observer the next one sees "study is full".
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

test('a straight-liner who misses the trap is rejected, a careful participant accepted; decisions, rebalancing, study full', async ({ browser, page, glimpse, participant }) => {
  test.setTimeout(240_000);
  const mturk = { platform: 'mturk', workerId: `W${participant.pid}`, assignmentId: `A${participant.pid}`, hitId: 'H-quality', turkSubmitTo: 'https://workersandbox.mturk.com' };
  // MTurk's own submit page is not reachable here: the form post is answered locally.
  await page.route('https://workersandbox.mturk.com/**', (route) => route.fulfill({ status: 200, body: 'ok' }));
  const straight = await takeTest(page, participant.linkTo(JOB, mturk), () => 'Fair');

  const second = await browser.newPage();
  const carefulPid = `c${participant.pid}`;
  const accepted = await takeTest(second, participant.linkTo(JOB, { PROLIFIC_PID: carefulPid, SESSION_ID: `sub-${carefulPid}` }), careful);
  expect(accepted.playlist.playlistId).not.toBe(straight.playlist.playlistId);

  const verdictOf = (sessionId: number) =>
    eventually(
      () => glimpse.db.selectFrom('session_verdicts').selectAll().where('session_id', '=', sessionId).executeTakeFirst(),
      (row) => row !== undefined,
    );
  const straightVerdict = (await verdictOf(straight.playlist.session_id!))!;
  const failed = (JSON.parse(straightVerdict.outcomes) as Array<{ rule: string; status: string; detail: string }>).filter((o) => o.status === 'failed');
  expect(straightVerdict.accepted).toBe(0);
  expect(failed.map((o) => o.rule)).toEqual(['traps', 'minVariance']);
  expect(failed[1]!.detail).toBe('variance 0 of 2 ratings (minimum 0.15)');
  expect(await verdictOf(accepted.playlist.session_id!)).toMatchObject({ accepted: 1 });
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
  expect(mturkRows[0]!.Reject).toMatch(/Failed: traps \(1 of 1 stimulus missed: stimulus \d+ \(expected 1, answered 3\)\); minVariance \(variance 0 of 2 ratings/);
  expect(parseCsv(await readFile(join(out, 'mturk/block-list.csv'), 'utf8')).map((r) => r.WorkerId)).toEqual([mturk.workerId]);
  expect(parseCsv(await readFile(join(out, 'prolific/approve.csv'), 'utf8'))).toEqual([
    { participant_id: carefulPid, submission_id: `sub-${carefulPid}`, study_id: 'e2e-study', session_id: String(accepted.playlist.session_id) },
  ]);
  expect(parseCsv(await readFile(join(out, 'prolific/reject.csv'), 'utf8'))).toEqual([]);
  expect(await readFile(join(out, 'prolific/bonus.csv'), 'utf8')).toBe(`${carefulPid},0.40\r\n`);
  expect(lines).toContain('mturk: 0 to approve, 1 to reject');
  expect(lines).toContain('prolific: 1 to approve, 0 to reject');

  // The next participant gets the playlist whose only session was rejected.
  const third = await browser.newPage();
  const { playlist } = await openInstructions(third, participant.linkTo(JOB, { PROLIFIC_PID: `t${participant.pid}` }), IMAGE);
  expect(playlist.playlistId).toBe(straight.playlist.playlistId);

  // Every playlist now has its observer (accepted, or running): the next participant is told the study is full
  // as soon as the playlist is asked for (on the eligibility screen, once the checks pass).
  const fourth = await browser.newPage();
  await fourth.goto(participant.linkTo(JOB, { PROLIFIC_PID: `f${participant.pid}` }));
  await expect(fourth.locator('#fail-studyFull h1')).toHaveText(
    'This study is full: it already has all the participants it needs. Thank you for your interest. Please return your submission without completing it.',
  );
  expect(await glimpse.db.selectFrom('session_identities').select('session_id').where('prolific_pid', '=', `f${participant.pid}`).execute()).toEqual([]);
  for (const p of [second, third, fourth]) await p.close();
});
