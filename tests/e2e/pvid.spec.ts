/**
 * Pair comparison (/pvid/{id}) journeys against the real server, database and Chromium: every categoryTest,
 * the stored values and replays, the verification code, the session logs, a repeat participant, and a rating post
 * that fails on the way back.
 */
import type { Page } from '@playwright/test';
import type { PresentationRecord } from '../../src/web/stage/types.js';
import { E2E_JOBS, E2E_VIDEO_PAIR_JOB, expect, test } from './fixtures';
import { askedPlays, eventually, ratingsOf, sessionLogsOf, startTest, vote, type VoteLabels, type VotePlan } from './participantSteps';

const IMAGE_LABELS: VoteLabels = { first: 'First Image', last: 'Last Image', replay: 'Replay Images' };

// web-pvid-seq is in large-loading mode (a Start Test button instead of the automatic start).
const CASES: Array<{ category: number; job: string; labels: VoteLabels; steps: string[]; largeLoading?: boolean }> = [
  { category: 1, job: E2E_JOBS.pair_comparison, labels: IMAGE_LABELS, steps: ['AB'] },
  { category: 2, job: 'web-pvid-seq', labels: IMAGE_LABELS, steps: ['A', 'gap', 'B'], largeLoading: true },
  { category: 3, job: E2E_VIDEO_PAIR_JOB, labels: { first: 'Left videos', last: 'Right videos', replay: 'Replay Videos' }, steps: ['AB'] },
  { category: 4, job: 'web-pvid-video-seq', labels: { first: 'First Video', last: 'Last Video', replay: 'Replay Videos' }, steps: ['A', 'gap', 'B'] },
];

// First stimulus: replayed once then "last"; second: "first" picked after a Modify.
const PLANS: VotePlan[] = [
  { replays: 1, choice: 'last' },
  { replays: 0, choice: 'first', modifyFirst: true },
];

/** Start the test at `link`, answer every stimulus as PLANS says (image labels), and wait for the code. */
async function completeTest(page: Page, link: string) {
  const playlist = await startTest(page, link);
  for (const [i, plan] of PLANS.entries()) await vote(page, i, PLANS.length, plan, IMAGE_LABELS);
  await expect(page.locator('#verification-code')).toBeVisible({ timeout: 30_000 });
  return playlist;
}

/** Media requests made after `since` is set: none may happen once the test has started. */
function watchMediaRequests(page: Page) {
  const state = { testStarted: false, duringTest: [] as string[] };
  page.on('request', (r) => {
    if (state.testStarted && r.url().includes('/resmedias/')) state.duringTest.push(r.url());
  });
  return state;
}

for (const c of CASES) {
  test(`categoryTest ${c.category}: the database holds exactly the answers clicked, and the code shown is the server's`, async ({ page, glimpse, participant, request }) => {
    const media = watchMediaRequests(page);
    const playlist = await startTest(page, participant.linkTo(c.job));
    expect(playlist.stimulis).toHaveLength(PLANS.length);

    await expect(page.getByText(/^Loading the \d+ media files\.\.\. \d\d:\d\d:\d\d - \d+\.\d Mo$/)).toBeVisible();
    if (c.largeLoading) {
      await expect(page.getByText('Test will start soon!')).toHaveCount(0);
      await page.getByRole('button', { name: 'Start Test' }).click();
    } else {
      await expect(page.getByText('Test will start soon!')).toBeVisible();
      await expect(page.getByRole('button', { name: 'Start Test' })).toHaveCount(0);
    }
    await expect(page.locator('#trial')).toBeAttached({ timeout: 30_000 });
    media.testStarted = true;
    if (c.category < 3) await expect(page.locator('#question')).toHaveText(/\?$/);
    else await expect(page.locator('#question')).toHaveCount(0);

    for (const [i, plan] of PLANS.entries()) await vote(page, i, PLANS.length, plan, c.labels);

    const code = page.locator('#verification-code');
    await expect(code).toHaveText(/^\S+$/, { timeout: 30_000 });
    const session = (await participant.session(c.job))!;
    expect(session.id).toBe(playlist.session_id);
    expect(await code.textContent()).toBe(session.verification_code);
    const api = await request.get(`/api/sessions/token/${playlist.sessionToken}`);
    expect((await api.json()).verification_code).toBe(session.verification_code);

    const ratings = await ratingsOf(glimpse, session.id);
    expect(ratings.map((r) => ({ stimulus: r.stimulus_id, value: r.value, nbReplay: r.nb_replay }))).toEqual(
      playlist.stimulis.map((s, i) => ({ stimulus: s.stimuliId, value: PLANS[i]!.choice === 'first' ? 0 : 1, nbReplay: PLANS[i]!.replays })),
    );
    // The frame-timing records of every play travel with the rating.
    for (const [i, rating] of ratings.entries()) {
      const timing = JSON.parse(rating.timing!) as { plays: PresentationRecord[][]; refreshMs: number };
      const asked = askedPlays(timing.plays);
      expect(asked).toHaveLength(PLANS[i]!.replays + 1);
      for (const play of asked) {
        expect(play.map((r) => r.label)).toEqual(c.steps);
        for (const record of play) expect(record.shownFrames).toBeGreaterThan(0);
      }
      expect(timing.refreshMs).toBeGreaterThan(0);
      // SPEC §3: the logs are the window-size text.
      expect(rating.logs).toMatch(/^inner:1280x720;outer:\d+x\d+;screen:\d+x\d+;fullscreen:[01]$/);
    }
    // The shown order follows `reversed`: the records name the media drawn first.
    const firstShown = (JSON.parse(ratings[1]!.timing!) as { plays: PresentationRecord[][] }).plays.at(-1)![0]!.media[0];
    const second = playlist.stimulis[1]!;
    expect(firstShown).toBe(second.reversed ? second.sourceB : second.sourceA);

    expect(media.duringTest).toEqual([]);
    const logs = await eventually(() => sessionLogsOf(glimpse, session.id), (rows) => rows.length > 0);
    expect(logs).toHaveLength(1);
    const body = JSON.parse(logs[0]!.body);
    expect(body.logStates.map((s: { state: string }) => s.state)).toEqual(['Landing', 'Eligibility', 'Instruction', 'Instruction', 'Loading', 'Test', 'Result']);
    expect(body.logMouseClick.some((click: { component_id: string }) => click.component_id === 'vote-submit')).toBe(true);

    // Closing the page now must not send them a second time (the beacon is for pages closed before the end).
    await page.close({ runBeforeUnload: true });
    await new Promise((r) => setTimeout(r, 1000));
    expect(await sessionLogsOf(glimpse, session.id)).toHaveLength(1);
  });
}

test('a repeat MTurk worker (same workerId) gets the already-completed screen and no new session', async ({ page, browser, participant, glimpse }) => {
  const mturk = { platform: 'mturk', workerId: `W${participant.pid}`, assignmentId: 'A1', hitId: 'H1', turkSubmitTo: 'https://workersandbox.mturk.com' };
  await completeTest(page, participant.linkTo(E2E_JOBS.pair_comparison, mturk));
  const sessions = () => glimpse.db.selectFrom('session_identities').selectAll().where('worker_id', '=', mturk.workerId).execute();
  expect(await sessions()).toHaveLength(1);

  const otherBrowser = await browser.newContext();
  const again = await otherBrowser.newPage();
  await again.goto(participant.linkTo(E2E_JOBS.pair_comparison, { ...mturk, PROLIFIC_PID: `other${participant.pid}`, assignmentId: 'A2' }));
  await expect(again.getByText('End of the test, you have already completed this version of the test', { exact: false })).toBeVisible();
  await expect(again.getByText('Please return this HIT.', { exact: false })).toBeVisible();
  expect(await sessions()).toHaveLength(1);
  await otherBrowser.close();
});

test('an accepted MTurk assignment ends with a Submit HIT form that posts the assignment and the code to MTurk', async ({ page, glimpse, participant }) => {
  const assignmentId = `A${participant.pid}`;
  const mturk = { platform: 'mturk', workerId: `W${participant.pid}`, assignmentId, hitId: 'H1', turkSubmitTo: 'https://workersandbox.mturk.com' };
  // Nothing leaves the machine: MTurk's endpoint is answered here, and what the browser posted is kept.
  const posted: Array<{ url: string; method: string; contentType: string; body: string }> = [];
  await page.route('https://workersandbox.mturk.com/**', async (route) => {
    const request = route.request();
    posted.push({ url: request.url(), method: request.method(), contentType: request.headers()['content-type'] ?? '', body: request.postData() ?? '' });
    await route.fulfill({ contentType: 'text/html', body: '<p>HIT received</p>' });
  });
  const playlist = await completeTest(page, participant.linkTo(E2E_JOBS.pair_comparison, mturk));
  const stored = await glimpse.db.selectFrom('sessions').select('verification_code').where('id', '=', playlist.session_id!).executeTakeFirstOrThrow();
  await expect(page.locator('#verification-code')).toHaveText(stored.verification_code!);

  const form = page.locator('form#mturk-submit');
  await expect(form).toHaveAttribute('method', 'POST');
  await expect(form).toHaveAttribute('action', 'https://workersandbox.mturk.com/mturk/externalSubmit');
  await expect(form.locator('input[type="hidden"][name="assignmentId"]')).toHaveValue(assignmentId);
  await expect(form.locator('input[type="hidden"][name="verification_code"]')).toHaveValue(stored.verification_code!);
  await expect(page.getByText('To finish, submit the HIT: your verification code is sent to MTurk with it.')).toBeVisible();
  await page.getByRole('button', { name: 'Submit HIT' }).click();

  await expect(page.getByText('HIT received')).toBeVisible();
  expect(posted).toHaveLength(1);
  expect(posted[0]).toMatchObject({ url: 'https://workersandbox.mturk.com/mturk/externalSubmit', method: 'POST', contentType: 'application/x-www-form-urlencoded' });
  expect([...new URLSearchParams(posted[0]!.body)]).toEqual([
    ['assignmentId', assignmentId],
    ['verification_code', stored.verification_code!],
  ]);
});

test('an MTurk link whose turkSubmitTo is not MTurk gets the code but no Submit HIT form', async ({ page, participant }) => {
  const mturk = { platform: 'mturk', workerId: `W${participant.pid}`, assignmentId: `A${participant.pid}`, hitId: 'H1', turkSubmitTo: 'https://www.mturk.com.evil.example' };
  await completeTest(page, participant.linkTo(E2E_JOBS.pair_comparison, mturk));
  await expect(page.locator('#verification-code')).toHaveText(/^\S+$/);
  await expect(page.locator('form#mturk-submit')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Submit HIT' })).toHaveCount(0);
});

test('a rating whose answer is lost on the way back is retried with the same key and stored once', async ({ page, glimpse, participant }) => {
  const keys: string[] = [];
  let calls = 0;
  await page.route('**/api/ratings/', async (route) => {
    calls += 1;
    keys.push(route.request().headers()['idempotency-key'] ?? '');
    if (calls === 1) {
      // The server stores the rating, but the participant's browser never hears back.
      await route.fetch();
      await route.abort('connectionreset');
    } else {
      await route.continue();
    }
  });
  const playlist = await completeTest(page, participant.linkTo(E2E_JOBS.pair_comparison));

  expect(calls).toBe(3);
  expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  expect(keys[1]).toBe(keys[0]);
  expect(keys[2]).not.toBe(keys[0]);
  const ratings = await ratingsOf(glimpse, playlist.session_id!);
  expect(ratings.map((r) => [r.stimulus_id, r.value])).toEqual(playlist.stimulis.map((s, i) => [s.stimuliId, PLANS[i]!.choice === 'first' ? 0 : 1]));
});

test('a rating post that keeps failing keeps the stimulus; submitting again stores it once', async ({ page, glimpse, participant }) => {
  const keys: string[] = [];
  let failing = true;
  await page.route('**/api/ratings/', async (route) => {
    keys.push(route.request().headers()['idempotency-key'] ?? '');
    if (failing) await route.abort('connectionrefused');
    else await route.continue();
  });
  const playlist = await startTest(page, participant.linkTo(E2E_JOBS.pair_comparison));
  await vote(page, 0, PLANS.length, { replays: 0, choice: 'last' }, IMAGE_LABELS);
  // The automatic retries fail too: back to the same stimulus, answer kept, Submit offered again.
  await expect.poll(() => keys.length, { timeout: 15_000 }).toBe(3);
  const trial = page.locator('#trial');
  await expect(trial).toHaveAttribute('data-status', 'responding');
  await expect(trial).toHaveAttribute('data-index', '0');
  // Not a silent Submit: the participant is told the answer is being saved and to check the connection.
  await expect(page.locator('#save-trouble')).toHaveText('Saving your answer… please check your connection.');
  expect(await ratingsOf(glimpse, playlist.session_id!)).toHaveLength(0);

  failing = false;
  await page.getByRole('button', { name: 'Submit' }).click();
  await expect(trial).toHaveAttribute('data-index', '1', { timeout: 15_000 });
  await expect(page.locator('#save-trouble')).toHaveCount(0);
  expect(new Set(keys).size).toBe(1);
  const ratings = await ratingsOf(glimpse, playlist.session_id!);
  expect(ratings.map((r) => [r.stimulus_id, r.value, r.nb_replay])).toEqual([[playlist.stimulis[0]!.stimuliId, 1, 0]]);
});

test('the session logs are sent with a beacon when the page is closed before the end', async ({ page, glimpse, participant }) => {
  const playlist = await startTest(page, participant.linkTo(E2E_JOBS.pair_comparison));
  await expect(page.locator('#trial')).toBeAttached({ timeout: 30_000 });
  await page.mouse.move(100, 100);
  await page.mouse.move(200, 150);
  await page.close({ runBeforeUnload: true });
  const logs = await eventually(() => sessionLogsOf(glimpse, playlist.session_id!), (rows) => rows.length > 0);
  expect(logs).toHaveLength(1);
  const body = JSON.parse(logs[0]!.body);
  expect(body.logStates.at(-1)).toMatchObject({ state: expect.stringMatching(/Loading|Test/) });
  expect(body.logDomSize[0]).toMatchObject({ inner: { width: 1280, height: 720 }, isfullScreen: true });
});

test('the end screen copies the code, says when it cannot, and links back to Prolific only when configured', async ({ page, context, participant }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await completeTest(page, participant.linkTo(E2E_JOBS.pair_comparison));
  const code = (await page.locator('#verification-code').textContent())!;
  await page.getByRole('button', { name: 'Copy code' }).click();
  await expect(page.getByText('Code copied')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(code);
  await expect(page.locator('#prolific-completion')).toHaveCount(0); // e2e-pvid configures no completionUrl

  // A browser that refuses both copy routes.
  await page.evaluate(() => {
    navigator.clipboard.writeText = () => Promise.reject(new DOMException('denied', 'NotAllowedError'));
    document.execCommand = () => false;
  });
  await page.getByRole('button', { name: 'Copy code' }).click();
  await expect(page.getByText('unable to copy text')).toBeVisible();
});

test('a media that fails to download is only logged: the test goes on and the rating says the stimulus was not shown', async ({ page, glimpse, participant }) => {
  let failed = '';
  await page.route('**/resmedias/**', async (route) => {
    if (!failed) {
      failed = new URL(route.request().url()).pathname.replace('/resmedias/', '');
      await route.abort('connectionreset');
    } else {
      await route.continue();
    }
  });
  const playlist = await completeTest(page, participant.linkTo(E2E_JOBS.pair_comparison));
  const broken = playlist.stimulis.findIndex((s) => s.sourceA === failed || s.sourceB === failed);
  expect(broken).toBeGreaterThanOrEqual(0);
  const ratings = await ratingsOf(glimpse, playlist.session_id!);
  expect(ratings).toHaveLength(PLANS.length);
  const errors = ratings.map((r) => (JSON.parse(r.timing!).mediaError as string | undefined) ?? null);
  expect(errors.filter((_, i) => i !== broken)).toEqual([null]);
  expect(errors[broken]).toContain(failed);
  expect(errors[broken]).toContain('missing');
  expect(ratings[broken]!.logs).toMatch(/;media:missing$/);
});
