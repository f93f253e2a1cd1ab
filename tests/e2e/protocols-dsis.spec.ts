/**
 * double_stimulus_impairment_scale (/dsis/{id}) journey against the real server, database and Chromium: a training
 * pass that shows each example's reference score and stores nothing, the test instructions again, then the
 * reference and the impaired image one after another and the impairment scale (value = ITU grade 5..1).
 */
import { E2E_JOBS, expect, test } from './fixtures';
import { askedPlays, eventually, expectTimed, openInstructions, sessionLogsOf, storedRatings, voteDialog } from './protocols-steps';

const LEVELS = ['Imperceptible', 'Perceptible but not annoying', 'Slightly annoying', 'Annoying', 'Very annoying'];
const JOB = E2E_JOBS.double_stimulus_impairment_scale;

test('DSIS: the training stores nothing, then the stored values are the grades chosen for the impaired images', async ({ page, glimpse, participant }) => {
  const { playlist, playlistPath } = await openInstructions(page, participant.linkTo(JOB), '/instructions/dsis.svg');
  expect(playlistPath).toBe(`/api/getdsis/${JOB}`);
  expect(playlist.stimulis_training).toHaveLength(1);
  expect(playlist.stimulis_training[0]!.value).toBe(1);

  // Training: the example's score is shown, 'Next scoring example' moves on, nothing is sent.
  const posts: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/ratings/')) posts.push(r.postData() ?? '');
  });
  await page.getByRole('button', { name: 'Go to the training' }).click();
  let modal = await voteDialog(page, 0, 1);
  await expect(modal.locator('#training-reference')).toHaveText('Score of this example: Very annoying');
  await expect(modal.locator('.level-reference')).toHaveText('Very annoying');
  await expect(modal.locator('.level')).toHaveText(LEVELS);
  await expect(modal.getByRole('button')).toHaveText(['Next scoring example']);
  await modal.getByRole('button', { name: 'Next scoring example' }).click();

  // Back to the instructions, training finished: the test instructions only (not the pages announcing the
  // training again), then the test.
  await expect(page.locator('img.instruction-image')).toHaveAttribute('src', '/instructions/dsis.svg');
  await expect(page.locator('main.screen')).toContainText('The training is over. The test starts now');
  await expect(page.locator('main.screen')).not.toContainText('Instructions for double_stimulus_impairment_scale');
  await expect(page.locator('#instructions-next')).toHaveCount(0);
  await page.getByRole('button', { name: 'Go to the test' }).click();
  const total = playlist.stimulis.length;
  const choices = ['Slightly annoying', 'Imperceptible'];
  for (const [index, choice] of choices.entries()) {
    modal = await voteDialog(page, index, total);
    await expect(modal.getByRole('button')).toHaveText(LEVELS);
    await modal.getByRole('button', { name: choice, exact: true }).click();
    await modal.getByRole('button', { name: 'Submit' }).click();
  }
  await expect(page.locator('#verification-code')).toHaveText(/^\S+$/, { timeout: 30_000 });
  expect(posts).toHaveLength(2);

  const session = (await participant.session(JOB))!;
  const ratings = await storedRatings(glimpse, session.id);
  expect(ratings.map(({ stimulus, value }) => ({ stimulus, value }))).toEqual([
    { stimulus: playlist.stimulis[0]!.stimuliId, value: 3 },
    { stimulus: playlist.stimulis[1]!.stimuliId, value: 5 },
  ]);
  const trainingRatings = await glimpse.db.selectFrom('ratings').select('id').where('stimulus_id', '=', playlist.stimulis_training[0]!.stimuliId).execute();
  expect(trainingRatings).toEqual([]);
  for (const [i, rating] of ratings.entries()) {
    expectTimed(rating, ['A', 'gap', 'B']);
    // The reference first, a blank, then the impaired image.
    const [play] = askedPlays(rating.presentations);
    expect(play!.map((r) => r.media)).toEqual([[playlist.stimulis[i]!.sourceA], [], [playlist.stimulis[i]!.sourceB]]);
    expect(play![1]!.requestedFrames).toBeGreaterThan(0);
  }

  const logs = await eventually(() => sessionLogsOf(glimpse, session.id), (rows) => rows.length > 0);
  const states = (JSON.parse(logs[0]!.body).logStates as Array<{ state: string; status: string }>).map((s) => `${s.state}:${s.status}`);
  expect(states).toEqual(expect.arrayContaining(['Loading:training', 'Test:training', 'Instruction:instructions-after-training', 'Test:test', 'Result:ok']));
  expect(states.indexOf('Test:training')).toBeLessThan(states.indexOf('Instruction:instructions-after-training'));
});
