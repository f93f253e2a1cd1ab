/**
 * Exact video colour (docs/pixels.md) on the virtual display: colour-bar clips (75 % bars and a skin
 * tone, tests/fixtures/colour, made by scripts/make-colour-clips.ts) in BT.601 and BT.709, limited and full range,
 * tagged and untagged, and turned by their container's rotation, drawn by the real <Stage> at native scale; each
 * bar's centre on the captured frame is within one level per channel of ffmpeg's decode of the same clip with the
 * matrix and range the clip calls for, as players show it (turned).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveBenchPage } from '../../../bench/timing/benchPage';
import { shownSize } from '../../../scripts/make-colour-clips';
import { colourReferences, drawnBars, openColourDisplay, worstBar } from '../../../testkit/pixelFidelity';
import type { VirtualDisplay } from '../../../testkit/virtualDisplay';

const REFERENCE = colourReferences();

let served: { url: string; close(): Promise<void> };
let display: VirtualDisplay;

beforeAll(async () => {
  served = await serveBenchPage({ outDir: 'stage-colour-test' });
  display = await openColourDisplay(served.url);
}, 180_000);

afterAll(async () => {
  await display?.close();
  await served?.close();
});

describe('Video colour on the virtual display', () => {
  for (const [file, clip] of Object.entries(REFERENCE)) {
    const turned = clip.rotation ? `, turned ${clip.rotation}°` : '';
    it(`${file} (${clip.matrix}, ${clip.range === 'tv' ? 'limited' : 'full'} range, ${clip.tagged ? 'tagged' : 'untagged'}${turned}): every bar within one level of the reference decode`, async () => {
      const drawn = await drawnBars(display, file, clip);
      // Converted by the stage from the decoded planes; a rotated clip is laid out at its turned size.
      expect(drawn.upload).toBe('planes');
      expect(drawn.size).toEqual(shownSize(clip));
      expect(worstBar(drawn.bars, clip.bars), JSON.stringify({ drawn: drawn.bars, reference: clip.bars })).toBeLessThanOrEqual(1);
    }, 60_000);
  }
});
