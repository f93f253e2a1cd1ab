/**
 * Piiface (/piiface/{id}) journeys against the real server, database and Chromium: training then test, the values
 * stored for the radios clicked, and a missing confidence that turns 'Next image' red and stores nothing.
 */
import type { Page, Request } from '@playwright/test';
import type { PiifacePlaylistStimulus, PlaylistResponse } from '../../src/contract/playlist.js';
import { E2E_JOBS, expect, test } from './fixtures';
import { eventually, exportedRows, ratingsOf, sessionLogsOf } from './participantSteps';
import { FACE_ALT, drawnFacePixel } from './piifaceSteps';

const JOB = E2E_JOBS.piiface;
/** The size text of a rating's logs (src/web/flow/sizeLog.ts); the Playwright window is 1280x720. */
const SIZE_LOG = /^inner:1280x720;outer:\d+x\d+;screen:\d+x\d+;fullscreen:[01]$/;

type PiifacePlaylist = PlaylistResponse<PiifacePlaylistStimulus>;

/** Link, eligibility, welcome (privacy box), instructions; resolves with the playlist the page received. */
async function startTraining(page: Page, link: string): Promise<PiifacePlaylist> {
  const playlistAnswer = page.waitForResponse((r) => r.url().includes(`/api/getpiiface/${JOB}?`));
  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Eligibility check' })).toBeVisible();
  await page.getByRole('button', { name: 'Continue' }).click();
  const playlist = (await (await playlistAnswer).json()) as PiifacePlaylist;
  await page.getByLabel('I have read and I accept the').check();
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('button', { name: 'Go to the training' }).click();
  return playlist;
}

/** Waits until image `index` of the training or test run is on screen and answerable. */
async function waitForFace(page: Page, stimulus: PiifacePlaylistStimulus, index: number, training: boolean): Promise<void> {
  const trial = page.locator('#piiface-trial');
  await expect(trial).toHaveAttribute('data-training', String(training), { timeout: 60_000 });
  await expect(trial).toHaveAttribute('data-index', String(index), { timeout: 60_000 });
  await expect(trial).toHaveAttribute('data-status', 'showing', { timeout: 60_000 });
  await expect(page.getByRole('img', { name: FACE_ALT })).toHaveAttribute('data-media', stimulus.source);
}

function watchRatingPosts(page: Page): Request[] {
  const posts: Request[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().includes('/api/ratings/')) posts.push(r);
  });
  return posts;
}

test('a participant completes training and test, and the database holds exactly the emotion and confidence chosen', async ({ page, glimpse, participant }) => {
  const posts = watchRatingPosts(page);
  const playlist = await startTraining(page, participant.linkTo(JOB));
  expect(playlist.stimulis_training).toHaveLength(1);
  expect(playlist.stimulis).toHaveLength(2);

  // Training: the face is drawn on the stage (white job background around it), with its alt text in the DOM.
  await waitForFace(page, playlist.stimulis_training[0]!, 0, true);
  await expect(page.locator('#piiface-position')).toHaveText('Training 1 / 1');
  await expect(page.locator('#piiface-question')).toHaveText('Which emotion does this person express?');
  await drawnFacePixel(page, 'the training face');
  // Its type is piiface/train/ada/3: Happiness is the expected answer.
  await page.getByLabel('Anger', { exact: true }).check();
  await expect(page.locator('#piiface-feedback')).toHaveText('Not quite: the expected answer was Happiness.');
  await page.getByLabel('Happiness', { exact: true }).check();
  await expect(page.locator('#piiface-feedback')).toHaveText('Right answer: Happiness.');
  await page.getByRole('button', { name: 'Next image' }).click();

  // Back to the instructions, training finished; then the test.
  await page.getByRole('button', { name: 'Go to the test' }).click();
  const choices = [
    { emotion: 'Sadness', confidence: 'Fairly confident', value: 62 },
    { emotion: 'Surprise', confidence: 'Not confident at all', value: 75 },
  ];
  for (const [i, choice] of choices.entries()) {
    await waitForFace(page, playlist.stimulis[i]!, i, false);
    await expect(page.locator('#piiface-position')).toHaveText(`Image ${i + 1} / 2`);
    await expect(page.locator('#piiface-feedback')).toHaveCount(0);
    await page.getByLabel(choice.emotion, { exact: true }).check();
    await page.getByLabel(choice.confidence, { exact: true }).check();
    await page.getByRole('button', { name: 'Next image' }).click();
  }

  const code = page.locator('#verification-code');
  await expect(code).toHaveText(/^\S+$/, { timeout: 30_000 });
  const session = (await participant.session(JOB))!;
  expect(session.id).toBe(playlist.session_id);
  expect(await code.textContent()).toBe(session.verification_code);

  // Training sent nothing: two posts, two rows, one per test image, with the encoded choices.
  const ratings = await ratingsOf(glimpse, session.id);
  expect(ratings.map((r) => ({ stimulus: r.stimulus_id, value: r.value, nbReplay: r.nb_replay }))).toEqual(
    playlist.stimulis.map((s, i) => ({ stimulus: s.stimuli_id, value: choices[i]!.value, nbReplay: 0 })),
  );
  for (const r of ratings) expect(r.logs).toMatch(SIZE_LOG);
  expect(posts).toHaveLength(2);

  // Each face was timed from the frame that first drew it until the answer, and the export says so.
  const steps = await exportedRows(glimpse, JOB, 'presentations', session.id);
  expect(steps.map((s) => [s.stimulus_id, s.label, s.ended_by, s.requested_frames])).toEqual(
    playlist.stimulis.map((s) => [s.stimuli_id, 'face', 'answer', null]),
  );
  for (const step of steps) {
    expect(step.onset_ms).toBeGreaterThan(0);
    expect(step.onset_epoch_ms).toBeGreaterThan(Date.parse(session.created_at));
    expect(step.shown_frames).toBeGreaterThan(0);
    expect(step.media).toBe(playlist.stimulis.find((s) => s.stimuli_id === step.stimulus_id)!.source);
    // The 512×512 face drawn pixel for pixel (docs/pixels.md), not fitted.
    expect([step.pixel_ratio, step.media_scaling, String(step.media_scale), step.media_filter]).toEqual([1, 'integer', '1', 'nearest']);
  }

  // The progress tracker logged each image as it came on screen.
  const logs = await eventually(() => sessionLogsOf(glimpse, session.id), (rows) => rows.length > 0);
  const states = (JSON.parse(logs[0]!.body).logStates as { state: string; status: string }[]).filter((s) => s.state === 'Progress');
  expect(states.map((s) => s.status)).toEqual(['training 1/1', 'test 1/2', 'test 2/2']);
  await expect(page.getByRole('progressbar', { name: 'Progress' })).toHaveAttribute('aria-valuenow', '100');
});

test('a missing confidence turns Next image red and stores nothing', async ({ page, glimpse, participant }) => {
  const posts = watchRatingPosts(page);
  const playlist = await startTraining(page, participant.linkTo(JOB));

  // Training needs no answer at all.
  await waitForFace(page, playlist.stimulis_training[0]!, 0, true);
  await page.getByRole('button', { name: 'Next image' }).click();
  await page.getByRole('button', { name: 'Go to the test' }).click();

  await waitForFace(page, playlist.stimulis[0]!, 0, false);
  const next = page.getByRole('button', { name: 'Next image' });
  await page.getByLabel('Fear', { exact: true }).check();
  await next.click();
  await expect(next).toHaveClass('danger');
  await expect(next).toHaveCSS('background-color', 'rgb(198, 40, 40)');
  await expect(page.locator('#piiface-confidence')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('#piiface-trial')).toHaveAttribute('data-index', '0');
  const session = (await participant.session(JOB))!;
  expect(await ratingsOf(glimpse, session.id)).toHaveLength(0);

  // With the confidence the same image is sent once: the red click had sent nothing.
  await page.getByLabel('Very confident', { exact: true }).check();
  await expect(next).not.toHaveClass('danger');
  await next.click();
  await expect(page.locator('#piiface-trial')).toHaveAttribute('data-index', '1', { timeout: 30_000 });
  const ratings = await ratingsOf(glimpse, session.id);
  expect(ratings.map((r) => ({ stimulus: r.stimulus_id, value: r.value }))).toEqual([{ stimulus: playlist.stimulis[0]!.stimuli_id, value: 31 }]);
  expect(posts).toHaveLength(1);
});

test('a window made too small while a face is up gets the message; enlarged, the face is drawn again and the answer keeps both plays', async ({ page, glimpse, participant }) => {
  const playlist = await startTraining(page, participant.linkTo(JOB));
  await waitForFace(page, playlist.stimulis_training[0]!, 0, true);
  await page.getByRole('button', { name: 'Next image' }).click();
  await page.getByRole('button', { name: 'Go to the test' }).click();
  await waitForFace(page, playlist.stimulis[0]!, 0, false);

  // The 320×320 face needs 320 px left of the 360 px panel: a 600 px window has 240.
  await page.setViewportSize({ width: 600, height: 720 });
  await expect(page.locator('#window-small p').first()).toHaveText(
    'The images of this test are shown pixel for pixel, never shrunk. Please enlarge your browser window to at least 680×720 (it is 600×720 now): maximise it, or switch to full screen. The test goes on by itself once the window is large enough.',
    { timeout: 15_000 },
  );
  await page.setViewportSize({ width: 1280, height: 720 });
  await expect(page.locator('#window-small')).toHaveCount(0, { timeout: 15_000 });
  await drawnFacePixel(page, 'the face in the enlarged window');
  await page.getByLabel('Sadness', { exact: true }).check();
  await page.getByLabel('Very confident', { exact: true }).check();
  await page.getByRole('button', { name: 'Next image' }).click();
  await expect(page.locator('#piiface-trial')).toHaveAttribute('data-index', '1', { timeout: 30_000 });

  const session = (await participant.session(JOB))!;
  const [rating] = await ratingsOf(glimpse, session.id);
  const timing = JSON.parse(rating!.timing!) as { plays: Array<Array<{ endedBy?: string; interrupted?: { cause: string } }>> };
  // The face as first drawn, interrupted by each resize (the canvas changed size), then the play the answer ended.
  const ends = timing.plays.map((play) => play.at(-1)!);
  expect(ends.at(-1)!.endedBy).toBe('answer');
  expect(ends.slice(0, -1).length).toBeGreaterThanOrEqual(1);
  for (const end of ends.slice(0, -1)) expect(end.interrupted?.cause).toBe('display-changed');
});
