/**
 * acceptability_annoyance (/accann/{id}, playlist of the ACR path) journeys against the real server, database and
 * Chromium: the two-level dialog with its three labels, values 2 / 1 / 0, in English and on the French lab platform.
 */
import { E2E_JOBS, expect, test } from './fixtures';
import { expectTimed, openInstructions, storedRatings, voteDialog } from './protocols-steps';

const JOB = E2E_JOBS.acceptability_annoyance;

for (const lang of ['en', 'fr'] as const) {
  const t: { go: string; labels: string[]; submit: string; modify: string; query: Record<string, string> } =
    lang === 'en'
      ? { go: 'Go to the test', labels: ['Not Annoying', 'Annoying but Acceptable', 'Not Acceptable'], submit: 'Submit', modify: 'Modify', query: {} }
      : { go: 'Aller au test', labels: ['Pas Gênante', 'Gênante mais Acceptable', 'Pas Acceptable'], submit: 'Valider', modify: 'Modifier', query: { platform: 'nantes' } };

  test(`acceptability (${lang}): two levels, three labels; the stored values are the labels' numbers`, async ({ page, glimpse, participant }) => {
    const { playlist, playlistPath } = await openInstructions(page, participant.linkTo(JOB, t.query), '/instructions/accann.svg', lang);
    expect(playlistPath).toBe(`/api/getacr/${JOB}`);
    await page.getByRole('button', { name: t.go }).click();
    const [notAnnoying, annoyingAcceptable, notAcceptable] = t.labels as [string, string, string];

    let modal = await voteDialog(page, 0, 2);
    const groups = modal.locator('.level-group');
    await expect(groups).toHaveCount(2);
    await expect(groups.nth(0).getByRole('button')).toHaveText([notAnnoying, annoyingAcceptable]);
    await expect(groups.nth(1).getByRole('button')).toHaveText([notAcceptable]);
    await modal.getByRole('button', { name: notAcceptable, exact: true }).click();
    await modal.getByRole('button', { name: t.submit }).click();

    modal = await voteDialog(page, 1, 2);
    await modal.getByRole('button', { name: notAnnoying, exact: true }).click();
    await modal.getByRole('button', { name: t.modify }).click();
    await modal.getByRole('button', { name: annoyingAcceptable, exact: true }).click();
    await expect(modal.locator('.vote-choice')).toHaveText(annoyingAcceptable);
    await modal.getByRole('button', { name: t.submit }).click();

    await expect(page.locator('#verification-code')).toHaveText(/^\S+$/, { timeout: 30_000 });
    const ratings = await storedRatings(glimpse, playlist.session_id!);
    expect(ratings.map((r) => [r.stimulus, r.value])).toEqual([
      [playlist.stimulis[0]!.stimuliId, 0],
      [playlist.stimulis[1]!.stimuliId, 1],
    ]);
    for (const rating of ratings) expectTimed(rating, ['S']);
  });
}
