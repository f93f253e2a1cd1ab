/**
 * The two 3D demo studies that `npm start` imports (studies/demo-3d-*.json, their media made from their file names
 * by scripts/demo as npm start makes them), walked by a participant in Chromium (WebGL2 on SwiftShader) from the
 * link to the verification code:
 * - the textured-mesh ACR: each mesh turns once (360 poses at 60 poses/s), then the five levels; the stored values
 *   are the levels clicked, each rating has its turntable record and its camera poses (`views`);
 * - the point-cloud pair in inspect mode: the dialog waits for the 5 s minimum inspection and says "Left object" /
 *   "Right object" / "Replay objects" and sits clear of the objects (they stay up while it is); a drag on the first
 *   pair turns the shared camera; the stored values are the positions clicked and each rating's `views` holds the
 *   inspected poses.
 * The e2e 3D studies (objects-3d.spec.ts) test the mechanics on tiny objects; this one tests the demo as shipped.
 */
import type { Page } from '@playwright/test';
import { DEMO_STUDIES, DEMO_STUDIES_DIR, expect, runGlimpseServer, test as e2eTest, type GlimpseServer } from './fixtures';
import { ACR_LEVELS, dialogClearOfObjects, openInstructions, rateAcrLevels, voteDialog, waitTrial } from './protocols-steps';
import type { ViewsRecord } from '../../src/contract/payloads.js';
import type { PresentationRecord } from '../../src/web/stage/types.js';

const MESH_ACR = 'demo-3d-mesh-acr';
const CLOUD_PAIR = 'demo-3d-cloud-pair';

/** The same journeys' fixtures, on a server that imports the 3D demo studies instead of the e2e ones. */
const test = e2eTest.extend<object, { glimpse: GlimpseServer }>({
  glimpse: [
    async ({}, use) => {
      const files = DEMO_STUDIES.filter((s) => s.id === MESH_ACR || s.id === CLOUD_PAIR).map((s) => s.file);
      expect(files).toHaveLength(2);
      await runGlimpseServer(DEMO_STUDIES_DIR, files, use);
    },
    { scope: 'worker', timeout: 180_000 },
  ],
});

/** The session's stored ratings in stimulus order: value, replays, timing plays and parsed views. */
async function storedRows(glimpse: GlimpseServer, sessionId: number) {
  const rows = await glimpse.db.selectFrom('ratings').selectAll().where('session_id', '=', sessionId).orderBy('id').execute();
  return rows.map((r) => ({
    stimulus: r.stimulus_id,
    value: r.value,
    nbReplay: r.nb_replay,
    ...(JSON.parse(r.timing!) as { plays: PresentationRecord[][]; mediaError?: string }),
    views: r.views === null ? null : (JSON.parse(r.views) as ViewsRecord),
  }));
}

async function dragOnStage(page: Page, dx: number, dy: number): Promise<void> {
  const box = (await page.locator('#stage-host').boundingBox())!;
  const [x, y] = [box.x + box.width * 0.25, box.y + box.height * 0.5];
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx, y + dy, { steps: 6 });
  await page.mouse.up();
}

test('demo mesh ACR: every mesh turns once, the levels clicked are stored with the turntable records and poses', async ({ page, glimpse, participant }) => {
  test.setTimeout(240_000);
  const { playlist } = await openInstructions(page, participant.linkTo(MESH_ACR), '/instructions/acr-3d.svg');
  await page.getByRole('button', { name: 'Go to the test' }).click();
  const total = playlist.stimulis.length;
  expect(total).toBe(7);
  await expect(page.locator('#question')).toHaveText('How would you rate the visual quality of this object?', { timeout: 60_000 });
  const clicks = ['Good', 'Poor', 'Excellent', 'Fair', 'Bad', 'Good', 'Fair'];
  await rateAcrLevels(page, clicks, total);
  await expect(page.locator('#verification-code')).toHaveText(/^\S+$/, { timeout: 30_000 });

  const rows = await storedRows(glimpse, (await participant.session(MESH_ACR))!.id);
  expect(rows.map(({ stimulus, value, nbReplay }) => ({ stimulus, value, nbReplay }))).toEqual(
    playlist.stimulis.map((s, i) => ({ stimulus: s.stimuliId, value: ACR_LEVELS.indexOf(clicks[i]!), nbReplay: 0 })),
  );
  for (const [i, row] of rows.entries()) {
    const [record] = row.plays[0]!;
    expect(record).toMatchObject({ label: 'S', endedBy: 'video-end', media: [playlist.stimulis[i]!.source] });
    expect(row.mediaError).toBeUndefined();
    // One turn at 60°/s, poses at 60/s: 360 poses, each drawn or skipped by a dropped frame (named in `skips`).
    const object = record!.object!;
    expect(object).toMatchObject({ mode: 'turntable', frames: 360, posesPerSecond: 60 });
    expect(object.drawnFrames + object.skippedFrames!).toBe(360);
    expect(object.skips?.length ?? 0).toBe(object.skippedFrames);
    // The study's elevation (20°) and start (0°); the turn never goes past one revolution.
    expect(row.views!.mode).toBe('turntable');
    const samples = row.views!.samples;
    expect(samples.length).toBeGreaterThan(10);
    expect(samples[0]).toMatchObject({ play: 0, az: 0, el: 20, dist: 1 });
    expect(samples.every((s, k) => s.el === 20 && (k === 0 || s.az >= samples[k - 1]!.az))).toBe(true);
    expect(samples.at(-1)!.az).toBeLessThan(360);
  }
});

test('demo point-cloud pair: inspect for 5 s, the dialog names objects, positions clicked and inspected poses are stored', async ({ page, glimpse, participant }) => {
  test.setTimeout(240_000);
  const { playlist } = await openInstructions(page, participant.linkTo(CLOUD_PAIR), '/instructions/pair-3d.svg');
  await page.getByRole('button', { name: 'Go to the test' }).click();
  const total = playlist.stimulis.length;
  expect(total).toBe(5);
  await expect(page.locator('#question')).toHaveText('Which point cloud has the better visual quality?', { timeout: 60_000 });
  const clicks = ['Right object', 'Left object', 'Left object', 'Right object', 'Left object'] as const;
  for (const [i, choice] of clicks.entries()) {
    await waitTrial(page, i, 'playing');
    if (i === 0) {
      await page.waitForFunction(() => window.__glimpseStage?.objectPose != null);
      // The answer waits for the 5 s minimum inspection; the objects turn together meanwhile.
      await expect(page.locator('#vote-modal')).toBeHidden();
      await dragOnStage(page, -100, 25);
      await expect(page.locator('#vote-modal')).toBeHidden();
    }
    const modal = await voteDialog(page, i, total);
    await expect(modal.getByRole('button')).toHaveText(['Left object', 'Right object', 'Replay objects']);
    // The objects stay up while the dialog is: it sits in the band their layout left free, clear of both.
    if (i === 0) await dialogClearOfObjects(page, 2);
    await modal.getByRole('button', { name: choice }).click();
    await modal.getByRole('button', { name: 'Submit' }).click();
  }
  await expect(page.locator('#verification-code')).toHaveText(/^\S+$/, { timeout: 30_000 });

  const rows = await storedRows(glimpse, (await participant.session(CLOUD_PAIR))!.id);
  expect(rows.map(({ stimulus, value, nbReplay }) => ({ stimulus, value, nbReplay }))).toEqual(
    playlist.stimulis.map((s, i) => ({ stimulus: s.stimuliId, value: clicks[i] === 'Left object' ? 0 : 1, nbReplay: 0 })),
  );
  for (const [i, row] of rows.entries()) {
    const [record] = row.plays[0]!;
    const stimulus = playlist.stimulis[i]!;
    expect(record).toMatchObject({ label: 'AB', endedBy: 'answer', media: [stimulus.sourceA, stimulus.sourceB] });
    expect(row.mediaError).toBeUndefined();
    expect(record!.object).toMatchObject({ mode: 'inspect', media: [stimulus.sourceA, stimulus.sourceB], frames: null });
    expect(record!.offsetMs - record!.onsetMs).toBeGreaterThanOrEqual(5000);
    // The inspection starts at the study's pose (azimuth 0, elevation 15, the fitted distance) on every pair.
    expect(row.views!.mode).toBe('inspect');
    const samples = row.views!.samples;
    expect(samples.length).toBeGreaterThan(10);
    expect(samples[0]).toMatchObject({ play: 0, az: 0, el: 15, dist: 1 });
  }
  // The drag on the first pair: 0.4° a CSS pixel, 100 px to the left turns the camera +40°, 25 px down raises it 10°.
  const dragged = rows[0]!.views!.samples.at(-1)!;
  expect(dragged.az).toBeCloseTo(40, 6);
  expect(dragged.el).toBeCloseTo(25, 6);
});
