import { realpath } from 'node:fs/promises';
import { PROTOCOLS } from '../../src/protocols/registry.js';
import { E2E_JOBS, E2E_STUDIES, E2E_STUDIES_DIR, expect, test } from './fixtures';

test('the server answers /meta.json with the app version', async ({ request }) => {
  const response = await request.get('/meta.json');
  expect(response.status()).toBe(200);
  expect(response.headers()['content-type']).toContain('application/json');
  expect(await response.json()).toEqual({ version: '1.8.9' });
});

test('an unknown path shows the not-found page', async ({ page }) => {
  await page.goto('/nope/xyz');
  await expect(page.getByText("The page you requested doesn't exist")).toBeVisible();
  await expect(page.getByText('Error 404')).toBeVisible();
});

test('every e2e study is imported with its playlists and stimuli', async ({ glimpse }) => {
  // The jobs the server imported at start from the e2e studies folder (the console's tests upload or import others
  // into the same server later, from elsewhere).
  const imported = glimpse.db.selectFrom('jobs').select('id').where('source', 'like', `${await realpath(E2E_STUDIES_DIR)}/%`);
  const jobs = await glimpse.db.selectFrom('jobs').select(['id', 'protocol']).where('id', 'in', imported).orderBy('id').execute();
  expect(jobs).toEqual([...E2E_STUDIES].map((s) => ({ id: s.id, protocol: s.protocol })).sort((a, b) => a.id.localeCompare(b.id)));
  const stimuli = await glimpse.db
    .selectFrom('stimuli')
    .innerJoin('playlists', 'playlists.id', 'stimuli.playlist_id')
    .select(({ fn }) => ['playlists.job_id', fn.countAll<number>().as('count')])
    .where('playlists.job_id', 'in', imported)
    .groupBy('playlists.job_id')
    .execute();
  expect(stimuli.length).toBe(E2E_STUDIES.length);
  for (const row of stimuli) expect(Number(row.count), row.job_id).toBeGreaterThan(0);
});

test('imported media are served under /resmedias/{jobId}/', async ({ request }) => {
  const image = await request.get('/resmedias/e2e-pvid/images/landscape_320x180_q90.jpg');
  expect(image.status()).toBe(200);
  expect(image.headers()['content-type']).toBe('image/jpeg');
  const video = await request.get('/resmedias/e2e-pvid-video/videos/landscape_320x180_crf28_1s.mp4');
  expect(video.status()).toBe(200);
  expect(video.headers()['content-type']).toBe('video/mp4');
  expect((await request.get('/resmedias/e2e-pvid/images/not-there.jpg')).status()).toBe(404);
});

test('the participant fixture finds the session its link opens', async ({ request, participant }) => {
  const job = E2E_JOBS.pair_comparison;
  expect(await participant.session(job)).toBeUndefined();
  const link = new URL(participant.linkTo(job), 'http://x');
  expect(link.pathname).toBe(`/pvid/${job}`);
  // The client forwards the page query to the playlist call; do the same here without a browser.
  const playlist = await request.get(`/api/${PROTOCOLS.pair_comparison.playlistPath}/${job}${link.search}`);
  expect(playlist.status()).toBe(200);
  const body = (await playlist.json()) as { session_id: number; sessionToken: string };
  const session = await participant.session(job);
  expect(session).toMatchObject({ id: body.session_id, token: body.sessionToken, job_id: job, platform: 'prolific' });
});
