/**
 * The stage in the wild (issue 36), in a participant's journey: the GPU context is lost while a stimulus is on
 * screen. The step ends at once, the page says why, the stimulus is shown again from its start once the context is
 * back, and the stored answer carries its attempt and the interrupted play's record.
 */
import type { PresentationRecord } from '../../src/web/stage/types.js';
import { centreAndStart, screeningsOf, startBubble, waitForStep } from './bubbleSteps';
import { E2E_JOBS, expect, test } from './fixtures';
import { eventually, exportedRows, ratingsOf } from './participantSteps';
import { openInstructions, voteDialog } from './protocols-steps';

test('a lost GPU context mid-stimulus: the page says so, shows the stimulus again, and the answer carries attempt 2', async ({ page, glimpse, participant }) => {
  const job = E2E_JOBS.absolute_category_rating;
  const { playlist } = await openInstructions(page, participant.linkTo(job), '/instructions/acr.svg');
  await page.getByRole('button', { name: 'Go to the test' }).click();
  // Once the first stimulus is on screen, its context is lost.
  await page.evaluate(async () => {
    await new Promise<void>((resolve) => {
      const poll = () => ((window.__glimpseStage?.lastMediaRects.length ?? 0) > 0 ? resolve() : requestAnimationFrame(poll));
      poll();
    });
    const canvas = document.querySelector('canvas')!;
    const gl = (canvas.getContext('webgl2') ?? canvas.getContext('webgl'))!;
    const lose = gl.getExtension('WEBGL_lose_context')!;
    lose.loseContext();
    (window as unknown as { restoreStage(): void }).restoreStage = () => lose.restoreContext();
  });
  await expect(page.locator('#trial')).toHaveAttribute('data-status', 'interrupted');
  await expect(page.locator('#stage-interrupted')).toHaveText('The display was interrupted (the page was hidden, or the screen changed). This stimulus will be shown again from the start.');
  await page.evaluate(() => (window as unknown as { restoreStage(): void }).restoreStage());

  const modal = await voteDialog(page, 0, playlist.stimulis.length);
  await expect(page.locator('#stage-interrupted')).toHaveCount(0);
  await modal.getByRole('button', { name: 'Good', exact: true }).click();
  await modal.getByRole('button', { name: 'Submit' }).click();

  const session = (await participant.session(job))!;
  const [rating] = await eventually(() => ratingsOf(glimpse, session.id), (rows) => rows.length > 0);
  expect([rating!.stimulus_id, rating!.value, rating!.nb_replay]).toEqual([playlist.stimulis[0]!.stimuliId, 1, 0]);
  const timing = JSON.parse(rating!.timing!) as { attempt: number; plays: PresentationRecord[][] };
  expect(timing.attempt).toBe(2);
  expect(timing.plays).toHaveLength(2);
  const cut = timing.plays[0]!.at(-1)!;
  expect([cut.endedBy, cut.interrupted?.cause]).toEqual(['interrupted', 'context-lost']);
  expect(cut.shownFrames).toBeLessThan(cut.requestedFrames!);
  const replayed = timing.plays[1]!.at(-1)!;
  expect([replayed.endedBy, replayed.shownFrames]).toEqual(['duration', replayed.requestedFrames]);
  const [row] = await exportedRows(glimpse, job, 'ratings', session.id);
  expect(row).toMatchObject({ attempt: 2, interruptions: 'context-lost' });
});

test('bubble: a lost GPU context while an image is explored sends the participant back to the centering, then the play again; the answer carries attempt 2', async ({ page, glimpse, participant }) => {
  const job = E2E_JOBS.bubble;
  await startBubble(page, participant.linkTo(job, { dd: '2000', pt: '200' }));
  await centreAndStart(page, 0);
  await page.evaluate(() => {
    const canvas = document.querySelector('canvas')!;
    const gl = (canvas.getContext('webgl2') ?? canvas.getContext('webgl'))!;
    const lose = gl.getExtension('WEBGL_lose_context')!;
    lose.loseContext();
    (window as unknown as { restoreStage(): void }).restoreStage = () => lose.restoreContext();
  });
  await waitForStep(page, 'centering', 0, 0);
  await expect(page.locator('#stage-interrupted')).toHaveText('The display was interrupted (the page was hidden, or the screen changed). This stimulus will be shown again from the start.');
  await page.evaluate(() => (window as unknown as { restoreStage(): void }).restoreStage());
  await centreAndStart(page, 0);
  await waitForStep(page, 'rating', 0);
  await page.locator('#vote-modal').getByRole('button', { name: 'First Image', exact: true }).click();
  await waitForStep(page, 'centering', 1);

  const session = (await participant.session(job))!;
  const [rating] = await eventually(() => ratingsOf(glimpse, session.id), (rows) => rows.length > 0);
  expect([rating!.value, rating!.nb_replay]).toEqual([0, 0]);
  const timing = JSON.parse(rating!.timing!) as { attempt: number; plays: PresentationRecord[][] };
  expect(timing.attempt).toBe(2);
  expect(timing.plays).toHaveLength(2);
  expect(timing.plays[0]!.at(-1)).toMatchObject({ endedBy: 'interrupted', interrupted: { cause: 'context-lost' } });
  expect(timing.plays[1]!.map((r) => r.label)).toEqual(['ready', 'A', 'pause', 'B']);
  // One mouse log: the play played through (the interrupted one is not posted; its click started nothing kept).
  const screenings = await screeningsOf(glimpse, session.id);
  expect(screenings.map((s) => [s.stimulus_id, s.screening_no])).toEqual([[rating!.stimulus_id, 0]]);
});
