/**
 * Steps of the bubble journey (/bubble/{id}) for tests/e2e/bubble*.spec.ts: they move and click the real mouse the
 * way a participant does and wait on what the participant sees, plus #bubble-trial's data attributes (the page's
 * own record of where the trial stands).
 */
import type { Page } from '@playwright/test';
import type { MouseSample } from '../../src/contract/payloads.js';
import type { BubblePlaylistStimulus, PlaylistResponse } from '../../src/contract/playlist.js';
import { bubbleLayout, HINT_BAND_PX } from '../../src/protocols/bubble/geometry.js';
import type { GlimpseServer } from './fixtures';
import { expect } from './fixtures';

export type BubblePlaylist = PlaylistResponse<BubblePlaylistStimulus>;

/**
 * Playwright's window (playwright.config.ts), the question band of the e2e bubble job (categoryTest 2: 80 px) and the
 * e2e media (320x180), centred on the stage canvas below the band: the canvas, the media's top-left and the centre
 * mark, client px.
 */
export const VIEWPORT = { width: 1280, height: 720 };
export const CANVAS = { x: 0, y: 80, width: 1280, height: 640 };
/** The media's top-left, client px: laid out below the hint band of the canvas, as the page lays it out. */
const LAYOUT = bubbleLayout(CANVAS, { width: 320, height: 180 }, { width: 320, height: 180 }, HINT_BAND_PX, { scaling: 'integer', ratio: 1 });
export const MEDIA_ORIGIN = { x: CANVAS.x + LAYOUT.media.x, y: CANVAS.y + LAYOUT.media.y };

/** Link, eligibility, welcome (privacy box unless nantes), instructions; resolves with the playlist received. */
export async function startBubble(page: Page, link: string, options: { nantes?: boolean; training?: boolean } = {}): Promise<BubblePlaylist> {
  const playlistAnswer = page.waitForResponse((r) => r.url().includes('/api/getbubble/'));
  await page.goto(link);
  await page.locator('#eligibility-continue').click();
  const playlist = (await (await playlistAnswer).json()) as BubblePlaylist;
  if (!options.nantes) await page.locator('#privacy-consent').check();
  await page.locator('#welcome-next').click();
  await page.locator('#instructions-go').click();
  return playlist;
}

export async function waitForStep(page: Page, step: string, index?: number, replays?: number): Promise<void> {
  const trial = page.locator('#bubble-trial');
  if (index !== undefined) await expect(trial).toHaveAttribute('data-index', String(index), { timeout: 60_000 });
  if (replays !== undefined) await expect(trial).toHaveAttribute('data-replays', String(replays), { timeout: 60_000 });
  await expect(trial).toHaveAttribute('data-step', step, { timeout: 60_000 });
}

/** Hold the mouse on the centre mark until the gate lets the stimulus in, then click to start it. */
export async function centreAndStart(page: Page, index: number, replays = 0): Promise<void> {
  await waitForStep(page, 'centering', index, replays);
  // The mark sits at the centre of the media, which is the window's centre when the media fits (the prompt says so).
  const mark = (await page.locator('#bubble-mark').boundingBox())!;
  const centre = { x: Math.round(mark.x + mark.width / 2), y: Math.round(mark.y + mark.height / 2) };
  await page.mouse.move(centre.x - 30, centre.y);
  await page.mouse.move(centre.x, centre.y);
  await expect(page.locator('#bubble-trial')).toHaveAttribute('data-awaiting-click', 'true', { timeout: 30_000 });
  await page.mouse.down();
  await page.mouse.up();
  await waitForStep(page, 'playing');
}

/** Move along points given in stimulus px (the e2e media is drawn at its own size, so client = origin + point). */
export async function movePath(page: Page, points: ReadonlyArray<{ x: number; y: number }>): Promise<void> {
  for (const p of points) await page.mouse.move(MEDIA_ORIGIN.x + p.x, MEDIA_ORIGIN.y + p.y);
}

/** The pause between A and B: the mark shows, then B starts when it goes. */
export async function waitForMediaB(page: Page): Promise<void> {
  await expect(page.locator('#bubble-mark')).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('#bubble-mark')).toHaveCount(0, { timeout: 30_000 });
}

export function pathOf(seed: number, count: number): Array<{ x: number; y: number }> {
  return Array.from({ length: count }, (_, i) => ({ x: 20 + ((i * 37 + seed * 11) % 280), y: 15 + ((i * 23 + seed * 7) % 150) }));
}

export interface StoredScreening {
  stimulus_id: number;
  screening_no: number;
  mouse_logs: { mediaA: MouseSample[]; mediaB: MouseSample[] };
}

export async function screeningsOf(glimpse: GlimpseServer, sessionId: number): Promise<StoredScreening[]> {
  const rows = await glimpse.db.selectFrom('screenings').selectAll().where('session_id', '=', sessionId).orderBy('id').execute();
  return rows.map((r) => ({ stimulus_id: r.stimulus_id, screening_no: r.screening_no, mouse_logs: JSON.parse(r.mouse_logs) as StoredScreening['mouse_logs'] }));
}

/** The points of `path` appear in `samples` in this order (other samples may lie between), and t increases. */
export function expectPathRecorded(samples: MouseSample[], path: ReadonlyArray<{ x: number; y: number }>): void {
  let at = 0;
  for (const p of path) {
    while (at < samples.length && !(samples[at]!.x === p.x && samples[at]!.y === p.y)) at++;
    expect(at, `point (${p.x}, ${p.y}) recorded in order`).toBeLessThan(samples.length);
    at++;
  }
  for (let i = 1; i < samples.length; i++) expect(samples[i]!.t).toBeGreaterThan(samples[i - 1]!.t);
  expect(samples.every((s) => s.vt === 0 && s.t >= 0)).toBe(true);
}
