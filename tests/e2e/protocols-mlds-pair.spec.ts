/**
 * mlds_pair (/mlds_pair/{id}, playlist /api/getmldspc/) journey against the real server, database and Chromium:
 * a pair comparison with its own playlist path and instruction image; values first 0, last 1.
 */
import { E2E_JOBS, expect, test } from './fixtures';
import { vote, type VoteLabels } from './participantSteps';
import { expectTimed, openInstructions, storedRatings } from './protocols-steps';

const LABELS: VoteLabels = { first: 'First Image', last: 'Last Image', replay: 'Replay Images' };
const JOB = E2E_JOBS.mlds_pair;

test('mlds_pair: the stored values are the images chosen, from the MLDS pair playlist', async ({ page, glimpse, participant }) => {
  const { playlist, playlistPath } = await openInstructions(page, participant.linkTo(JOB), '/instructions/mlds-pair.svg');
  expect(playlistPath).toBe(`/api/getmldspc/${JOB}`);
  await page.getByRole('button', { name: 'Go to the test' }).click();
  await vote(page, 0, 2, { replays: 1, choice: 'last' }, LABELS);
  await vote(page, 1, 2, { replays: 0, choice: 'first' }, LABELS);
  await expect(page.locator('#verification-code')).toHaveText(/^\S+$/, { timeout: 30_000 });

  const ratings = await storedRatings(glimpse, playlist.session_id!);
  expect(ratings.map(({ stimulus, value, nbReplay }) => ({ stimulus, value, nbReplay }))).toEqual([
    { stimulus: playlist.stimulis[0]!.stimuliId, value: 1, nbReplay: 1 },
    { stimulus: playlist.stimulis[1]!.stimuliId, value: 0, nbReplay: 0 },
  ]);
  for (const [i, rating] of ratings.entries()) {
    expectTimed(rating, ['AB']);
    const s = playlist.stimulis[i]!;
    expect(rating.presentations[0]![0]!.media).toEqual(s.reversed ? [s.sourceB, s.sourceA] : [s.sourceA, s.sourceB]);
  }
});
