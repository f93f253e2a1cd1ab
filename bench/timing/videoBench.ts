/**
 * The video section of bench:timing (`npm run bench:timing -- --video` runs it alone): frame-coded clips at 30 fps,
 * 320×180 and 1280×720 (2 s, H.264, made with ffmpeg into .tmp/), played in one page on the real-time 60 Hz headless
 * clock, interleaved play by play: (stage) the StageController on its clock, a watcher reading the canvas every clock
 * frame; (element) a plain <video> element by its own account (requestVideoFrameCallback). Figures per condition:
 * clip frames skipped per play, the share of plays with an exact cadence, refreshes per frame; the ratio of skipped
 * frames stage / element in the same run; and whether the stage's record says what the watcher saw.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { encodeFrameCoded } from '../../scripts/make-frame-coded-clips';
import { round } from './analysis';
import type { VideoPlay } from './videoConditions';

const FPS = 30;
const SECONDS = 2;
const SIZES = [
  { width: 320, height: 180 },
  { width: 1280, height: 720 },
];

export interface VideoCondition {
  method: 'stage' | 'element';
  size: string;
  plays: number;
  /** Clip frames never shown, per play (mean), and in all plays. */
  skippedPerPlay: number;
  skippedTotal: number;
  /** Plays where frames 0…N−2 were each shown exactly their cadence (2 refreshes), none skipped (the last frame's
   * end is left out: the element's own account has no time for it). */
  exactCadenceShare: number;
  /** How many shown frames stayed 1, 2, 3, … refreshes (frames 0…N−2). */
  refreshesHistogram: Record<string, number>;
  /** Stage only: plays whose record (drawn / skipped frames) equals what the watcher saw. */
  recordMatchesWatcherShare?: number;
  /** Stage only: plays whose last frame stayed exactly its 2 refreshes. */
  lastFrameExactShare?: number;
  /** Stage only: how frames reached the texture ('pixels': RGBA bytes copied ahead; 'frames': the VideoFrame). */
  upload?: string;
  /**
   * Stage only: plays the stage ended because it could not draw them as timed (a refresh change read from frames
   * that fell to a steady half rate, for one), left out of the figures above, and their causes.
   */
  interruptedPlays?: number;
  interruptedBy?: string[];
}

function figures(method: 'stage' | 'element', size: string, plays: VideoPlay[], frames: number): VideoCondition {
  const due = 60 / FPS;
  let skippedTotal = 0;
  let exact = 0;
  let lastExact = 0;
  let recordMatches = 0;
  const histogram: Record<string, number> = {};
  for (const play of plays) {
    const shown = new Set(play.seen.map((s) => s.frame));
    const skipped = Array.from({ length: frames }, (_, k) => k).filter((k) => !shown.has(k)).length;
    skippedTotal += skipped;
    const body = play.seen.filter((s) => s.frame < frames - 1);
    for (const s of body) histogram[s.refreshes] = (histogram[s.refreshes] ?? 0) + 1;
    if (skipped === 0 && body.every((s) => s.refreshes === due)) exact++;
    if (play.seen.at(-1)?.frame === frames - 1 && play.seen.at(-1)?.refreshes === due) lastExact++;
    const video = play.record?.videos?.[0];
    if (video && video.skippedFrames === skipped && video.drawnFrames === shown.size) recordMatches++;
  }
  return {
    method,
    size,
    plays: plays.length,
    skippedPerPlay: round(skippedTotal / plays.length, 2),
    skippedTotal,
    exactCadenceShare: round(exact / plays.length, 3),
    refreshesHistogram: histogram,
    ...(method === 'stage'
      ? {
          recordMatchesWatcherShare: round(recordMatches / plays.length, 3),
          lastFrameExactShare: round(lastExact / plays.length, 3),
          upload: [...new Set(plays.map((p) => p.upload ?? 'unknown'))].join('+'),
        }
      : {}),
  };
}

export async function runVideoBench(page: Page, repoRoot: string, plays: number, log: (m: string) => void): Promise<{ conditions: VideoCondition[]; skippedRatio: Record<string, number | null> }> {
  const conditions: VideoCondition[] = [];
  const skippedRatio: Record<string, number | null> = {};
  for (const { width, height } of SIZES) {
    const size = `${width}x${height}`;
    const file = path.join(repoRoot, '.tmp', `bench-clip-${size}.mp4`);
    encodeFrameCoded(file, { fps: FPS, seconds: SECONDS, width, height });
    const name = `clip-${size}.mp4`;
    await page.evaluate(([n, b]) => window.__bench.addBase64(n, 'video', 'video/mp4', b), [name, readFileSync(file).toString('base64')] as const);
    const frameTimes = Array.from({ length: FPS * SECONDS }, (_, k) => k / FPS);
    const stage: VideoPlay[] = [];
    const element: VideoPlay[] = [];
    log(`video ${size}: ${plays} plays each, stage and element interleaved`);
    const interrupted: string[] = [];
    for (let p = 0; p < plays; p++) {
      try {
        stage.push(...(await page.evaluate((n) => window.__bench.runVideoStage(n, 1), name)));
      } catch (error) {
        // The stage ended the play because it could not draw it as timed (issue 36): a figure, not a failed bench.
        const cause = /the stage stopped drawing: ([a-z-]+)/.exec(String(error))?.[1];
        if (!cause) throw error;
        interrupted.push(cause);
        log(`video ${size}: stage play ${p + 1} interrupted (${cause})`);
      }
      element.push(...(await page.evaluate(([n, t]) => window.__bench.runVideoElement(n, 1, t), [name, frameTimes] as const)));
    }
    const s = { ...figures('stage', size, stage, FPS * SECONDS), interruptedPlays: interrupted.length, interruptedBy: [...new Set(interrupted)] };
    const e = figures('element', size, element, FPS * SECONDS);
    conditions.push(s, e);
    skippedRatio[size] = e.skippedTotal === 0 ? (s.skippedTotal === 0 ? 1 : null) : round(s.skippedTotal / e.skippedTotal, 2);
  }
  return { conditions, skippedRatio };
}

export function videoMarkdown(r: { conditions: VideoCondition[]; skippedRatio: Record<string, number | null> }): string {
  const hist = (h: Record<string, number>) => Object.entries(h).map(([k, v]) => `${k}: ${v}`).join(', ');
  return [
    `| clip (${FPS} fps, ${SECONDS} s) | method | plays | skipped frames per play | exact cadence (plays) | refreshes per frame (frames 0…N−2) | stage record = watcher | last frame exact |`,
    '|---|---|---|---|---|---|---|---|',
    ...r.conditions.map(
      (c) =>
        `| ${c.size} | ${c.method === 'stage' ? `stage, ${c.upload} upload (watcher reads the canvas)` : 'plain <video> (its own account)'} | ${c.plays} | ${c.skippedPerPlay} | ${(c.exactCadenceShare * 100).toFixed(0)} % | ${hist(c.refreshesHistogram)} | ${c.recordMatchesWatcherShare === undefined ? '' : `${(c.recordMatchesWatcherShare * 100).toFixed(0)} %`} | ${c.lastFrameExactShare === undefined ? '' : `${(c.lastFrameExactShare * 100).toFixed(0)} %`} |`,
    ),
    '',
    `Skipped frames, stage / element: ${Object.entries(r.skippedRatio).map(([size, x]) => `${size} ${x ?? 'n/a (element 0)'}`).join('; ')}.`,
  ].join('\n');
}
