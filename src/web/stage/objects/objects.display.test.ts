/**
 * 3D objects on the real <Stage> (bench/3d page) on the virtual display (testkit/virtualDisplay.ts): Chromium draws
 * a frame only when the test sends one, so load cannot drop a frame, and every frame is captured.
 * - turntable: each captured frame k of the step shows the pose due at its refresh; it is compared with a golden
 *   render of that pose (the same object drawn as a one-pose turntable at that azimuth): mean absolute difference
 *   ≤ GOLDEN_TOLERANCE levels per channel, and farther from the neighbouring poses' goldens;
 * - turntable timing: with no dropped frame every pose is drawn on its refreshes (100 %); an injected missed vsync
 *   skips exactly the pose due then, and the record names it;
 * - inspect pair: while the pointer drags, every captured frame draws both objects (the same model twice) from one
 *   pose (left and right halves equal), and the pose moves in the frame that delivers the drag (pose-to-pixel);
 * - a broken file is refused with a StageMediaError of kind 'model'.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveBenchPage } from '../../../../bench/timing/benchPage';
import { cropRgb as crop, meanDifference as meanDiff } from '../../../../testkit/captureRuns';
import { againOnLostCapture, keepCapture, LostCaptureError, VirtualDisplay, type DisplayFrame } from '../../../../testkit/virtualDisplay';
import { OBJECT_DEFAULTS, type ResolvedObjectOptions } from '../../../contract/objects';
import type { PresentationRecord, PresentationStep, Rect } from '../types';

/** Mean absolute difference per channel (0–255) between a frame and its golden render. */
const GOLDEN_TOLERANCE = 1;
const FIXTURES = 'tests/fixtures/objects';
const SINGLE: Rect = { x: 140, y: 20, width: 200, height: 200 };
const LEFT: Rect = { x: 20, y: 20, width: 200, height: 200 };
const RIGHT: Rect = { x: 260, y: 20, width: 200, height: 200 };

let served: { url: string; close(): Promise<void> };
let display: VirtualDisplay;

const b64 = (file: string) => readFileSync(`${FIXTURES}/${file}`).toString('base64');

beforeAll(async () => {
  served = await serveBenchPage({ root: 'bench/3d', outDir: 'objects-display-test' });
  display = await VirtualDisplay.launch({ refreshHz: 60, width: 480, height: 240 });
  await display.goto(served.url);
  await display.evaluate(() => window.__bench3d.ready(), null);
  await display.read(([cube, cloud]) => {
    window.__bench3d.addModel('cube-a.glb', 'model/gltf-binary', cube);
    window.__bench3d.addModel('cube-b.glb', 'model/gltf-binary', cube);
    window.__bench3d.addModel('cloud.ply', 'model/ply', cloud);
    window.__bench3d.addModel('broken.glb', 'model/gltf-binary', btoa('glTF not really'));
  }, [b64('cube.glb'), b64('cloud.ply')] as const);
  const prepared = await display.evaluate(() => window.__bench3d.prepare(['cube-a.glb', 'cube-b.glb', 'cloud.ply']), null);
  expect(prepared.value).toEqual([1024, 1024, 1024].map((n) => ({ width: n, height: n })));
}, 180_000);

afterAll(async () => {
  await display?.close();
  await served?.close();
});

const options = (o: Partial<ResolvedObjectOptions>): ResolvedObjectOptions => ({ ...OBJECT_DEFAULTS, ...o });
const single = (media: string, rect: Rect, object: ResolvedObjectOptions, end: PresentationStep['end']): PresentationStep => ({ label: 'S', items: [{ media, rect, object }], end });

interface Played {
  records: PresentationRecord[];
  poses: Array<{ frame: number; t: number; az: number; el: number; dist: number }>;
  frames: DisplayFrame[];
}

/** Plays to the end with every frame captured; the frames drawing the step are matched to its poses by time. */
async function play(steps: PresentationStep[], plan?: (n: number) => { missedVsyncs?: number } | undefined): Promise<Played> {
  const { value, frames } = await display.evaluate(
    async (s) => {
      await window.__bench3d.startPlay(s);
      return window.__bench3d.playing!;
    },
    steps,
    { capture: true, plan },
  );
  if (!Array.isArray(value)) throw new Error(`play failed: ${JSON.stringify(value)}`);
  const poses = await display.read(() => window.__bench3d.poses, null);
  return { records: value, poses, frames };
}

/**
 * The captured frames that drew the given rAF timestamps: a page's rAF stamp is the frame time sent, less a constant
 * origin (and coarsened to 0.1 ms), so the offset is the one that puts every stamp on a sent frame.
 */
function framesAt(frames: DisplayFrame[], stamps: number[]): DisplayFrame[] {
  for (const candidate of frames) {
    const offset = candidate.timeMs - stamps[0]!;
    const matched = stamps.map((t) => frames.find((f) => Math.abs(f.timeMs - offset - t) < 0.3));
    if (matched.every((f) => f?.png)) return matched as DisplayFrame[];
  }
  throw new Error('the captured frames do not hold every pose drawn');
}

/** The golden render of a turntable pose: the object drawn as a one-pose turntable at that azimuth. */
async function golden(media: string, o: ResolvedObjectOptions, az: number): Promise<Buffer> {
  const { poses, frames } = await play([single(media, SINGLE, { ...o, startAzimuthDeg: az, frames: 1 }, { kind: 'video-end' })]);
  return crop(framesAt(frames, [poses[0]!.t])[0]!.png!, SINGLE);
}

describe('3D objects on the virtual display', () => {
  // In one of two fresh-clone CI runs on 2026-11-27 the capture at refresh 2 matched no pose's golden render at all
  // (mean difference 29) while the page recorded pose 1 drawn there; not reproduced (a capture taken before
  // SwiftShader finished the frame is the suspect). Such a capture is the harness's failure, named as one
  // (LostCaptureError, kept under test-results/virtual-display/) and checked once more; a capture showing another
  // pose than the one due fails at once.
  it('turntable: every captured frame shows the pose due at its refresh, as its golden render does', { timeout: 180_000 }, () => againOnLostCapture(async () => {
    // 30 poses/s at 60 Hz: pose k at refreshes 2k and 2k + 1; 12° per pose.
    const o = options({ mode: 'turntable', degreesPerSecond: 360, posesPerSecond: 30, frames: 8, elevationDeg: 20, startAzimuthDeg: 10 });
    const { records, poses, frames } = await play([single('cube-a.glb', SINGLE, o, { kind: 'video-end' })]);
    const record = records[0]!;
    expect(record.endedBy).toBe('video-end');
    expect(record.shownFrames).toBe(16);
    expect(record.object).toMatchObject({ mode: 'turntable', frames: 8, drawnFrames: 8, skippedFrames: 0, repeatedFrames: 0, posesPerSecond: 30 });
    expect(poses.map((p) => p.frame)).toEqual([...Array(16).keys()]);
    const goldens = new Map<number, Buffer>();
    for (let k = -1; k <= 8; k++) goldens.set(k, await golden('cube-a.glb', o, 10 + 12 * k));
    const shownFrames = framesAt(frames, poses.map((p) => p.t));
    for (const [i, pose] of poses.entries()) {
      const k = Math.floor(pose.frame / 2);
      expect(pose.az).toBeCloseTo(10 + 12 * k, 9);
      const shown = await crop(shownFrames[i]!.png!, SINGLE);
      const closest = Math.min(...[...goldens.values()].map((g) => meanDiff(shown, g)));
      if (closest > GOLDEN_TOLERANCE + 2) {
        const kept = keepCapture('objects-turntable', { capture: shownFrames[i]!.png!, golden: goldens.get(k)!, record, poses });
        throw new LostCaptureError(`the capture of refresh ${pose.frame} shows no pose at all (closest mean difference ${closest.toFixed(1)}): an unfinished capture; kept in ${kept}`);
      }
      const own = meanDiff(shown, goldens.get(k)!);
      expect(own, `refresh ${pose.frame}: pose ${k}`).toBeLessThanOrEqual(GOLDEN_TOLERANCE);
      for (const other of [k - 1, k + 1]) expect(meanDiff(shown, goldens.get(other)!)).toBeGreaterThan(own + 2);
    }
  }));

  it('turntable: 100 % of poses on their refresh without drops; an injected missed vsync skips the pose due then, named in the record', async () => {
    const o = options({ mode: 'turntable', degreesPerSecond: 120, posesPerSecond: 60, frames: 30, elevationDeg: 10 });
    const clean = await play([single('cloud.ply', SINGLE, o, { kind: 'video-end' })]);
    expect(clean.records[0]!.object).toMatchObject({ frames: 30, drawnFrames: 30, skippedFrames: 0, repeatedFrames: 0 });
    expect(clean.poses.map((p) => p.frame)).toEqual([...Array(30).keys()]);
    expect(clean.poses.map((p) => p.az)).toEqual([...Array(30).keys()].map((k) => 2 * k));
    // One missed vsync a few frames into the step: the refresh it spans shows no new pose.
    // The onset comes in the first frames sent: frame 12 is inside the 30-refresh step.
    const dropped = await play([single('cloud.ply', SINGLE, o, { kind: 'video-end' })], (n) => (n === 12 ? { missedVsyncs: 1 } : undefined));
    const record = dropped.records[0]!;
    const skipped = record.object!.skips ?? [];
    expect(record.droppedFrames).toBe(1);
    expect(record.shownFrames).toBe(30);
    expect(record.renderedFrames).toBe(29);
    // The pose before the miss stayed up for the refresh it spanned: one repeat, one skip.
    expect(record.object).toMatchObject({ drawnFrames: 29, skippedFrames: 1, repeatedFrames: 1 });
    expect(skipped).toHaveLength(1);
    // Every drop skipped exactly the poses due at the refreshes it spanned: drawn + skipped = all poses.
    expect(record.object!.drawnFrames + record.object!.skippedFrames!).toBe(30);
    const drawn = new Set(dropped.poses.map((p) => p.frame));
    for (const skip of skipped) expect(drawn.has(skip.refresh)).toBe(false);
  }, 120_000);

  it('inspect pair: both objects are drawn from one pose on every frame, and a drag moves it in the frame that delivers it', async () => {
    const o = options({ mode: 'inspect', elevationDeg: 15, elevationRange: [-60, 60], zoom: [0.5, 2] });
    const steps: PresentationStep[] = [{ label: 'AB', items: [{ media: 'cube-a.glb', rect: LEFT, object: o }, { media: 'cube-b.glb', rect: RIGHT, object: o }], end: { kind: 'hold' } }];
    await display.evaluate((s) => window.__bench3d.startPlay(s), steps);
    // Poses drawn from here on are all captured.
    const firstCaptured = await display.read(() => window.__bench3d.poses.length, null);
    const captured: DisplayFrame[] = [...(await display.frames(3, { capture: true }))];
    captured.push(...(await display.mouse('mousePressed', 120, 120, { capture: true })));
    const latencies: number[] = [];
    for (let i = 1; i <= 6; i++) {
      const before = await display.read(() => window.__glimpseStage!.objectPose, null);
      const sent = await display.mouse('mouseMoved', 120 + 15 * i, 120 + 4 * i, { capture: true });
      captured.push(...sent);
      const after = await display.read(() => window.__glimpseStage!.objectPose, null);
      // Frames sent until the event was delivered, and whether the frame that delivered it drew the new pose.
      latencies.push(after!.az !== before!.az ? sent.length : Infinity);
    }
    captured.push(...(await display.mouse('mouseReleased', 210, 144, { capture: true })));
    captured.push(...(await display.frames(2, { capture: true })));
    const records = (await display.evaluate(() => window.__bench3d.release(), null)).value as PresentationRecord[];
    const poses = await display.read(() => window.__bench3d.poses, null);
    expect(records[0]).toMatchObject({ endedBy: 'answer', object: { mode: 'inspect', media: ['cube-a.glb', 'cube-b.glb'] } });
    expect(new Set(poses.map((p) => p.az)).size).toBeGreaterThanOrEqual(6);
    expect(latencies.every((n) => n <= 1)).toBe(true);
    const drawnWhileCaptured = poses.slice(firstCaptured);
    const frames = framesAt(captured, drawnWhileCaptured.map((p) => p.t));
    expect(frames.length).toBeGreaterThanOrEqual(10);
    for (const [i, frame] of frames.entries()) {
      const [left, right] = await Promise.all([crop(frame.png!, LEFT), crop(frame.png!, RIGHT)]);
      expect(meanDiff(left, right), `frame ${i} (az ${drawnWhileCaptured[i]!.az})`).toBeLessThanOrEqual(GOLDEN_TOLERANCE);
    }
  }, 120_000);

  it('a broken file is refused as a model that cannot be decoded', async () => {
    const { value } = await display.evaluate(() => window.__bench3d.prepare(['broken.glb']), null);
    expect(value).toMatchObject({ name: 'StageMediaError' });
    expect((value as { error: string }).error).toContain('Cannot show model "broken.glb" (decode)');
  }, 60_000);
});
