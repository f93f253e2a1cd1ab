/**
 * bench:display, bubble part: pointer-to-pixel latency in display frames on the virtual display, for (a) ours (the
 * real <Stage> showing a bubble item), (b) PixiJS BlurFilter + circular mask and (c) CSS filter: blur() under a
 * clip-path: circle() sharp copy — bench/bubble's page and conditions, unchanged. A mouse move is sent between two
 * frames (Input.dispatchMouseEvent after one HeadlessExperimental.beginFrame has returned, before the next); the
 * frames after it are captured, and the first one whose pixels are sharp at the pointer is found from the PNG alone
 * (the window is the only sharp part of a blurred busy image). 1 = the very next frame.
 */
import { decodePng } from '../../testkit/frameCode';
import type { RgbaImage } from '../../testkit/frameCode';
import type { DisplayFrame, VirtualDisplay } from '../../testkit/virtualDisplay';
import type { Setup } from '../bubble/figures';

export type Method = 'ours' | 'pixi-filter' | 'css';
export const METHODS: Method[] = ['ours', 'pixi-filter', 'css'];

const SIGMA = 16;
/** Frames captured after the one that acknowledged the move (the window must show within them). */
const FRAMES_AFTER = 4;
/** Half-width of the square read around the pointer: well inside the window (radius height / 8). */
const PATCH = 16;
/** The window is at the target when the patch there is this many times sharper than before the move. */
const MIN_CONTRAST = 2;

/** Pointer targets ≥ 2 radii apart in turn, so a window never covers the next target before it moves there. */
function targets(width: number, height: number, moves: number): Array<{ x: number; y: number }> {
  const cycle = [
    [0.17, 0.25],
    [0.83, 0.75],
    [0.83, 0.25],
    [0.17, 0.75],
    [0.5, 0.5],
  ];
  return Array.from({ length: moves }, (_, k) => ({ x: Math.round(cycle[k % 5][0] * width), y: Math.round(cycle[k % 5][1] * height) }));
}

/** Mean absolute difference of neighbouring pixels' luma in the patch around (x, y): high where sharp. */
export function sharpnessAt(image: RgbaImage, x: number, y: number): number {
  const luma = (px: number, py: number) => {
    const i = (py * image.width + px) * 4;
    return (image.data[i] + image.data[i + 1] + image.data[i + 2]) / 3;
  };
  let sum = 0;
  let n = 0;
  for (let py = y - PATCH; py < y + PATCH; py++) {
    for (let px = x - PATCH; px < x + PATCH; px++) {
      sum += Math.abs(luma(px + 1, py) - luma(px, py)) + Math.abs(luma(px, py + 1) - luma(px, py));
      n += 1;
    }
  }
  return sum / n;
}

export interface LatencyMove {
  x: number;
  y: number;
  /** 1-based index of the first frame after the event that is sharp at the pointer; null if none within the frames. */
  frames: number | null;
  /** Sharpness at the target in the frame before the event (blurred) and in the last frame captured (sharp). */
  blurredBefore: number;
  sharpAfter: number;
}

export interface LatencyRow {
  hz: number;
  method: Method;
  moves: LatencyMove[];
  /** Moves drawn in the very next frame / all moves. */
  nextFrame: number;
  /** Frames from the event to the window at the pointer: histogram {frames: count}, "none" when not seen. */
  histogram: Record<string, number>;
}

export async function bubbleLatency(display: VirtualDisplay, url: string, rates: number[], moves: number, log: (line: string) => void): Promise<LatencyRow[]> {
  const { width, height } = display;
  await display.goto(url);
  await display.evaluate(([w, h]) => window.__bubbleBench.makePhotoLike('photo.png', w, h), [width, height] as const);
  const setup: Setup = { width, height, image: 'photo.png', sigma: SIGMA, radius: Math.round(height / 8) };
  const rows: LatencyRow[] = [];
  for (const hz of rates) {
    display.setRefreshRate(hz);
    for (const method of METHODS) {
      if (method === 'ours') {
        await display.evaluate(([w, h]) => window.__bubbleBench.mount(w, h), [width, height] as const);
        await display.frames(90); // the stage sees the new rate
        await display.evaluate((view) => window.__bubbleBench.show(view), {
          media: 'photo.png',
          rect: { x: 0, y: 0, width, height },
          bubble: { sigma: SIGMA, radius: setup.radius },
        });
      } else {
        await display.evaluate(([k, s]) => window.__bubbleBench.startLatency(k, s), [method, setup] as const);
      }
      const row = await measureMoves(display, hz, method, targets(width, height, moves));
      if (method === 'ours') await display.evaluate(() => window.__bubbleBench.clear(), null);
      else await display.evaluate(() => window.__bubbleBench.stopLatency(), null);
      rows.push(row);
      log(`${hz} Hz ${method}: next frame ${row.nextFrame}/${row.moves.length}, frames ${JSON.stringify(row.histogram)}`);
    }
  }
  return rows;
}

async function measureMoves(display: VirtualDisplay, hz: number, method: Method, points: Array<{ x: number; y: number }>): Promise<LatencyRow> {
  // Put the window at a start point and let it settle, so the first move starts from a drawn window.
  const start = points.at(-1)!;
  await display.mouse('mouseMoved', start.x, start.y);
  let last = (await display.frames(3, { capture: true })).at(-1)!;
  const moves: LatencyMove[] = [];
  for (const p of points) {
    const before = await decodePng(last.png!);
    const blurredBefore = sharpnessAt(before, p.x, p.y);
    // The event goes out now, between the frame just returned and the next one.
    const acknowledged: DisplayFrame[] = await display.mouse('mouseMoved', p.x, p.y, { capture: true });
    const frames = [...acknowledged, ...(await display.frames(FRAMES_AFTER, { capture: true }))];
    const sharpness = await Promise.all(frames.map(async (f) => sharpnessAt(await decodePng(f.png!), p.x, p.y)));
    // The last frame, FRAMES_AFTER frames on, has the window at the target (its sharp level there) unless it never
    // came; a frame shows it when it is nearer that level than the blurred one.
    const sharpAfter = sharpness.at(-1)!;
    const windowCame = sharpAfter > MIN_CONTRAST * blurredBefore;
    const index = sharpness.findIndex((s) => s > (sharpAfter + blurredBefore) / 2);
    moves.push({ x: p.x, y: p.y, frames: windowCame && index >= 0 ? index + 1 : null, sharpAfter: round(sharpAfter), blurredBefore: round(blurredBefore) });
    last = frames.at(-1)!;
  }
  const histogram: Record<string, number> = {};
  for (const m of moves) histogram[m.frames ?? 'none'] = (histogram[m.frames ?? 'none'] ?? 0) + 1;
  return { hz, method, moves, nextFrame: moves.filter((m) => m.frames === 1).length, histogram };
}

const round = (x: number) => Math.round(x * 100) / 100;
