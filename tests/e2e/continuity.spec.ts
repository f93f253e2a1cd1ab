/**
 * Participant continuity in Chromium (docs/data-safety.md "Participant continuity"): a reload resumes the session at
 * the next unanswered stimulus with the logs of both loads stored; an answer whose post failed waits in the IndexedDB
 * outbox and is sent with its original key on the next load; an answer the server already stored (its acknowledgement
 * lost) is taken as saved even after Modify, and the page says which answer counts. Issue 35: two participants in
 * one browser, a visitor who holds nothing before Continue, paused and draft links, and Back within the study.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import type { PlaylistResponse, PlaylistStimulus } from '../../src/contract/playlist.js';
import { E2E_JOBS, expect, test, type GlimpseServer } from './fixtures';
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

/**
 * Issue 35 on one study of its own (continuity-shared: its status is changed here, and nobody else's sessions count):
 * a shared computer, a visitor who has not passed eligibility, a draft's link, and the Back button.
 */
const SHARED = 'continuity-shared';
type Platform = 'prolific' | 'mturk' | 'nantes';

/** A participant link of the shared study for `who` on `platform` (their platform id: PROLIFIC_PID, workerId, email). */
function sharedLink(platform: Platform, who: string): string {
  const ids: Record<Platform, Record<string, string>> = {
    prolific: { PROLIFIC_PID: who, STUDY_ID: 'shared-study', SESSION_ID: `s-${who}` },
    mturk: { workerId: who, assignmentId: `a-${who}`, hitId: 'shared-hit', turkSubmitTo: 'https://www.mturk.com' },
    nantes: { email: `${who}@lab.example` },
  };
  return `/pvid/${SHARED}?${new URLSearchParams({ platform, ...ids[platform] })}`;
}

/** The sessions of the shared study whose platform id is `who`'s. */
function sessionsOf(glimpse: GlimpseServer, platform: Platform, who: string) {
  const column = { prolific: 'session_identities.prolific_pid', mturk: 'session_identities.worker_id', nantes: 'session_identities.email' } as const;
  return glimpse.db
    .selectFrom('sessions')
    .innerJoin('session_identities', 'session_identities.session_id', 'sessions.id')
    .select(['sessions.id', 'sessions.completed_at'])
    .where('sessions.job_id', '=', SHARED)
    .where(column[platform], '=', platform === 'nantes' ? `${who}@lab.example` : who)
    .execute();
}

const unstartedVisits = async (glimpse: GlimpseServer) =>
  Number((await glimpse.db.selectFrom('visits').select((eb) => eb.fn.countAll().as('n')).where('job_id', '=', SHARED).where('started_at', 'is', null).executeTakeFirstOrThrow()).n);

const ALREADY_COMPLETED: Record<Platform, string> = {
  prolific: 'End of the test, you have already completed this version of the test',
  mturk: 'End of the test, you have already completed this version of the test. Please return this HIT.',
  nantes: 'Fin du test, vous avez déjà complété cette version du test',
};
const CONTINUE: Record<Platform, string> = { prolific: 'Continue', mturk: 'Continue', nantes: 'Continuer' };

/**
 * Opens `who`'s link: the eligibility screen with its visit logged and no session; then Continue starts the session.
 * Resolves with the playlist the page received.
 */
async function visitThenStart(page: Page, glimpse: GlimpseServer, platform: Platform, who: string): Promise<PlaylistResponse<PlaylistStimulus>> {
  const visited = page.waitForResponse((r) => r.url().includes(`/api/visits/${SHARED}?`));
  const before = await unstartedVisits(glimpse);
  await page.goto(sharedLink(platform, who));
  expect((await visited).status()).toBe(201);
  await expect(page.getByRole('button', { name: CONTINUE[platform] })).toBeVisible();
  // On the eligibility screen: a visit, no session (no playlist slot, no lease).
  expect(await unstartedVisits(glimpse)).toBe(before + 1);
  expect(await sessionsOf(glimpse, platform, who)).toEqual([]);
  const started = page.waitForResponse((r) => r.url().includes(`/api/getrandomtasks/${SHARED}?`));
  await page.getByRole('button', { name: CONTINUE[platform] }).click();
  const playlist = (await (await started).json()) as PlaylistResponse<PlaylistStimulus>;
  expect(await unstartedVisits(glimpse)).toBe(before);
  expect((await sessionsOf(glimpse, platform, who)).map((s) => s.id)).toEqual([playlist.session_id]);
  return playlist;
}

/** The participant's answers, sent as the page sends them (the lab's consent form is consent.spec.ts's subject). */
async function completeByApi(page: Page, playlist: PlaylistResponse<PlaylistStimulus>): Promise<void> {
  for (const s of playlist.stimulis) {
    const body = { stimuli_id: s.stimuliId, session_id: playlist.session_id, session_token: playlist.sessionToken, value: 0, nbReplay: 0, logs: null };
    expect((await page.request.post('/api/ratings/', { data: body })).status()).toBe(201);
  }
  expect((await page.request.get(`/api/sessions/token/${playlist.sessionToken}`)).status()).toBe(200);
}

for (const platform of ['prolific', 'mturk', 'nantes'] as const) {
  test(`two participants in one browser (${platform}): the second gets their own session, the first is still refused`, async ({ page, glimpse }) => {
    const tag = randomUUID().slice(0, 8);
    const [first, second] = [`first${tag}`, `second${tag}`];
    const firstPlaylist = await visitThenStart(page, glimpse, platform, first);
    if (platform === 'nantes') {
      await completeByApi(page, firstPlaylist);
    } else {
      await page.getByLabel('I have read and I accept the').check();
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByRole('button', { name: 'Go to the test' }).click();
      await vote(page, 0, 2, { replays: 0, choice: 'last' }, LABELS);
      await vote(page, 1, 2, { replays: 0, choice: 'first' }, LABELS);
      await expect(page.locator('#verification-code')).toHaveText(/^[A-Z3-9]{12}$/, { timeout: 30_000 });
    }
    expect((await sessionsOf(glimpse, platform, first))[0]!.completed_at).not.toBeNull();

    // The next person at the same computer, with their own id: the eligibility screen, then a session of their own.
    const secondPlaylist = await visitThenStart(page, glimpse, platform, second);
    expect(secondPlaylist).toMatchObject({ resumed: false, answered_stimuli: [] });
    expect(secondPlaylist.session_id).not.toBe(firstPlaylist.session_id);
    await expect(page.getByText(ALREADY_COMPLETED[platform])).toHaveCount(0);

    // The first person's link in that browser is still refused, at the visit, before any Continue.
    await page.goto(sharedLink(platform, first));
    await expect(page.locator('#fail-alreadyCompleted')).toHaveText(ALREADY_COMPLETED[platform]);
    expect(await sessionsOf(glimpse, platform, first)).toHaveLength(1);
    expect(await sessionsOf(glimpse, platform, second)).toHaveLength(1);
  });
}

test('a paused study tells the next person at a shared computer it is paused; a draft says it is not open yet', async ({ page, glimpse }) => {
  const tag = randomUUID().slice(0, 8);
  const first = await visitThenStart(page, glimpse, 'prolific', `before${tag}`);
  await completeByApi(page, first);
  const setStatus = (status: 'open' | 'paused' | 'draft') => glimpse.db.updateTable('jobs').set({ status }).where('id', '=', SHARED).execute();
  try {
    await setStatus('paused');
    await page.goto(sharedLink('prolific', `after${tag}`));
    await expect(page.locator('#fail-studyPaused')).toHaveText('This study is paused for a moment: it takes no new participants right now. Please try again later.');
    await setStatus('draft');
    await page.goto(sharedLink('prolific', `early${tag}`));
    await expect(page.locator('#fail-studyNotOpenYet')).toHaveText('This study is not open yet. Please try again later. Researchers: try it with a preview link from the console.');
    await page.goto(sharedLink('nantes', `early${tag}`));
    await expect(page.locator('#fail-studyNotOpenYet')).toHaveText("Cette étude n'est pas encore ouverte. Veuillez réessayer plus tard. Chercheurs : essayez-la avec un lien d'aperçu de la console.");
    await expect(page.getByRole('button', { name: 'Continuer' })).toHaveCount(0);
  } finally {
    await setStatus('open');
  }
  expect(await sessionsOf(glimpse, 'prolific', `after${tag}`)).toEqual([]);
});

test('Back stays inside the study: no answer lost or sent twice, Forward changes nothing, the page says so', async ({ page, glimpse, participant }) => {
  const link = participant.linkTo(JOB);
  const started = page.waitForResponse((r) => r.url().includes(`/api/getrandomtasks/${JOB}?`));
  await page.goto(link);
  await page.getByRole('button', { name: 'Continue' }).click();
  const playlist = (await (await started).json()) as PlaylistResponse<PlaylistStimulus>;
  const here = new URL(page.url());
  const notice = page.locator('#history-notice');
  const NOTICE = 'The study cannot go back a step: it goes on from here, and every answer you gave is kept.';

  // On the welcome screen, Back: the same page, the same screen, and the notice.
  await page.goBack();
  expect(page.url()).toBe(here.href);
  await expect(page.getByRole('heading', { name: 'Welcome (e2e-pvid)' })).toBeVisible();
  await expect(notice).toHaveText(NOTICE);
  await page.getByLabel('I have read and I accept the').check();
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(notice).toHaveCount(0);
  await page.getByRole('button', { name: 'Go to the test' }).click();

  // An answer, then Back: still the test, on the second image; the first answer stored once.
  await vote(page, 0, 2, { replays: 0, choice: 'last' }, LABELS);
  await expect(page.locator('#trial')).toHaveAttribute('data-index', '1', { timeout: 30_000 });
  await expect.poll(async () => (await ratingsOf(glimpse, playlist.session_id!)).length).toBe(1);
  await page.goBack();
  expect(page.url()).toBe(here.href);
  await expect(page.locator('#trial')).toHaveAttribute('data-index', '1');
  await page.goForward();
  expect(page.url()).toBe(here.href);
  await vote(page, 1, 2, { replays: 0, choice: 'first' }, LABELS);
  await expect(page.locator('#verification-code')).toHaveText(/^[A-Z3-9]{12}$/, { timeout: 30_000 });
  const code = await page.locator('#verification-code').textContent();

  // Back on the end screen: the code stays, with the notice; Forward too.
  await page.goBack();
  await expect(page.locator('#verification-code')).toHaveText(code!);
  await expect(notice).toHaveText(NOTICE);
  await page.goForward();
  await expect(page.locator('#verification-code')).toHaveText(code!);

  const ratings = await ratingsOf(glimpse, playlist.session_id!);
  expect(ratings.map((r) => [r.stimulus_id, r.value])).toEqual([
    [playlist.stimulis[0]!.stimuliId, 1],
    [playlist.stimulis[1]!.stimuliId, 0],
  ]);
  expect((await participant.session(JOB))!.id).toBe(playlist.session_id);
});
