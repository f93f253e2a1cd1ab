/**
 * Pixel-exact stimuli in a participant's journey (docs/pixels.md): at 125 % display scaling the pair
 * is drawn one device pixel per media pixel, and the stored rating says so (ratio, window, scale, filter, device
 * rectangle); a window too small for the pair gets the message, never a shrunken stimulus, and the test goes on
 * once the window is large enough. The pixels themselves are checked frame by frame on the virtual display
 * (src/web/stage/pixels.display.test.ts).
 */
import type { TimingEnvelope } from '../../src/contract/payloads.js';
import { centreAndStart, startBubble, waitForStep } from './bubbleSteps';
import { E2E_JOBS, expect, test } from './fixtures';
import { ratingsOf, startTest, vote, type VoteLabels } from './participantSteps';

const LABELS: VoteLabels = { first: 'First Image', last: 'Last Image', replay: 'Replay Images' };

test('at 125 % scaling the pair is drawn pixel for pixel, and each rating stores the ratio, the window, the scale and the filter', async ({ browser, glimpse, participant }) => {
  const context = await browser.newContext({ viewport: { width: 1024, height: 640 }, screen: { width: 1536, height: 864 }, deviceScaleFactor: 1.25 });
  const page = await context.newPage();
  try {
    const playlist = await startTest(page, participant.linkTo(E2E_JOBS.pair_comparison));
    // The canvas's backing store is the device pixels of its box: 1024 × 1.25 wide, (640 − 80) × 1.25 high.
    await expect(page.locator('#trial')).toBeAttached({ timeout: 30_000 });
    expect(await page.locator('#stage-host canvas').evaluate((c: HTMLCanvasElement) => [c.width, c.height])).toEqual([1280, 700]);
    for (let i = 0; i < playlist.stimulis.length; i++) await vote(page, i, playlist.stimulis.length, { replays: 0, choice: 'first' }, LABELS);
    await expect(page.locator('#verification-code')).toBeVisible({ timeout: 30_000 });
    const session = (await participant.session(E2E_JOBS.pair_comparison))!;
    const ratings = await ratingsOf(glimpse, session.id);
    expect(ratings).toHaveLength(playlist.stimulis.length);
    for (const rating of ratings) {
      const timing = JSON.parse(rating.timing!) as TimingEnvelope;
      expect(timing.window).toMatchObject({ inner: { width: 1024, height: 640 }, pixelRatio: 1.25 });
      const shown = timing.plays[0]!.find((r) => r.label === 'AB')!;
      expect(shown.pixelRatio).toBe(1.25);
      expect(shown.items).toHaveLength(2);
      for (const item of shown.items!) {
        expect(item).toMatchObject({ scaling: 'integer', scale: 1, filter: 'nearest', device: { width: 320, height: 180 } });
        expect([item.device.x, item.device.y].every(Number.isInteger)).toBe(true);
      }
    }
  } finally {
    await context.close();
  }
});

test('a window too small for the pair shows what to do, then the test goes on at full size once it is enlarged', async ({ browser, glimpse, participant }) => {
  const context = await browser.newContext({ viewport: { width: 560, height: 420 }, screen: { width: 1280, height: 720 } });
  const page = await context.newPage();
  try {
    const playlist = await startTest(page, participant.linkTo(E2E_JOBS.pair_comparison));
    const message = page.locator('#window-small');
    await expect(message.getByRole('heading')).toHaveText('Your window is too small for this test', { timeout: 30_000 });
    // The pair: 2 × 320 px and the 16 px gap = 656 px wide; the stage sits below the 80 px question band.
    await expect(message.locator('p')).toHaveText(
      'The images of this test are shown pixel for pixel, never shrunk. Please enlarge your browser window to at least 656×420 (it is 560×420 now): maximise it, or switch to full screen. The test goes on by itself once the window is large enough.',
    );
    expect(await page.evaluate(() => window.__glimpseStage?.lastRecords ?? null)).toBeNull();
    await page.setViewportSize({ width: 1280, height: 720 });
    await expect(message).toHaveCount(0, { timeout: 15_000 });
    for (let i = 0; i < playlist.stimulis.length; i++) await vote(page, i, playlist.stimulis.length, { replays: 0, choice: 'last' }, LABELS);
    await expect(page.locator('#verification-code')).toBeVisible({ timeout: 30_000 });
    const session = (await participant.session(E2E_JOBS.pair_comparison))!;
    const ratings = await ratingsOf(glimpse, session.id);
    expect(ratings.map((r) => r.value)).toEqual(playlist.stimulis.map(() => 1));
    const first = JSON.parse(ratings[0]!.timing!) as TimingEnvelope;
    expect(first.plays[0]!.find((r) => r.label === 'AB')!.items!.map((i) => [i.scale, i.device.width])).toEqual([
      [1, 320],
      [1, 320],
    ]);
  } finally {
    await context.close();
  }
});

test('a screen too small for the pair even in full screen: the participant is told so, and that it is not their fault', async ({ browser, participant }) => {
  const context = await browser.newContext({ viewport: { width: 560, height: 420 }, screen: { width: 600, height: 450 } });
  const page = await context.newPage();
  try {
    await startTest(page, participant.linkTo(E2E_JOBS.pair_comparison));
    await expect(page.locator('#screen-too-small')).toHaveText(
      'Your screen (600×450) is smaller than that, even in full screen: this test cannot be shown on it. Please leave the test; this is not your fault.',
      { timeout: 30_000 },
    );
    expect(await page.evaluate(() => window.__glimpseStage?.lastRecords ?? null)).toBeNull();
  } finally {
    await context.close();
  }
});

test('bubble at 125 %: a window too small gets the message instead of the centering gate, then each image is drawn pixel for pixel and stored so', async ({ browser, glimpse, participant }) => {
  const context = await browser.newContext({ viewport: { width: 1024, height: 248 }, screen: { width: 1536, height: 864 }, deviceScaleFactor: 1.25 });
  const page = await context.newPage();
  try {
    const playlist = await startBubble(page, participant.linkTo(E2E_JOBS.bubble, { dd: '600', pt: '200' }));
    // The 320×180 images need 180 device px below the 40 px (50 device px) click hint: 230; the canvas below the
    // 80 px band is (248 − 80) × 1.25 = 210 high, 20 device px (16 CSS px) short.
    const message = page.locator('#window-small');
    await expect(message.locator('p').first()).toHaveText(
      'The images of this test are shown pixel for pixel, never shrunk. Please enlarge your browser window to at least 1024×264 (it is 1024×248 now): maximise it, or switch to full screen. The test goes on by itself once the window is large enough.',
      { timeout: 30_000 },
    );
    await expect(message.locator('p').nth(1)).toHaveText(/^Your display scaling of 125 % needs a window of at least 1024×264\./);
    await expect(page.locator('#bubble-mark')).toHaveCount(0);
    await page.setViewportSize({ width: 1024, height: 640 });
    await expect(message).toHaveCount(0, { timeout: 15_000 });
    for (let index = 0; index < playlist.stimulis.length; index++) {
      await centreAndStart(page, index);
      await waitForStep(page, 'rating', index);
      await page.locator('#vote-modal').getByRole('button', { name: 'First Image', exact: true }).click();
    }
    await expect(page.locator('#verification-code')).toBeVisible({ timeout: 30_000 });
    const session = (await participant.session(E2E_JOBS.bubble))!;
    const ratings = await ratingsOf(glimpse, session.id);
    expect(ratings).toHaveLength(playlist.stimulis.length);
    for (const rating of ratings) {
      const timing = JSON.parse(rating.timing!) as TimingEnvelope;
      for (const label of ['A', 'B']) {
        const shown = timing.plays[0]!.find((r) => r.label === label)!;
        expect(shown.pixelRatio).toBe(1.25);
        expect(shown.items).toEqual([expect.objectContaining({ scaling: 'integer', scale: 1, filter: 'nearest', device: expect.objectContaining({ width: 320, height: 180 }) })]);
        const { x, y } = shown.items![0]!.device;
        expect([x, y].every(Number.isInteger)).toBe(true);
      }
    }
  } finally {
    await context.close();
  }
});
