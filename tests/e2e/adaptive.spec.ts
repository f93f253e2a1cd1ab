/**
 * The adaptive pair-comparison design in Chromium (issue 38, docs/adaptive.md): the study `adaptive-pvid` compares
 * 3 JPEG levels of 2 contents, 3 comparisons a participant, with one gold pair. A participant's playlist is made
 * when her session starts: 3 pairs of one content each and the gold pair; the database holds exactly the answers
 * she clicked, on the stimuli of her own playlist; her comparisons are judged; the next participant gets another
 * playlist.
 */
import { expect, test } from './fixtures';
import { ratingsOf, startTest, vote } from './participantSteps';

const JOB = 'adaptive-pvid';
const LABELS = { first: 'First Image', last: 'Last Image', replay: 'Replay Images' };
const pathOf = (source: string | undefined) => source!.slice(source!.indexOf('/') + 1);

test('an adaptive pair comparison: her own playlist made at arrival, the answers clicked stored on it, and her comparisons judged', async ({ page, glimpse, participant }) => {
  const playlist = await startTest(page, participant.linkTo(JOB));
  expect(playlist.stimulis).toHaveLength(4);
  const gold = playlist.stimulis.filter((s) => pathOf(s.sourceA) === 'images/city_320x180_q90.jpg' && pathOf(s.sourceB) === 'images/city_320x180_q5.jpg');
  expect(gold.length).toBeGreaterThanOrEqual(1);
  for (const s of playlist.stimulis) expect(pathOf(s.sourceA).split('_')[0]).toBe(pathOf(s.sourceB).split('_')[0]);
  const own = await glimpse.db.selectFrom('playlists').select(['adaptive', 'position']).where('id', '=', playlist.playlistId).executeTakeFirstOrThrow();
  expect(own).toEqual({ adaptive: 1, position: -1 });

  await expect(page.locator('#trial')).toBeAttached({ timeout: 30_000 });
  // The first shown wins each pair but the last, which she gives to the last shown.
  const plans = playlist.stimulis.map((_, i) => ({ replays: 0, choice: i < 3 ? ('first' as const) : ('last' as const) }));
  for (const [i, plan] of plans.entries()) await vote(page, i, plans.length, plan, LABELS);
  await expect(page.locator('#verification-code')).toHaveText(/^[A-Z3-9]{12}$/, { timeout: 30_000 });

  const session = (await participant.session(JOB))!;
  expect(session.playlist_id).toBe(playlist.playlistId);
  const ratings = await ratingsOf(glimpse, session.id);
  expect(ratings.map((r) => ({ stimulus: r.stimulus_id, value: r.value }))).toEqual(playlist.stimulis.map((s, i) => ({ stimulus: s.stimuliId, value: plans[i]!.choice === 'first' ? 0 : 1 })));
  // Her 3 comparisons were handed out and are judged now (the gold pair is not one of them).
  await expect
    .poll(async () => {
      const rows = await glimpse.db.selectFrom('adaptive_pending').select(['assigned', 'judged']).where('job_id', '=', JOB).execute();
      return [rows.reduce((n, r) => n + Number(r.assigned), 0), rows.reduce((n, r) => n + Number(r.judged), 0)];
    })
    .toEqual([3, 3]);

  // The next participant gets a playlist of her own.
  const next = await page.request.get(`/api/getrandomtasks/${JOB}?${new URLSearchParams({ platform: 'prolific', PROLIFIC_PID: `n${participant.pid}`, STUDY_ID: 'e2e', SESSION_ID: 'n' })}`);
  expect(next.status()).toBe(200);
  expect(((await next.json()) as { playlistId: number }).playlistId).not.toBe(playlist.playlistId);
});
