/**
 * Exact video colour (README "Pixel-exact stimuli") on the virtual display: colour-bar clips (75 % bars and a skin
 * tone, tests/fixtures/colour, made by scripts/make-colour-clips.ts) in BT.601 and BT.709, limited and full range,
 * tagged and untagged, drawn by the real <Stage> at native scale; each bar's centre on the captured frame is within
 * one level per channel of ffmpeg's decode of the same clip with the matrix and range the clip calls for.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveBenchPage } from '../../../bench/timing/benchPage';
import { shownBarCentre, shownSize, type ColourClip } from '../../../scripts/make-colour-clips';
import { decodePng } from '../../../testkit/frameCode';
import { VirtualDisplay } from '../../../testkit/virtualDisplay';
import { layoutSingle } from './layouts';
import type { PresentationStep } from './types';

const FIXTURES = join(import.meta.dirname, '../../../tests/fixtures/colour');
interface Reference extends ColourClip {
  bars: Array<[number, number, number]>;
}
const REFERENCE = JSON.parse(readFileSync(join(FIXTURES, 'reference.json'), 'utf8')) as { clips: Record<string, Reference> };

let served: { url: string; close(): Promise<void> };
let display: VirtualDisplay;

beforeAll(async () => {
  served = await serveBenchPage({ outDir: 'stage-colour-test' });
  display = await VirtualDisplay.launch({ refreshHz: 60, width: 1320, height: 760, pace: 'free' });
  await display.goto(served.url);
  await display.evaluate(() => window.__bench.ready(), null);
  // The bench page's stage is 640×360: the whole window here, for the 1280×720 clip.
  await display.evaluate(async () => {
    Object.assign(document.getElementById('stage')!.style, { width: '1320px', height: '760px' });
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  }, null);
}, 180_000);

afterAll(async () => {
  await display?.close();
  await served?.close();
});

/** The bars as the stage drew the clip's first frame (a paused video step), read at each bar's centre. */
async function drawnBars(file: string, clip: Reference): Promise<Array<[number, number, number]>> {
  const base64 = readFileSync(join(FIXTURES, file)).toString('base64');
  await display.evaluate(([name, data]) => window.__bench.addBase64(name, 'video', 'video/mp4', data), [file, base64] as const);
  const { value: prepared } = await display.evaluate(async (name) => {
    await window.__bench.prepare([name]);
    return { device: window.__bench.controller!.devicePixels(), upload: window.__glimpseStage!.videoUpload(name), size: window.__bench.controller!.mediaSize(name) };
  }, file);
  // A rotated clip is laid out at its turned size, as a <video> element reports it.
  expect(prepared.size).toEqual(shownSize(clip));
  // Converted by the stage from the decoded planes, with the clip's matrix and range.
  expect(prepared.upload).toBe('planes');
  const { device } = prepared;
  const item = layoutSingle({ width: device.width, height: device.height, pixelRatio: 1, scaling: 'native' }, { media: file, size: shownSize(clip) });
  const step: PresentationStep = { label: 'V', items: [{ ...item, paused: true }], end: { kind: 'duration', ms: 50 } };
  const { value, frames } = await display.evaluate(
    async (s) => {
      await window.__bench.startPlay([s]);
      return window.__bench.playing!;
    },
    step,
    { capture: true },
  );
  if (!Array.isArray(value)) throw new Error(`play failed: ${JSON.stringify(value)}`);
  const capture = await decodePng(frames[Math.max(0, frames.length - 2)]!.png!);
  return clip.bars.map((_, i) => {
    const { x, y } = shownBarCentre(i, clip);
    const [r, g, b] = capture.pixel(item.pixels!.device.x + x, item.pixels!.device.y + y);
    return [r, g, b];
  });
}

describe('Video colour on the virtual display', () => {
  for (const [file, clip] of Object.entries(REFERENCE.clips)) {
    const turned = clip.rotation ? `, turned ${clip.rotation}°` : '';
    it(`${file} (${clip.matrix}, ${clip.range === 'tv' ? 'limited' : 'full'} range, ${clip.tagged ? 'tagged' : 'untagged'}${turned}): every bar within one level of the reference decode`, async () => {
      const drawn = await drawnBars(file, clip);
      const worst = Math.max(...drawn.flatMap((rgb, i) => rgb.map((v, c) => Math.abs(v - clip.bars[i]![c]!))));
      expect(worst, JSON.stringify({ drawn, reference: clip.bars })).toBeLessThanOrEqual(1);
    }, 60_000);
  }
});
