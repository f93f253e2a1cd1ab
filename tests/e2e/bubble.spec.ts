/**
 * Bubble (/bubble/{id}) journeys against the real server, database and Chromium (WebGL2 on SwiftShader): the
 * participant centres the mouse, clicks, explores each image of a pair along a known path, and answers; the
 * database must hold those very points (stimulus px, increasing t) for A and B, and the answers given.
 */
import { E2E_JOBS, expect, test } from './fixtures';
import { eventually, exportedRows, ratingsOf } from './participantSteps';
import {
  CANVAS,
  centreAndStart,
  expectPathRecorded,
  MEDIA_ORIGIN,
  movePath,
  pathOf,
  screeningsOf,
  startBubble,
  VIEWPORT,
  waitForMediaB,
  waitForStep,
} from './bubbleSteps';

const JOB = E2E_JOBS.bubble;
const SIZE_LOG = /^inner:1280x720;outer:\d+x\d+;screen:\d+x\d+;fullscreen:[01];oit:1$/;

test('the mouse path over each image of the pair is stored in stimulus px, and the pair answers too', async ({ page, glimpse, participant }) => {
  const playlist = await startBubble(page, participant.linkTo(JOB, { dd: '2500', pt: '800' }));
  expect(playlist.stimulis).toHaveLength(2);
  const paths: Array<{ a: Array<{ x: number; y: number }>; b: Array<{ x: number; y: number }> }> = [];
  const choices = ['first', 'last'] as const;

  for (let index = 0; index < 2; index++) {
    if (index === 0) {
      // 'the mark at the center of the screen': the mark is where the prompt says, below the band or not.
      await waitForStep(page, 'centering', 0, 0);
      await expect(page.getByText('Please set your mouse onto the mark at the center of the screen for 2 seconds.')).toBeVisible();
      const mark = (await page.locator('#bubble-mark').boundingBox())!;
      expect({ x: mark.x + mark.width / 2, y: mark.y + mark.height / 2 }).toEqual({ x: VIEWPORT.width / 2, y: VIEWPORT.height / 2 });
    }
    await centreAndStart(page, index);
    // The cursor is hidden while the stimulus is up; the stage sits below the question band, the media centred on it.
    expect(await page.evaluate(() => getComputedStyle(document.body).cursor)).toBe('none');
    expect(await page.locator('#stage-host').boundingBox()).toEqual(CANVAS);
    const band = (await page.locator('#question').boundingBox())!;
    expect(band.y + band.height).toBeLessThanOrEqual(CANVAS.y);
    const a = pathOf(index, 10);
    const b = pathOf(index + 5, 10);
    paths.push({ a, b });
    await movePath(page, a);
    // The window is drawn where the pointer is (canvas px), in a frame after the move.
    const last = a[a.length - 1]!;
    await expect.poll(() => page.evaluate(() => window.__glimpseStage?.drawn ?? null)).toMatchObject({ x: MEDIA_ORIGIN.x + last.x, y: MEDIA_ORIGIN.y - CANVAS.y + last.y });
    await waitForMediaB(page);
    await movePath(page, b);
    await waitForStep(page, 'rating', index);
    const modal = page.locator('#vote-modal');
    await expect(modal.getByText(`${index + 1} / 2`)).toBeVisible();
    await expect(modal.getByText('Which image had the better visual quality?', { exact: true })).toBeVisible();
    await modal.getByRole('button', { name: choices[index] === 'first' ? 'First Image' : 'Last Image', exact: true }).click();
  }
  await expect(page.locator('#verification-code')).toBeVisible({ timeout: 30_000 });

  const session = (await participant.session(JOB))!;
  const screenings = await eventually(() => screeningsOf(glimpse, session.id), (rows) => rows.length >= 2);
  expect(screenings.map((s) => [s.stimulus_id, s.screening_no])).toEqual(playlist.stimulis.map((s) => [s.stimuli_id, 0]));
  screenings.forEach((s, i) => {
    expectPathRecorded(s.mouse_logs.mediaA, paths[i]!.a);
    expectPathRecorded(s.mouse_logs.mediaB, paths[i]!.b);
    // A's samples start at its click (the centre), B's at its onset: none of B's path is in A.
    expect(s.mouse_logs.mediaA.some((p) => p.x === paths[i]!.b[0]!.x && p.y === paths[i]!.b[0]!.y)).toBe(false);
  });
  const ratings = await ratingsOf(glimpse, session.id);
  expect(ratings.map((r) => [r.stimulus_id, r.value, r.nb_replay])).toEqual([
    [playlist.stimulis[0]!.stimuli_id, 0, 0],
    [playlist.stimulis[1]!.stimuli_id, 1, 0],
  ]);
  for (const r of ratings) expect(r.logs).toMatch(SIZE_LOG);
});

test('every bubble presentation is timed: the export shows an image asked for dd=1500 shown for exactly those frames', async ({ page, glimpse, participant }) => {
  await startBubble(page, participant.linkTo(JOB, { dd: '1500', pt: '300' }));
  for (let index = 0; index < 2; index++) {
    await centreAndStart(page, index);
    await waitForStep(page, 'rating', index);
    await page.locator('#vote-modal').getByRole('button', { name: 'First Image', exact: true }).click();
  }
  await expect(page.locator('#verification-code')).toBeVisible({ timeout: 30_000 });
  const session = (await participant.session(JOB))!;
  const refreshMs = await page.evaluate(() => window.__glimpseStage?.refreshMs ?? null);

  const steps = await exportedRows(glimpse, JOB, 'presentations', session.id);
  // Each of the 2 ratings and 2 screenings carries its play: ready (until the click), A, pause, B.
  expect(steps.filter((s) => s.answer === 'screening').map((s) => s.label)).toEqual(['ready', 'A', 'pause', 'B', 'ready', 'A', 'pause', 'B']);
  const media = steps.filter((s) => s.answer === 'rating' && (s.label === 'A' || s.label === 'B'));
  expect(media).toHaveLength(4);
  for (const step of media) {
    const requested = step.requested_frames as number;
    expect(step.refresh_ms).toBeGreaterThan(0);
    if (refreshMs) expect(Math.abs((step.refresh_ms as number) - refreshMs)).toBeLessThan(1);
    expect(requested).toBe(Math.round(1500 / (step.refresh_ms as number)));
    expect(step.ended_by).toBe('duration');
    // Drawn in device pixels (docs/pixels.md): each media pixel on one device pixel, none resampled.
    expect([step.pixel_ratio, step.media_scaling, String(step.media_scale), step.media_filter]).toEqual([1, 'integer', '1', 'nearest']);
    // Shown exactly as asked unless the machine dropped frames meanwhile (then the drop is in the record).
    if (step.dropped_frames === 0) expect(step.shown_frames).toBe(requested);
    else expect(step.exact).toBe(false);
  }
  const ratings = await exportedRows(glimpse, JOB, 'ratings', session.id);
  expect(ratings.map((r) => [r.timing_plays, r.requested_frames, r.pixels_exact])).toEqual([
    [1, 2 * (media[0]!.requested_frames as number), true],
    [1, 2 * (media[0]!.requested_frames as number), true],
  ]);
});

test('free task: no rating is asked, the next stimulus follows the pause, and the mouse logs complete the session', async ({ page, glimpse, participant }) => {
  const posts: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST') posts.push(new URL(r.url()).pathname);
  });
  await startBubble(page, participant.linkTo(JOB, { ft: '1', dd: '600', pt: '300' }));
  for (let index = 0; index < 2; index++) {
    await centreAndStart(page, index);
    await movePath(page, pathOf(index, 3));
  }
  await expect(page.locator('#verification-code')).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('#vote-modal')).toHaveCount(0);
  const session = (await participant.session(JOB))!;
  expect(session.free_task).toBeTruthy();
  expect((await screeningsOf(glimpse, session.id)).length).toBe(2);
  expect(await ratingsOf(glimpse, session.id)).toEqual([]);
  expect(posts.filter((p) => p === '/api/ratings/')).toEqual([]);
});

test('repetitions then exploration: nr forced replays, Yes replays again, No moves on; every play is stored with its number', async ({ page, glimpse, participant }) => {
  const playlist = await startBubble(page, participant.linkTo(JOB, { nr: '1', rp: '1', dd: '500', pt: '200' }));
  const [first, second] = playlist.stimulis;
  const answer = async (index: number, replays: number, button: 'First Image' | 'Last Image') => {
    await waitForStep(page, 'rating', index, replays);
    await page.locator('#vote-modal').getByRole('button', { name: button, exact: true }).click();
  };
  // Stimulus 1: play, forced repetition (with its prompt), Yes to exploring, then No.
  await centreAndStart(page, 0, 0);
  await answer(0, 0, 'First Image');
  await waitForStep(page, 'centering', 0, 1);
  await expect(page.getByText('Ready for a repetition?', { exact: true })).toBeVisible();
  await expect(page.getByText('Please set your mouse onto the mark at the center of the screen for 2 seconds.', { exact: true })).toBeVisible();
  await centreAndStart(page, 0, 1);
  await answer(0, 1, 'Last Image');
  await waitForStep(page, 'explore', 0, 1);
  await expect(page.getByText('Did you need to explore more the sequence?', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Yes', exact: true }).click();
  await expect(page.getByText('Ready for a repetition?', { exact: true })).toHaveCount(0);
  await centreAndStart(page, 0, 2);
  await answer(0, 2, 'First Image');
  await waitForStep(page, 'explore', 0, 2);
  await page.getByRole('button', { name: 'No', exact: true }).click();
  // Stimulus 2: the replay count starts again at 0.
  await centreAndStart(page, 1, 0);
  await answer(1, 0, 'Last Image');
  await centreAndStart(page, 1, 1);
  await answer(1, 1, 'Last Image');
  await waitForStep(page, 'explore', 1, 1);
  await page.getByRole('button', { name: 'No', exact: true }).click();
  await expect(page.locator('#verification-code')).toBeVisible({ timeout: 30_000 });

  const session = (await participant.session(JOB))!;
  const ratings = await ratingsOf(glimpse, session.id);
  expect(ratings.map((r) => [r.stimulus_id, r.value, r.nb_replay])).toEqual([
    [first!.stimuli_id, 0, 0],
    [first!.stimuli_id, 1, 1],
    [first!.stimuli_id, 0, 2],
    [second!.stimuli_id, 1, 0],
    [second!.stimuli_id, 1, 1],
  ]);
  const screenings = await eventually(() => screeningsOf(glimpse, session.id), (rows) => rows.length >= 5);
  expect(screenings.map((s) => [s.stimulus_id, s.screening_no])).toEqual(ratings.map((r) => [r.stimulus_id, r.nb_replay]));
});

test('emotion question in French on nantes: red Submit without a choice, then the index + 1 is stored', async ({ page, glimpse, participant }) => {
  const playlist = await startBubble(page, participant.linkTo(JOB, { platform: 'nantes', emotion: '1', dd: '500', pt: '200' }), { nantes: true });
  const values = [3, 1];
  for (let index = 0; index < 2; index++) {
    await centreAndStart(page, index);
    await waitForStep(page, 'rating', index);
    const modal = page.locator('#bubble-emotion');
    await expect(modal.getByText("Quelle émotion avez vous reconnu sur l'image ?", { exact: true })).toBeVisible();
    for (const label of ['Joie', 'Colère', 'Surprise', 'Tristesse']) await expect(modal.getByLabel(label, { exact: true })).toBeVisible();
    await expect(modal.locator('#bubble-emotion-progress')).toHaveText(`image ${index + 1}/2`);
    // SPEC §9: left 42.5 % and 15 % wide, the question being along the test (category_id 2).
    const box = (await modal.boundingBox())!;
    expect(Math.round(box.x)).toBe(Math.round(0.425 * 1280));
    expect(Math.round(box.width)).toBe(Math.round(0.15 * 1280));
    const submit = modal.getByRole('button', { name: 'Submit' });
    if (index === 0) {
      await submit.click();
      await expect(submit).toHaveClass(/danger/);
      await expect(modal).toBeVisible();
    }
    await modal.getByLabel(['Joie', 'Colère', 'Surprise', 'Tristesse'][values[index]! - 1]!, { exact: true }).check();
    await submit.click();
  }
  await expect(page.locator('#verification-code')).toBeVisible({ timeout: 30_000 });
  const session = (await participant.session(JOB))!;
  const ratings = await ratingsOf(glimpse, session.id);
  expect(ratings.map((r) => [r.stimulus_id, r.value])).toEqual(playlist.stimulis.map((s, i) => [s.stimuli_id, values[i]]));
});

test('training (images): the emotion modal at 33 %/33 %, nothing stored for it; then the test stores its answers', async ({ page, glimpse, participant }) => {
  const JOB_TRAINING = 'e2e-bubble-training';
  const posts: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && /bubblescreenings|ratings/.test(r.url())) posts.push(new URL(r.url()).pathname);
  });
  const link = participant.linkTo(JOB_TRAINING, { emotion: '1', dd: '500', pt: '200' });
  const playlistAnswer = page.waitForResponse((r) => r.url().includes('/api/getbubble/'));
  await page.goto(link);
  await page.locator('#eligibility-continue').click();
  const playlist = (await (await playlistAnswer).json()) as { stimulis: Array<{ stimuli_id: number }>; stimulis_training: unknown[] };
  expect(playlist.stimulis_training).toHaveLength(1);
  await page.locator('#privacy-consent').check();
  await page.locator('#welcome-next').click();
  await page.getByRole('button', { name: 'Go to the training' }).click();

  await centreAndStart(page, 0);
  await expect(page.locator('#bubble-trial')).toHaveAttribute('data-training', 'true');
  await waitForStep(page, 'rating', 0);
  const modal = page.locator('#bubble-emotion');
  await expect(modal.getByText('Which emotion did you recognize in this image ?', { exact: true })).toBeVisible();
  for (const label of ['Happiness', 'Anger', 'Surprise', 'Sadness']) await expect(modal.getByLabel(label, { exact: true })).toBeVisible();
  const box = (await modal.boundingBox())!;
  expect(Math.round(box.x)).toBe(Math.round(0.33 * 1280));
  expect(Math.round(box.width)).toBe(Math.round(0.33 * 1280));
  await modal.getByLabel('Anger', { exact: true }).check();
  await modal.getByRole('button', { name: 'Submit' }).click();

  // Back to the instructions with training done, then the test.
  await page.getByRole('button', { name: 'Go to the test' }).click();
  expect(posts).toEqual([]);
  await centreAndStart(page, 0);
  await expect(page.locator('#bubble-trial')).toHaveAttribute('data-training', 'false');
  await waitForStep(page, 'rating', 0);
  await page.locator('#bubble-emotion').getByLabel('Sadness', { exact: true }).check();
  await page.locator('#bubble-emotion').getByRole('button', { name: 'Submit' }).click();
  await expect(page.locator('#verification-code')).toBeVisible({ timeout: 30_000 });

  const session = (await participant.session(JOB_TRAINING))!;
  const ratings = await ratingsOf(glimpse, session.id);
  expect(ratings.map((r) => [r.stimulus_id, r.value])).toEqual([[playlist.stimulis[0]!.stimuli_id, 4]]);
  expect((await screeningsOf(glimpse, session.id)).map((s) => s.stimulus_id)).toEqual([playlist.stimulis[0]!.stimuli_id]);
});

test.describe('failure screens', () => {
  test('an unknown job shows the server failure screen', async ({ page, participant }) => {
    await page.goto(participant.linkTo(JOB).replace(`/bubble/${JOB}?`, '/bubble/no-such-job?'));
    await expect(page.getByText('An error occured while connecting to the server... Please try again later.')).toBeVisible();
  });

  for (const [name, userAgent, message] of [
    ['Firefox', 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Please use one of the following browser: chrome.'],
    [
      'Chrome on Windows XP',
      'Mozilla/5.0 (Windows NT 5.1) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/49.0.2623.112 Safari/537.36',
      'Please use one of the following OS: Linux, Mac OS, Windows 10, Windows 7, Windows 8, Windows 8.1, iOS, Android OS.',
    ],
  ] as const) {
    test(`eligibility: ${name} is refused on the bubble page and no session is opened`, async ({ browser, glimpse, participant }) => {
      const context = await browser.newContext({ userAgent, viewport: { width: 1280, height: 720 } });
      const page = await context.newPage();
      await page.goto(`${glimpse.url}${participant.linkTo(JOB)}`);
      await expect(page.locator('#check-browser, #check-os').getByText(message)).toBeVisible();
      await page.getByRole('button', { name: 'Exit the test' }).click();
      await expect(page.locator('#fail-eligibility')).toContainText(message);
      expect(await participant.session(JOB)).toBeUndefined();
      await context.close();
    });
  }
});
