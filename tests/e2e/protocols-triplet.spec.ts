/**
 * triplet (/triplet/{id}) journeys against the real server, database and Chromium: three images in a row, which side
 * is closer to the middle one (left 0, right 1), replay, and pixel probes of the row layout.
 */
import { layoutTripletRow, type MediaBox } from '../../src/web/stage/layouts.js';
import { E2E_JOBS, expect, test } from './fixtures';
import { vote, type VoteLabels } from './participantSteps';
import { expectDrawn, expectTimed, openInstructions, stageSize, storedRatings, waitTrial } from './protocols-steps';

const LABELS: VoteLabels = { first: 'Left image', last: 'Right image', replay: 'Replay Images' };
const JOB = E2E_JOBS.triplet;
const IMAGE = '/instructions/triplet.svg';

test('triplet: the stored values are the sides chosen (left 0, right 1), with every play frame-timed', async ({ page, glimpse, participant }) => {
  const { playlist, playlistPath } = await openInstructions(page, participant.linkTo(JOB), IMAGE);
  expect(playlistPath).toBe(`/api/gettriplet/${JOB}`);
  await page.getByRole('button', { name: 'Go to the test' }).click();
  await vote(page, 0, 2, { replays: 0, choice: 'last' }, LABELS);
  await vote(page, 1, 2, { replays: 2, choice: 'first', modifyFirst: true }, LABELS);
  await expect(page.locator('#verification-code')).toHaveText(/^\S+$/, { timeout: 30_000 });

  const ratings = await storedRatings(glimpse, playlist.session_id!);
  expect(ratings.map(({ stimulus, value, nbReplay }) => ({ stimulus, value, nbReplay }))).toEqual([
    { stimulus: playlist.stimulis[0]!.stimuliId, value: 1, nbReplay: 0 },
    { stimulus: playlist.stimulis[1]!.stimuliId, value: 0, nbReplay: 2 },
  ]);
  for (const [i, rating] of ratings.entries()) {
    expectTimed(rating, ['ABC']);
    const s = playlist.stimulis[i]!;
    expect(rating.presentations[0]![0]!.media).toEqual(s.reversed ? [s.sourceC, s.sourceB, s.sourceA] : [s.sourceA, s.sourceB, s.sourceC]);
  }
});

test('triplet: the stage draws the three images in one row, sourceB in the middle', async ({ page, participant }) => {
  const { playlist } = await openInstructions(page, participant.linkTo('protocols-triplet-probe'), IMAGE);
  await page.getByRole('button', { name: 'Go to the test' }).click();
  await waitTrial(page, 0, 'playing');
  const s = playlist.stimulis[0]!;
  const order = s.reversed ? [s.sourceC, s.sourceB, s.sourceA] : [s.sourceA, s.sourceB, s.sourceC];
  const row = order.map((media): MediaBox => ({ media: media!, size: { width: 320, height: 180 } })) as [MediaBox, MediaBox, MediaBox];
  const size = await stageSize(page);
  const items = layoutTripletRow(size, row);
  expect(items[1].media).toBe(s.sourceB);
  await expectDrawn(page, items, [
    [4, 4],
    [size.width / 2, 20],
  ]);
});
