/**
 * Stopping for precision in Chromium (issue 38, docs/quality.md): the study `precision-acr` stops once every
 * stimulus's 95 % interval is within ± 0.8. Four scripted participants rate through the API, one grade apart from
 * the one before (Excellent, Good, …); the fifth takes the test in the browser, and with her answers each MOS has
 * a half-width of 0.68 (0.92 after four). The next participant is told the study is full and gets no session; the
 * console's overview shows the rule reached with its time, and the report states it.
 */
import { randomUUID } from 'node:crypto';
import { addUser, PASSWORD } from '../../testkit/console.js';
import { timingEnvelopeOf } from '../../testkit/participant-bodies.js';
import { expect, test } from './fixtures';
import { ACR_LEVELS, openInstructions, voteDialog } from './protocols-steps';

const JOB = 'precision-acr';

test('a study that stops for precision closes itself once every interval is within its target; the console and the report say so', async ({ browser, page, glimpse, participant }) => {
  test.setTimeout(180_000);
  // Participants 0–3, scripted: participant k answers level k mod 2 (Excellent, Good) to every stimulus.
  for (let k = 0; k < 4; k++) {
    const link = new URLSearchParams({ platform: 'prolific', PROLIFIC_PID: `${participant.pid}-${k}`, STUDY_ID: 'e2e-study', SESSION_ID: `s-${k}` });
    const playlist = (await (await page.request.get(`/api/getacr/${JOB}?${link}`)).json()) as { session_id: number; sessionToken: string; stimulis: Array<{ stimuliId: number; source: string }> };
    for (const s of playlist.stimulis) {
      const body = { stimuli_id: s.stimuliId, session_id: playlist.session_id, session_token: playlist.sessionToken, value: k % 2, nbReplay: 0, logs: null, timing: timingEnvelopeOf({ media: s.source }) };
      expect((await page.request.post('/api/ratings/', { data: body })).status()).toBe(201);
    }
    expect((await page.request.get(`/api/sessions/token/${playlist.sessionToken}`)).status()).toBe(200);
  }
  const reachedAt = async () => (await glimpse.db.selectFrom('jobs').select('precision_reached_at').where('id', '=', JOB).executeTakeFirstOrThrow()).precision_reached_at;
  expect(await reachedAt()).toBeNull();

  // Participant 4 in the browser: Excellent to both images.
  const { playlist } = await openInstructions(page, participant.linkTo(JOB), '/instructions/acr.svg');
  await page.getByRole('button', { name: 'Go to the test' }).click();
  for (let i = 0; i < playlist.stimulis.length; i++) {
    const modal = await voteDialog(page, i, playlist.stimulis.length);
    await modal.getByRole('button', { name: ACR_LEVELS[0], exact: true }).click();
    await modal.getByRole('button', { name: 'Submit' }).click();
  }
  await expect(page.locator('#verification-code')).toHaveText(/^[A-Z3-9]{12}$/, { timeout: 30_000 });
  await expect.poll(reachedAt).not.toBeNull();
  const firedAt = (await reachedAt())!;

  // The next participant: the study is full when her session would start, and none is created.
  const next = await browser.newPage();
  await next.goto(participant.linkTo(JOB, { PROLIFIC_PID: `n${participant.pid}` }));
  await next.getByRole('button', { name: 'Continue' }).click();
  await expect(next.locator('#fail-studyFull h1')).toHaveText(
    'This study is full: it already has all the participants it needs. Thank you for your interest. Please return your submission without completing it.',
  );
  expect(await glimpse.db.selectFrom('session_identities').select('session_id').where('prolific_pid', '=', `n${participant.pid}`).execute()).toEqual([]);
  await next.close();

  // The console says so, live.
  const email = `owner-${randomUUID()}@lab.example`;
  await addUser(glimpse.storage, email, { jobId: JOB, role: 'viewer' });
  const consolePage = await browser.newPage({ baseURL: glimpse.url });
  await consolePage.goto('/console');
  await consolePage.getByLabel('E-mail address').fill(email);
  await consolePage.getByLabel('Password').fill(PASSWORD);
  await consolePage.getByRole('button', { name: 'Sign in' }).click();
  await expect(consolePage.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await consolePage.goto(`/console/jobs/${JOB}`);
  await expect(consolePage.getByRole('heading', { name: 'Stopping for precision' })).toBeVisible();
  await expect(consolePage.locator('#precision')).toContainText("The study closes to new participants once every stimulus's 95% interval is within ± 0.80 on the MOS scale.");
  await expect(consolePage.locator('#precision-progress')).toHaveText('2 of 2 stimuli have reached it.');
  await expect(consolePage.locator('#precision-reached')).toContainText('the study takes no new participant; sessions in progress finish.');
  await expect(consolePage.locator('#precision-widest tbody tr')).toHaveCount(2);

  const { report } = (await (await consolePage.request.get(`/console/api/jobs/${JOB}/report.json`)).json()) as { report: { stopping: Record<string, unknown>; methods: string[] } };
  expect(report.stopping).toMatchObject({ scale: 'MOS', ciHalfWidth: 0.8, level: 0.95, reachedAt: firedAt, reached: 2, total: 2 });
  expect(report.methods).toContain(`Stopping rule: every stimulus's 95 % interval within ± 0.8 on the MOS scale; it closed the job to new participants at ${firedAt}.`);
  await consolePage.close();
});
