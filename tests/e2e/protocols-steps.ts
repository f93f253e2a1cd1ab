/**
 * Steps shared by the protocol journeys (protocols-*.spec.ts; pvidScreens.spec.ts uses the pixel probe): the instruction screen with its image, waiting for
 * a trial, reading the timing records stored with a rating, checking with pixel probes that the stage drew
 * each media where the plan put it, and that the vote dialog stays clear of 3D objects. The journey itself (eligibility, welcome) is participantSteps.ts.
 */
import { resolve } from 'node:path';
import type { Page, Response } from '@playwright/test';
import sharp from 'sharp';
import type { PlaylistResponse, PlaylistStimulus } from '../../src/contract/playlist.js';
import type { PresentationRecord, StageItem } from '../../src/web/stage/types.js';
import { expect, type GlimpseServer } from './fixtures';
import { askedPlays, ratingsOf } from './participantSteps';

export { askedPlays, eventually, ratingsOf, sessionLogsOf } from './participantSteps';

/** The labels of the journey's screens in the page's language. */
const JOURNEY = {
  en: { continue: 'Continue', next: 'Next' },
  fr: { continue: 'Continuer', next: 'Suivant' },
};

/**
 * Open the link, pass eligibility and the welcome screen, and stop on the instructions, checking that the
 * protocol's instruction image is shown and loaded. Resolves with the playlist (and the path it came from).
 */
export async function openInstructions(
  page: Page,
  link: string,
  image: string,
  lang: 'en' | 'fr' = 'en',
): Promise<{ playlist: PlaylistResponse<PlaylistStimulus>; playlistPath: string }> {
  const answer: Promise<Response> = page.waitForResponse((r) => /\/api\/get[a-z]+\/[^/?]+\?/.test(r.url()));
  await page.goto(link);
  await page.getByRole('button', { name: JOURNEY[lang].continue }).click();
  const response = await answer;
  const playlist = (await response.json()) as PlaylistResponse<PlaylistStimulus>;
  if (lang === 'en') await page.getByLabel('I have read and I accept the').check();
  await page.getByRole('button', { name: JOURNEY[lang].next }).click();
  const img = page.locator('img.instruction-image');
  await expect(img).toHaveAttribute('src', image);
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(640);
  return { playlist, playlistPath: new URL(response.url()).pathname };
}

/** Wait until stimulus `index` is in `status` (#trial is the page's own record of where the trial stands). */
export async function waitTrial(page: Page, index: number, status: 'playing' | 'responding'): Promise<void> {
  const trial = page.locator('#trial');
  await expect(trial).toHaveAttribute('data-index', String(index), { timeout: 60_000 });
  await expect(trial).toHaveAttribute('data-status', status, { timeout: 60_000 });
  if (status === 'responding') await expect(page.locator('#vote-modal')).toBeVisible();
}

/** The vote dialog, checked to show "index / length" for stimulus `index` of `total`. */
export async function voteDialog(page: Page, index: number, total: number) {
  await waitTrial(page, index, 'responding');
  const modal = page.locator('#vote-modal');
  await expect(modal.getByText(`${index + 1} / ${total}`, { exact: true })).toBeVisible();
  return modal;
}

/** The ACR dialog's levels, best first (a level's index is the value stored). */
export const ACR_LEVELS = ['Excellent', 'Good', 'Fair', 'Poor', 'Bad'];

/** Answers stimulus after stimulus of an ACR page with the levels given, checking each dialog's buttons. */
export async function rateAcrLevels(page: Page, levels: readonly string[], total: number): Promise<void> {
  for (const [i, level] of levels.entries()) {
    const modal = await voteDialog(page, i, total);
    await expect(modal.getByRole('button')).toHaveText(ACR_LEVELS);
    await modal.getByRole('button', { name: level, exact: true }).click();
    await modal.getByRole('button', { name: 'Submit' }).click();
  }
}

export interface StoredRating {
  stimulus: number;
  value: number;
  nbReplay: number;
  /** One list of records per play (the first, then each replay). */
  presentations: PresentationRecord[][];
}

/** The session's ratings in the order stored, with their timing records parsed. */
export async function storedRatings(glimpse: GlimpseServer, sessionId: number): Promise<StoredRating[]> {
  return (await ratingsOf(glimpse, sessionId)).map((r) => ({
    stimulus: r.stimulus_id,
    value: r.value,
    nbReplay: r.nb_replay,
    presentations: (JSON.parse(r.timing!) as { plays: PresentationRecord[][] }).plays,
  }));
}

/**
 * Every play the participant asked for is frame-timed like a pair's: labels as planned, each step shown for at least
 * one frame (a play the stage interrupted and played again is set aside: askedPlays).
 */
export function expectTimed(rating: StoredRating, labels: string[]): void {
  const asked = askedPlays(rating.presentations);
  expect(asked).toHaveLength(rating.nbReplay + 1);
  for (const play of asked) {
    expect(play.map((r) => r.label)).toEqual(labels);
    for (const record of play) {
      expect(record.shownFrames).toBeGreaterThan(0);
      expect(record.refreshMs).toBeGreaterThan(0);
      expect(record.offsetMs).toBeGreaterThan(record.onsetMs);
    }
  }
}

const E2E_MEDIA = resolve('tests/e2e/studies/media');

/** Centre pixel of a served media ("{jobId}/{path}") as decoded by sharp: what the canvas must show there. */
async function centrePixelOf(media: string): Promise<number[]> {
  const file = `${E2E_MEDIA}/${media.split('/').slice(1).join('/')}`;
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const offset = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * 3;
  return [data[offset]!, data[offset + 1]!, data[offset + 2]!];
}

const centre = (item: StageItem) => [item.rect.x + Math.floor(item.rect.width / 2), item.rect.y + Math.floor(item.rect.height / 2)] as const;
const probe = (page: Page, x: number, y: number) => page.evaluate(([px, py]) => window.__glimpseStage!.probe(px!, py!), [x, y]);
const close = (got: number[], expected: number[]) => [0, 1, 2].every((ch) => Math.abs(got[ch]! - expected[ch]!) <= 8);

/**
 * Pixel probes while a stimulus is on screen: the centre of each planned item shows that media's centre pixel, and
 * each of `blank` (canvas points where no media belongs) shows the background. Call while the step lasts.
 */
export async function expectDrawn(page: Page, items: StageItem[], blank: Array<[number, number]>, background = [128, 128, 128]): Promise<void> {
  const expected = await Promise.all(items.map((item) => centrePixelOf(item.media)));
  // The media must be told apart, or the probe proves nothing about their places.
  for (let i = 0; i < expected.length; i++) for (let j = i + 1; j < expected.length; j++) expect(close(expected[i]!, expected[j]!)).toBe(false);
  // Every point is read, and read again until all match: the step's first frame may come a frame after 'playing',
  // and on a loaded machine the stage may blank an interrupted step and play it again.
  const mismatches = async () => {
    const got = await Promise.all([...items.map((item) => probe(page, ...centre(item))), ...blank.map(([x, y]) => probe(page, x, y))]);
    const wanted = [...expected, ...blank.map(() => background)];
    const where = [...items.map((item) => `${item.media} at its centre`), ...blank.map(([x, y]) => `background at ${x},${y}`)];
    return where.flatMap((w, i) => (close(got[i]!, wanted[i]!) ? [] : [`${w}: drew ${got[i]}, expected ${wanted[i]}`]));
  };
  await expect.poll(mismatches, { timeout: 15_000 }).toEqual([]);
}

/** The stage canvas size (layouts are computed against it). */
export function stageSize(page: Page): Promise<{ width: number; height: number }> {
  return page.evaluate(() => window.__glimpseStage!.size());
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const shown = (b: Box) => `${b.width}×${b.height} at (${b.x}, ${b.y})`;

/**
 * The vote dialog against the 3D objects the stage draws while it is open (the engine's own rectangles, placed on
 * the page by the canvas's box; `held` of them): apart, and the dialog whole in the window. Returns them, for a report.
 */
export async function dialogClearOfObjects(page: Page, held: number): Promise<string> {
  const viewport = page.viewportSize()!;
  const canvas = (await page.locator('#stage-host canvas').boundingBox())!;
  const dialog = await page.locator('#vote-modal').evaluate((el) => el.getBoundingClientRect().toJSON() as Box);
  const objects = (await page.evaluate(() => window.__glimpseStage!.objectRects)).map((r) => ({ ...r, x: canvas.x + r.x, y: canvas.y + r.y }));
  expect(objects).toHaveLength(held);
  for (const object of objects) {
    // Square, whole on the canvas.
    expect(object.width).toBe(object.height);
    expect(object.x >= canvas.x && object.y >= canvas.y && object.x + object.width <= canvas.x + canvas.width && object.y + object.height <= canvas.y + canvas.height).toBe(true);
  }
  for (const object of objects) expect(overlaps(dialog, object), `dialog ${shown(dialog)} over object ${shown(object)}`).toBe(false);
  expect(dialog.x).toBeGreaterThanOrEqual(0);
  expect(dialog.y).toBeGreaterThanOrEqual(0);
  expect(dialog.x + dialog.width).toBeLessThanOrEqual(viewport.width);
  expect(dialog.y + dialog.height).toBeLessThanOrEqual(viewport.height);
  // Nothing is cut off: the dialog did not have to scroll in its place.
  expect(await page.locator('#vote-modal').evaluate((el) => el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1)).toBe(true);
  return `dialog ${shown(dialog)}; objects ${objects.map(shown).join(', ') || 'none drawn'}`;
}
