/**
 * absolute_category_rating (/acr/{id}) journeys against the real server, database and Chromium: the five levels,
 * the stored level index, the 5 s auto-submit, a click ending an image, the coloured scale, a single video
 * (categoryTest 5), pixel probes of the single-stimulus layout, and an auto-submitted rating retried without a
 * duplicate.
 */
import { layoutSingle } from '../../src/web/stage/layouts.js';
import { E2E_JOBS, expect, test } from './fixtures';
import { askedPlays, eventually, expectDrawn, expectTimed, openInstructions, sessionLogsOf, stageSize, storedRatings, voteDialog, waitTrial } from './protocols-steps';

const LEVELS = ['Excellent', 'Good', 'Fair', 'Poor', 'Bad'];
const IMAGE = '/instructions/acr.svg';

test('ACR images: the stored value is the level index, and a level left alone is submitted after 5 s', async ({ page, glimpse, participant }) => {
  const { playlist, playlistPath } = await openInstructions(page, participant.linkTo(E2E_JOBS.absolute_category_rating), IMAGE);
  expect(playlistPath).toBe(`/api/getacr/${E2E_JOBS.absolute_category_rating}`);
  await page.getByRole('button', { name: 'Go to the test' }).click();
  const total = playlist.stimulis.length;
  expect(total).toBe(3);
  await expect(page.locator('#question')).toHaveText('How would you rate the visual quality of this image?', { timeout: 30_000 });

  // 1: Good, confirmed with Submit.
  let modal = await voteDialog(page, 0, total);
  await expect(modal.getByRole('button')).toHaveText(LEVELS);
  for (const button of await modal.getByRole('button').all()) await expect(button).toHaveClass('level'); // not coloured
  await modal.getByRole('button', { name: 'Good', exact: true }).click();
  await expect(modal.locator('.vote-choice')).toHaveText('Good');
  await modal.getByRole('button', { name: 'Submit' }).click();

  // 2: Bad, Modify, then Fair, and no further click: the dialog submits Fair by itself.
  modal = await voteDialog(page, 1, total);
  await modal.getByRole('button', { name: 'Bad', exact: true }).click();
  await modal.getByRole('button', { name: 'Modify' }).click();
  await modal.getByRole('button', { name: 'Fair', exact: true }).click();
  await expect(modal.getByRole('button', { name: 'Submit' })).toBeVisible();
  await waitTrial(page, 2, 'responding');

  // 3: Excellent.
  modal = await voteDialog(page, 2, total);
  await modal.getByRole('button', { name: 'Excellent', exact: true }).click();
  await modal.getByRole('button', { name: 'Submit' }).click();

  await expect(page.locator('#verification-code')).toHaveText(/^\S+$/, { timeout: 30_000 });
  const session = (await participant.session(E2E_JOBS.absolute_category_rating))!;
  const ratings = await storedRatings(glimpse, session.id);
  expect(ratings.map(({ stimulus, value, nbReplay }) => ({ stimulus, value, nbReplay }))).toEqual(
    playlist.stimulis.map((s, i) => ({ stimulus: s.stimuliId, value: [1, 2, 0][i], nbReplay: 0 })),
  );
  for (const [i, rating] of ratings.entries()) {
    expectTimed(rating, ['S']);
    const [record] = askedPlays(rating.presentations)[0]!;
    expect(record!.media).toEqual([playlist.stimulis[i]!.source]);
    expect(record!.endedBy).toBe('duration'); // nobody clicked the images: each ended with its display time
  }
  // Only two Submit clicks reached the page: the second rating was sent by the auto-submit.
  const logs = await eventually(() => sessionLogsOf(glimpse, session.id), (rows) => rows.length > 0);
  const clicks = JSON.parse(logs[0]!.body).logMouseClick as Array<{ component_id: string }>;
  expect(clicks.filter((c) => c.component_id === 'vote-submit')).toHaveLength(2);
});

test('ACR coloured scale: the image is drawn centred alone, a click on it ends it, the levels are green, orange and red', async ({ page, glimpse, participant }) => {
  const job = 'protocols-acr-probe';
  const { playlist } = await openInstructions(page, participant.linkTo(job), IMAGE);
  await page.getByRole('button', { name: 'Go to the test' }).click();
  await waitTrial(page, 0, 'playing');
  const size = await stageSize(page);
  const item = layoutSingle(size, { media: playlist.stimulis[0]!.source!, size: { width: 320, height: 180 } });
  const cx = item.rect.x + item.rect.width / 2;
  const cy = item.rect.y + item.rect.height / 2;
  // The image, and background where a pair's images would be.
  await expectDrawn(page, [item], [
    [cx - 250, cy],
    [cx + 250, cy],
    [4, 4],
  ]);

  // The image lasts 4 s unless clicked: click it.
  const host = (await page.locator('#stage-host').boundingBox())!;
  await page.mouse.click(host.x + cx, host.y + cy);
  const modal = await voteDialog(page, 0, 1);
  const colours = await modal.getByRole('button').evaluateAll((buttons) => buttons.map((b) => getComputedStyle(b).backgroundColor));
  const [green, orange, red] = ['rgb(46, 125, 50)', 'rgb(239, 143, 0)', 'rgb(198, 40, 40)'];
  expect(colours).toEqual([green, green, orange, red, red]);
  await modal.getByRole('button', { name: 'Poor', exact: true }).click();
  await modal.getByRole('button', { name: 'Submit' }).click();

  await expect(page.locator('#verification-code')).toBeVisible({ timeout: 30_000 });
  const [rating] = await storedRatings(glimpse, playlist.session_id!);
  expect(rating!.value).toBe(3);
  const [record] = askedPlays(rating!.presentations)[0]!;
  expect(record).toMatchObject({ label: 'S', endedBy: 'click' });
  expect(record!.clickMs).toBeGreaterThan(record!.onsetMs);
  // Shown for the display time or until a click: the frames asked for are the display time's at the measured
  // refresh, rounded, a near-tie (within 0.1 frame of k + 1/2, by the refresh's uncertainty) going up
  // (frameClock.ts durationToFrames; on this loaded machine the refresh may be measured at half rate, ~30 ms).
  const periods = 4000 / record!.refreshMs;
  const nearTie = Math.abs(periods - Math.floor(periods) - 0.5) <= 0.1;
  expect(nearTie ? [Math.round(periods), Math.floor(periods) + 1] : [Math.round(periods)]).toContain(record!.requestedFrames);
  expect(record!.shownFrames).toBeLessThanOrEqual(record!.requestedFrames!);
});

test('ACR single video (categoryTest 5): the levels open when the video ends, without the question band', async ({ page, glimpse, participant }) => {
  const job = 'protocols-acr-video';
  const { playlist } = await openInstructions(page, participant.linkTo(job), IMAGE);
  await page.getByRole('button', { name: 'Go to the test' }).click();
  const modal = await voteDialog(page, 0, 1);
  await expect(page.locator('#question')).toHaveCount(0);
  await modal.getByRole('button', { name: 'Fair', exact: true }).click();
  await modal.getByRole('button', { name: 'Submit' }).click();
  await expect(page.locator('#verification-code')).toBeVisible({ timeout: 30_000 });

  const [rating] = await storedRatings(glimpse, playlist.session_id!);
  expect(rating!.value).toBe(2);
  expectTimed(rating!, ['S']);
  const [record] = askedPlays(rating!.presentations)[0]!;
  expect(record).toMatchObject({ endedBy: 'video-end', media: [playlist.stimulis[0]!.source] });
  // Drawn by the stage's clock (WebCodecs on the localhost page), counted by the stage: every clip frame drawn.
  expect(record!.videos?.[0]).toMatchObject({ timing: 'stage-clock', firstFrame: 0 });
  expect(record!.videos![0]!.drawnFrames).toBeGreaterThan(0);
});

test('an auto-submitted rating whose answer is lost on the way back is sent again with the same key and stored once', async ({ page, glimpse, participant }) => {
  const keys: string[] = [];
  await page.route('**/api/ratings/', async (route) => {
    keys.push(route.request().headers()['idempotency-key'] ?? '');
    if (keys.length === 1) {
      await route.fetch(); // stored by the server...
      await route.abort('connectionreset'); // ...but the browser never hears back
    } else {
      await route.continue();
    }
  });
  const { playlist } = await openInstructions(page, participant.linkTo(E2E_JOBS.absolute_category_rating), IMAGE);
  await page.getByRole('button', { name: 'Go to the test' }).click();
  const total = playlist.stimulis.length;
  await (await voteDialog(page, 0, total)).getByRole('button', { name: 'Poor', exact: true }).click(); // left to the auto-submit
  for (const index of [1, 2]) {
    const modal = await voteDialog(page, index, total);
    await modal.getByRole('button', { name: 'Bad', exact: true }).click();
    await modal.getByRole('button', { name: 'Submit' }).click();
  }
  await expect(page.locator('#verification-code')).toBeVisible({ timeout: 30_000 });

  expect(keys).toHaveLength(4);
  expect(keys[1]).toBe(keys[0]);
  expect(new Set(keys).size).toBe(3);
  const ratings = await storedRatings(glimpse, playlist.session_id!);
  expect(ratings.map((r) => [r.stimulus, r.value])).toEqual(playlist.stimulis.map((s, i) => [s.stimuliId, i === 0 ? 3 : 4]));
});
