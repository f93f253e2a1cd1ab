/**
 * maximum_likelihood_difference_scaling (/mlds/{id}) journeys against the real server, database and Chromium:
 * quadruplets as a top and a bottom pair, replay, stored values top 0 / bottom 1, and pixel probes of the 2x2 layout.
 */
import { layoutQuadruplet, type MediaBox } from '../../src/web/stage/layouts.js';
import { E2E_JOBS, expect, test } from './fixtures';
import { vote, type VoteLabels } from './participantSteps';
import { expectDrawn, expectTimed, openInstructions, stageSize, storedRatings, waitTrial } from './protocols-steps';

const LABELS: VoteLabels = { first: 'Top pair of images', last: 'Bottom pair of images', replay: 'Replay Images' };
const JOB = E2E_JOBS.maximum_likelihood_difference_scaling;
const IMAGE = '/instructions/mlds.svg';

test('MLDS: the stored values are the pairs chosen (top 0, bottom 1), with every play frame-timed', async ({ page, glimpse, participant }) => {
  const { playlist, playlistPath } = await openInstructions(page, participant.linkTo(JOB), IMAGE);
  expect(playlistPath).toBe(`/api/getmlds/${JOB}`);
  await page.getByRole('button', { name: 'Go to the test' }).click();
  await expect(page.locator('#question')).toHaveText('Which pair shows the larger difference?', { timeout: 30_000 });
  await vote(page, 0, 2, { replays: 1, choice: 'first' }, LABELS);
  await vote(page, 1, 2, { replays: 0, choice: 'last', modifyFirst: true }, LABELS);
  await expect(page.locator('#verification-code')).toHaveText(/^\S+$/, { timeout: 30_000 });

  const ratings = await storedRatings(glimpse, playlist.session_id!);
  expect(ratings.map(({ stimulus, value, nbReplay }) => ({ stimulus, value, nbReplay }))).toEqual([
    { stimulus: playlist.stimulis[0]!.stimuliId, value: 0, nbReplay: 1 },
    { stimulus: playlist.stimulis[1]!.stimuliId, value: 1, nbReplay: 0 },
  ]);
  for (const [i, rating] of ratings.entries()) {
    expectTimed(rating, ['ABCD']);
    const s = playlist.stimulis[i]!;
    const shown = s.reversed ? [s.sourceC, s.sourceD, s.sourceA, s.sourceB] : [s.sourceA, s.sourceB, s.sourceC, s.sourceD];
    for (const play of rating.presentations) expect(play[0]!.media).toEqual(shown);
  }
});

test('MLDS: the stage draws the four images of a quadruplet in a 2x2 grid, top pair above the bottom pair', async ({ page, participant }) => {
  const { playlist } = await openInstructions(page, participant.linkTo('protocols-mlds-probe'), IMAGE);
  await page.getByRole('button', { name: 'Go to the test' }).click();
  await waitTrial(page, 0, 'playing');
  const s = playlist.stimulis[0]!;
  const order = s.reversed ? [s.sourceC, s.sourceD, s.sourceA, s.sourceB] : [s.sourceA, s.sourceB, s.sourceC, s.sourceD];
  const quad = order.map((media): MediaBox => ({ media: media!, size: { width: 320, height: 180 } })) as [MediaBox, MediaBox, MediaBox, MediaBox];
  const size = await stageSize(page);
  const items = layoutQuadruplet(size, quad);
  expect(items[2].rect.y).toBeGreaterThan(items[0].rect.y + 100);
  await expectDrawn(page, items, [
    [4, 4],
    [size.width - 4, size.height - 4],
  ]);
});
