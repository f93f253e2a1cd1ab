/**
 * Participant continuity in Chromium (README "Participant continuity"): a reload resumes the session at the next
 * unanswered stimulus with the logs of both loads stored; an answer whose post failed waits in the IndexedDB outbox
 * and is sent with its original key on the next load; an answer the server already stored (its acknowledgement
 * lost) is taken as saved even after Modify, and the page says which answer counts.
 */
import { E2E_JOBS, expect, test } from './fixtures';
import { eventually, ratingsOf, sessionLogsOf, startTest, vote, type VoteLabels } from './participantSteps';

const LABELS: VoteLabels = { first: 'First Image', last: 'Last Image', replay: 'Replay Images' };
const JOB = E2E_JOBS.pair_comparison;

/** From a reloaded page: the eligibility screen, then straight to the instructions with the resume notice. */
async function resume(page: import('@playwright/test').Page, next: number, total: number) {
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.locator('#resume-notice')).toHaveText(`Welcome back: your answers are saved, and the test goes on at image ${next} of ${total}.`);
  await page.getByRole('button', { name: 'Go to the test' }).click();
}

test('a reload resumes the same session at the next unanswered stimulus; the logs of both loads are stored', async ({ page, glimpse, participant }) => {
  const playlist = await startTest(page, participant.linkTo(JOB));
  await vote(page, 0, 2, { replays: 0, choice: 'last' }, LABELS);
  await expect(page.locator('#trial')).toHaveAttribute('data-index', '1', { timeout: 30_000 });
  await expect.poll(async () => (await ratingsOf(glimpse, playlist.session_id!)).length).toBe(1);

  await page.reload();
  await resume(page, 2, 2);
  // The first stimulus is not shown again: the dialog opens on 2 / 2.
  await vote(page, 1, 2, { replays: 0, choice: 'first' }, LABELS);
  await expect(page.locator('#verification-code')).toHaveText(/^[A-Z3-9]{12}$/, { timeout: 30_000 });

  const sessions = await glimpse.db.selectFrom('sessions').select('id').where('job_id', '=', JOB).where('id', '>=', playlist.session_id!).execute();
  expect(sessions.filter((s) => s.id === playlist.session_id)).toHaveLength(1);
  expect((await participant.session(JOB))!.id).toBe(playlist.session_id);
  const ratings = await ratingsOf(glimpse, playlist.session_id!);
  expect(ratings.map((r) => [r.stimulus_id, r.value])).toEqual([
    [playlist.stimulis[0]!.stimuliId, 1],
    [playlist.stimulis[1]!.stimuliId, 0],
  ]);
  // The first page's logs came by beacon when it was reloaded, the second page's at the end.
  const logs = await eventually(() => sessionLogsOf(glimpse, playlist.session_id!), (rows) => rows.length >= 2);
  expect(logs).toHaveLength(2);
  const states = logs.map((l) => (JSON.parse(l.body).logStates as Array<{ state: string }>).map((s) => s.state));
  expect(states[0]).toContain('Test');
  expect(states[0]).not.toContain('Result');
  expect(states[1]).toEqual(expect.arrayContaining(['Eligibility', 'Instruction', 'Loading', 'Test']));
  expect(states[1]!.at(-1)).toBe('Result');
});

test('an answer whose post failed waits in IndexedDB and is sent with its own key on the next load', async ({ page, glimpse, participant }) => {
  const keys: string[] = [];
  await page.route('**/api/ratings/', async (route) => {
    keys.push(route.request().headers()['idempotency-key'] ?? '');
    await route.abort('internetdisconnected');
  });
  const playlist = await startTest(page, participant.linkTo(JOB));
  await vote(page, 0, 2, { replays: 0, choice: 'last' }, LABELS);
  await expect(page.locator('#save-trouble')).toHaveText('Saving your answer… please check your connection.', { timeout: 20_000 });
  expect(await ratingsOf(glimpse, playlist.session_id!)).toEqual([]);
  const waiting = await page.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('glimpse-outbox');
        open.onsuccess = () => {
          const count = open.result.transaction('answers').objectStore('answers').count();
          count.onsuccess = () => resolve(count.result);
          count.onerror = () => reject(count.error);
        };
        open.onerror = () => reject(open.error);
      }),
  );
  expect(waiting).toBe(1);

  // The participant closes the tab and comes back later, connection restored.
  await page.unroute('**/api/ratings/');
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/ratings/')) sent.push(r.headers()['idempotency-key'] ?? '');
  });
  await page.reload();
  await expect.poll(async () => (await ratingsOf(glimpse, playlist.session_id!)).length, { timeout: 20_000 }).toBe(1);
  expect(sent[0]).toBe(keys[0]);
  const [stored] = await ratingsOf(glimpse, playlist.session_id!);
  expect(stored).toMatchObject({ stimulus_id: playlist.stimulis[0]!.stimuliId, value: 1, idempotency_key: keys[0] });
  await resume(page, 2, 2);
  await vote(page, 1, 2, { replays: 0, choice: 'first' }, LABELS);
  await expect(page.locator('#verification-code')).toHaveText(/^[A-Z3-9]{12}$/, { timeout: 30_000 });
  expect(await ratingsOf(glimpse, playlist.session_id!)).toHaveLength(2);
});

test('an answer stored whose acknowledgement was lost counts, even after Modify: the page moves on and says which', async ({ page, glimpse, participant }) => {
  let lose = true;
  await page.route('**/api/ratings/', async (route) => {
    if (!lose) return route.continue();
    // The server stores the rating; the browser never hears back (every automatic retry too).
    await route.fetch();
    await route.abort('connectionreset');
  });
  const playlist = await startTest(page, participant.linkTo(JOB));
  await vote(page, 0, 2, { replays: 0, choice: 'last' }, LABELS);
  await expect(page.locator('#save-trouble')).toBeVisible({ timeout: 20_000 });
  expect((await ratingsOf(glimpse, playlist.session_id!)).map((r) => r.value)).toEqual([1]);

  // The participant changes their mind and submits the other answer: the stored one counts, the test goes on.
  lose = false;
  const modal = page.locator('#vote-modal');
  await modal.getByRole('button', { name: 'Modify' }).click();
  await modal.getByRole('button', { name: 'First Image', exact: true }).click();
  await modal.getByRole('button', { name: 'Submit' }).click();
  await expect(page.locator('#kept-answer')).toHaveText('This answer was already saved: “Last Image” counts.');
  await expect(page.locator('#trial')).toHaveAttribute('data-index', '1', { timeout: 15_000 });
  await vote(page, 1, 2, { replays: 0, choice: 'first' }, LABELS);
  await expect(page.locator('#verification-code')).toHaveText(/^[A-Z3-9]{12}$/, { timeout: 30_000 });
  const ratings = await ratingsOf(glimpse, playlist.session_id!);
  expect(ratings.map((r) => [r.stimulus_id, r.value])).toEqual([
    [playlist.stimulis[0]!.stimuliId, 1],
    [playlist.stimulis[1]!.stimuliId, 0],
  ]);
});
