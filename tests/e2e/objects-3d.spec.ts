/**
 * 3D objects (docs/3d-objects.md) end to end against the real server, database and Chromium (WebGL2 on
 * SwiftShader, so the objects are tiny: tests/e2e/studies/media/objects, from `npm run media:3d-fixtures`):
 * - a turntable ACR study: each object turns once, then the levels; stored values equal the clicks, every play is
 *   timed with its poses (drawn + skipped = all poses), the answer carries the camera poses (`views`);
 * - a synchronised inspect pair: the answer buttons wait for the minimum inspection, a drag turns both objects, a
 *   replay starts the inspection again as play 1, the
 *   dialog says "Left object" / "Right object" / "Replay objects", the stored values are the positions clicked, the
 *   posted views hold the inspected poses;
 * - a 3D object that cannot be loaded: the dialog still opens, the answer is stored with its mediaError;
 * - at 1280×720, 1366×768 and 1920×1080, in every protocol that shows objects, the dialog never covers an object
 *   drawn on the stage (inspect: beside or below them; turntable: they have gone before it opens).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page, Request } from '@playwright/test';
import type { RatingBody } from '../../src/contract/payloads.js';
import type { PresentationRecord } from '../../src/web/stage/types.js';
import { expect, test } from './fixtures';
import { exportedRows } from './participantSteps';
import { ACR_LEVELS, dialogClearOfObjects, openInstructions, rateAcrLevels, storedRatings, voteDialog, waitTrial } from './protocols-steps';


/** The rating bodies the page posts (the views travel in them). */
function postedRatings(page: Page): RatingBody[] {
  const bodies: RatingBody[] = [];
  page.on('request', (request: Request) => {
    if (request.method() === 'POST' && /\/api\/ratings\/?$/.test(new URL(request.url()).pathname)) bodies.push(request.postDataJSON() as RatingBody);
  });
  return bodies;
}

test('turntable ACR: each object turns once, the stored values are the levels clicked, plays and poses are recorded', async ({ page, glimpse, participant }) => {
  const job = 'e2e-3d-turntable-acr';
  const posted = postedRatings(page);
  const { playlist } = await openInstructions(page, participant.linkTo(job), '/instructions/acr-3d.svg');
  await page.getByRole('button', { name: 'Go to the test' }).click();
  const total = playlist.stimulis.length;
  expect(total).toBe(3);
  await expect(page.locator('#question')).toHaveText('How would you rate the visual quality of this object?', { timeout: 30_000 });
  const clicks = ['Good', 'Bad', 'Excellent'];
  await rateAcrLevels(page, clicks, total);
  await expect(page.locator('#verification-code')).toHaveText(/^\S+$/, { timeout: 30_000 });
  const session = (await participant.session(job))!;
  const ratings = await storedRatings(glimpse, session.id);
  expect(ratings.map(({ stimulus, value }) => ({ stimulus, value }))).toEqual(playlist.stimulis.map((s, i) => ({ stimulus: s.stimuliId, value: ACR_LEVELS.indexOf(clicks[i]!) })));
  for (const [i, rating] of ratings.entries()) {
    const [record] = rating.presentations[0]! as PresentationRecord[];
    expect(record!.label).toBe('S');
    expect(record!.media).toEqual([playlist.stimulis[i]!.source]);
    expect(record!.endedBy).toBe('video-end');
    expect(record!.renderDoneMs).toBeGreaterThanOrEqual(record!.onsetMs);
    // One turn at 360°/s and 30 poses/s: 30 poses, each drawn or (a dropped frame on this slow machine) skipped.
    const object = record!.object!;
    expect(object).toMatchObject({ mode: 'turntable', frames: 30, posesPerSecond: 30, media: [playlist.stimulis[i]!.source] });
    expect(object.drawnFrames + object.skippedFrames!).toBe(30);
    expect(object.skips?.length ?? 0).toBe(object.skippedFrames);
  }
  // The export holds the timing records: one presentation row per play, and the object records in each rating's timing.
  const steps = await exportedRows(glimpse, job, 'presentations', session.id);
  expect(steps.map((s) => [s.label, s.ended_by])).toEqual([0, 1, 2].map(() => ['S', 'video-end']));
  const exported = await exportedRows(glimpse, job, 'ratings', session.id);
  expect(exported.map((r) => (r.timing as { plays: PresentationRecord[][] }).plays[0]![0]!.object!.frames)).toEqual([30, 30, 30]);
  expect(posted).toHaveLength(3);
  for (const [i, body] of posted.entries()) {
    expect(body.views!.mode).toBe('turntable');
    const samples = body.views!.samples;
    expect(samples.length).toBeGreaterThan(1);
    expect(samples.every((s) => s.play === 0 && s.el === 20 && s.dist === 1)).toBe(true);
    // The third stimulus starts at 90° (its own `object` key); azimuths only grow, within one turn.
    const start = i === 2 ? 90 : 0;
    expect(samples[0]!.az).toBe(start);
    expect(samples.every((s, k) => k === 0 || s.az >= samples[k - 1]!.az)).toBe(true);
    expect(samples.at(-1)!.az).toBeLessThan(start + 360);
  }
});

test('inspect pair: the buttons wait for the minimum inspection, a drag turns both objects, values and views are stored', async ({ page, glimpse, participant }) => {
  const job = 'e2e-3d-inspect-pair';
  const posted = postedRatings(page);
  const { playlist } = await openInstructions(page, participant.linkTo(job), '/instructions/pair-3d.svg');
  await page.getByRole('button', { name: 'Go to the test' }).click();
  const total = playlist.stimulis.length;
  const host = page.locator('#stage-host');
  for (const [i, choice] of (['Right object', 'Left object'] as const).entries()) {
    if (i === 1) {
      // Replay the second pair once: the inspection starts again from the start pose, as play 1.
      await (await voteDialog(page, 1, total)).getByRole('button', { name: 'Replay objects' }).click();
      await expect(page.locator('#trial')).toHaveAttribute('data-replays', '1');
    }
    await waitTrial(page, i, 'playing');
    await page.waitForFunction(() => window.__glimpseStage?.objectPose != null);
    // The objects are up; the dialog waits for the 1500 ms minimum inspection.
    await expect(page.locator('#vote-modal')).toBeHidden();
    const box = (await host.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.25, box.y + box.height * 0.4);
    await page.mouse.wheel(0, -200);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.25 + 120, box.y + box.height * 0.4 + 30, { steps: 6 });
    await page.mouse.up();
    const modal = await voteDialog(page, i, total);
    await expect(modal.getByRole('button')).toHaveText(['Left object', 'Right object', 'Replay objects']);
    await modal.getByRole('button', { name: choice }).click();
    await modal.getByRole('button', { name: 'Submit' }).click();
  }
  await expect(page.locator('#verification-code')).toHaveText(/^\S+$/, { timeout: 30_000 });
  const session = (await participant.session(job))!;
  const ratings = await storedRatings(glimpse, session.id);
  expect(ratings.map((r) => [r.value, r.nbReplay, r.presentations.length])).toEqual([
    [1, 0, 1],
    [0, 1, 2],
  ]);
  for (const [i, rating] of ratings.entries()) {
    const [record] = rating.presentations.at(-1)! as PresentationRecord[];
    const stimulus = playlist.stimulis[i]!;
    expect(record).toMatchObject({ label: 'AB', endedBy: 'answer', media: [stimulus.sourceA, stimulus.sourceB] });
    expect(record!.object).toMatchObject({ mode: 'inspect', media: [stimulus.sourceA, stimulus.sourceB], frames: null });
    // The buttons opened after the minimum inspection: the answer came at least 1500 ms after the onset.
    expect(record!.offsetMs - record!.onsetMs).toBeGreaterThanOrEqual(1500);
  }
  expect(posted).toHaveLength(2);
  for (const [i, body] of posted.entries()) {
    // The replayed pair's views hold both plays; its last play is the one dragged after the replay.
    expect([...new Set(body.views!.samples.map((s) => s.play))]).toEqual(i === 0 ? [0] : [0, 1]);
    const samples = body.views!.samples.filter((s) => s.play === (i === 0 ? 0 : 1));
    expect(body.views!.mode).toBe('inspect');
    // The drag turned the camera (0.4° a pixel: 120 px to the right is -48°) and tilted it; the wheel zoomed in.
    expect(samples[0]).toMatchObject({ az: 0, el: 15, dist: 1 });
    const last = samples.at(-1)!;
    expect(last.az).toBeCloseTo(-48, 6);
    expect(last.el).toBeCloseTo(15 + 30 * 0.4, 6);
    expect(last.dist).toBeCloseTo(Math.exp(-0.2), 6);
    expect(samples.every((s, k) => k === 0 || s.t > samples[k - 1]!.t)).toBe(true);
  }
});

test('a 3D object that cannot be loaded: the levels still open and the answer is stored with its mediaError', async ({ page, glimpse, participant }) => {
  const job = 'e2e-3d-missing';
  rmSync(join(glimpse.mediaDir, job, 'objects', 'cloud-ascii.ply'));
  const { playlist } = await openInstructions(page, participant.linkTo(job), '/instructions/acr-3d.svg');
  await page.getByRole('button', { name: 'Go to the test' }).click();
  const modal = await voteDialog(page, 0, playlist.stimulis.length);
  await modal.getByRole('button', { name: 'Fair', exact: true }).click();
  await modal.getByRole('button', { name: 'Submit' }).click();
  await expect(page.locator('#verification-code')).toHaveText(/^\S+$/, { timeout: 30_000 });
  const [rating] = await glimpse.db.selectFrom('ratings').selectAll().where('session_id', '=', (await participant.session(job))!.id).execute();
  expect(rating!.value).toBe(2);
  expect(JSON.parse(rating!.timing!).mediaError).toContain('cloud-ascii.ply');
});

/** The 3D e2e study of each protocol that shows objects, inspected (the objects stay up with the dialog), and a turntable. */
const DIALOG_STUDIES = [
  { job: 'e2e-3d-inspect-acr', image: '/instructions/acr-3d.svg', held: 1 },
  { job: 'e2e-3d-inspect-accann', image: '/instructions/accann-3d.svg', held: 1 },
  { job: 'e2e-3d-inspect-dsis', image: '/instructions/dsis-3d.svg', held: 2 },
  { job: 'e2e-3d-inspect-pair', image: '/instructions/pair-3d.svg', held: 2 },
  { job: 'e2e-3d-inspect-mlds-pair', image: '/instructions/mlds-pair-3d.svg', held: 1 },
  { job: 'e2e-3d-turntable-acr', image: '/instructions/acr-3d.svg', held: 0 },
] as const;

for (const viewport of [
  { width: 1280, height: 720 },
  { width: 1366, height: 768 },
  { width: 1920, height: 1080 },
]) {
  test(`at ${viewport.width}×${viewport.height} the dialog never covers a 3D object, in every protocol that shows them`, async ({ page, participant }) => {
    test.setTimeout(300_000);
    await page.setViewportSize(viewport);
    const report: string[] = [];
    for (const { job, image, held } of DIALOG_STUDIES) {
      const { playlist } = await openInstructions(page, participant.linkTo(job), image);
      await page.getByRole('button', { name: 'Go to the test' }).click();
      const total = playlist.stimulis.length;
      for (let i = 0; i < total; i++) {
        const modal = await voteDialog(page, i, total);
        // Inspected objects are on screen with the dialog (their first frame may follow it); a turntable has ended.
        if (held > 0) await page.waitForFunction(() => (window.__glimpseStage?.objectRects.length ?? 0) > 0);
        const host = (await page.locator('#stage-host').boundingBox())!;
        const question = (await page.locator('#question').boundingBox())!;
        expect(host.y).toBeGreaterThanOrEqual(question.y + question.height - 1);
        report.push(`${job} ${i + 1}/${total}: ${await dialogClearOfObjects(page, held)}`);
        if (i === 0) await page.screenshot({ path: test.info().outputPath(`${job}-dialog.png`) });
        // The chosen answer and Submit / Modify: the dialog changes size, and stays clear.
        await modal.getByRole('button').first().click();
        await expect(modal.getByRole('button', { name: 'Submit' })).toBeVisible();
        report.push(`${job} ${i + 1}/${total} confirming: ${await dialogClearOfObjects(page, held)}`);
        await modal.getByRole('button', { name: 'Submit' }).click();
      }
      await expect(page.locator('#verification-code')).toHaveText(/^\S+$/, { timeout: 30_000 });
    }
    await test.info().attach(`rectangles at ${viewport.width}×${viewport.height}`, { body: report.join('\n'), contentType: 'text/plain' });
    console.log(`${viewport.width}×${viewport.height}\n  ${report.join('\n  ')}`);
  });
}

test('a 2D study never loads three.js: no 3D chunk is fetched from the welcome screen to the end of the test', async ({ page, participant }) => {
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
  });
  const { playlist } = await openInstructions(page, participant.linkTo('e2e-acr'), '/instructions/acr.svg');
  await page.getByRole('button', { name: 'Go to the test' }).click();
  for (let i = 0; i < playlist.stimulis.length; i++) {
    const modal = await voteDialog(page, i, playlist.stimulis.length);
    await modal.getByRole('button', { name: 'Good', exact: true }).click();
    await modal.getByRole('button', { name: 'Submit' }).click();
  }
  await expect(page.locator('#verification-code')).toHaveText(/^\S+$/, { timeout: 30_000 });
  expect(scripts.some((path) => /\/Stage-/.test(path))).toBe(true);
  expect(scripts.filter((path) => /objectRenderer|modelLoader|three/i.test(path))).toEqual([]);
});
