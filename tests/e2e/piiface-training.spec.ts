/**
 * Piiface training with three faces (issue 20 item 4): every training face is drawn on the stage, whatever the click
 * pace. Before the fix, the next face's play() reached the stage while the released face's play was still ending
 * (release() ends a hold at the next frame), the stage refused it ("the stage is already playing") and face 2 was
 * never drawn: "This image could not be shown", then feedback about a face nobody saw.
 */
import type { PiifacePlaylistStimulus, PlaylistResponse } from '../../src/contract/playlist.js';
import { expect, test } from './fixtures';
import { FACE_ALT, drawnFacePixel } from './piifaceSteps';

const JOB = 'e2e-piiface-training';

test('every training face is drawn, each answered as soon as it shows, with no "could not be shown"', async ({ page, participant }) => {
  const stageLog: string[] = [];
  page.on('console', (m) => {
    if (/already playing|could not be shown/i.test(m.text())) stageLog.push(m.text());
  });
  // A loaded machine can take long to answer; the face checks below are what this test is about.
  const playlistAnswer = page.waitForResponse((r) => r.url().includes(`/api/getpiiface/${JOB}?`), { timeout: 60_000 });
  await page.goto(participant.linkTo(JOB));
  await page.getByRole('button', { name: 'Continue' }).click();
  const playlist = (await (await playlistAnswer).json()) as PlaylistResponse<PiifacePlaylistStimulus>;
  expect(playlist.stimulis_training).toHaveLength(3);
  await page.getByLabel('I have read and I accept the').check();
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('button', { name: 'Go to the training' }).click();

  const trial = page.locator('#piiface-trial');
  const drawn: number[][] = [];
  for (const [index, face] of playlist.stimulis_training.entries()) {
    await expect(trial).toHaveAttribute('data-index', String(index), { timeout: 60_000 });
    await expect(trial).toHaveAttribute('data-status', 'showing', { timeout: 60_000 });
    await expect(page.getByRole('img', { name: FACE_ALT })).toHaveAttribute('data-media', face.source);
    await expect(page.getByText('This image could not be shown')).toHaveCount(0);
    // The face is on the canvas: its centre is not the white job background.
    const pixel = await drawnFacePixel(page, `training face ${index + 1}`);
    drawn.push(pixel);
    // Answer at once (the fastest pace a participant can have): the next face is already prepared.
    await page.getByRole('button', { name: 'Next image' }).click();
  }
  await expect(page.getByRole('button', { name: 'Go to the test' })).toBeVisible({ timeout: 60_000 });
  // Three different faces were drawn, one after the other.
  expect(new Set(drawn.map((p) => p.join(','))).size).toBe(3);
  expect(stageLog).toEqual([]);
});
