/**
 * Frame-exact video proven on the virtual display (testkit/virtualDisplay.ts): the real <Stage> (bench page, served
 * on 127.0.0.1 so WebCodecs is there) plays frame-coded clips (tests/fixtures/clips: each frame shows its index in
 * 8 black/white blocks) while every display frame is sent at a chosen refresh rate and captured. What each refresh
 * showed is read from the captured pixels, never from the page: the cadence is checked against clip frame k first
 * on screen at refresh ceil(k·R/f) from the onset, and the stage's record must say exactly what the capture saw.
 * Each check starts from a fresh display and runs once more if Chromium lost a capture (againOnLostCapture).
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveBenchPage, type ServedBenchPage } from '../../../bench/timing/benchPage';
import { clipFrameFromBlocks, decodePng, type RgbaImage } from '../../../testkit/frameCode';
import { againOnLostCapture, VirtualDisplay, type DisplayFrame } from '../../../testkit/virtualDisplay';
import type { PresentationRecord, PresentationStep, Rect, VideoFrameRecord } from './types';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const CLIPS = join(REPO, 'tests/fixtures/clips');
/** The clip (8 blocks of 16 px, 128×16) drawn at 2×: each bit a 32×32 block. */
const SCALE = 2;
const BLOCK = 16 * SCALE;

let served: ServedBenchPage;
let display: VirtualDisplay;
let canvas: Rect;

/** The clip frame a capture shows at the clip's place, or null (the grey background, no clip). */
function clipFrameIn(image: RgbaImage, at: Rect): number | null {
  return clipFrameFromBlocks((bit) => image.pixel(canvas.x + at.x + bit * BLOCK + BLOCK / 2, canvas.y + at.y + BLOCK / 2)[0]);
}

interface Shown {
  frame: number | null;
  /** Refreshes it stayed on screen (to the next captured frame). */
  refreshes: number;
  vsync: number;
}

/** What the screen showed, refresh by refresh, from the captures: consecutive equal frames merged. */
async function shownFromCaptures(frames: DisplayFrame[], at: Rect): Promise<Shown[]> {
  const shown: Shown[] = [];
  for (const [i, f] of frames.entries()) {
    const frame = clipFrameIn(await decodePng(f.png!), at);
    const refreshes = i + 1 < frames.length ? frames[i + 1].vsync - f.vsync : 1;
    const last = shown.at(-1);
    if (last && last.frame === frame) last.refreshes += refreshes;
    else shown.push({ frame, refreshes, vsync: f.vsync });
  }
  return shown;
}

/** Refreshes each clip frame is due, from the onset: frame k first on screen at refresh ceil(k·R/f). */
function cadence(fps: number, frames: number, hz: number): number[] {
  const first = (k: number) => Math.ceil((k * hz) / fps - 1e-9);
  return Array.from({ length: frames }, (_, k) => first(k + 1) - first(k));
}

/**
 * A fresh virtual display at `hz` with the stage loaded. (Fresh rather than setRefreshRate: above ~100 Hz virtual
 * time falls behind the wall clock, and a page loaded after that lag at a lower rate did not finish its play.)
 */
async function loadStage(hz: number, videoPath: 'auto' | 'frames' = 'auto'): Promise<void> {
  await display?.close();
  display = await VirtualDisplay.launch({ refreshHz: hz, width: 800, height: 450 });
  await display.goto(videoPath === 'auto' ? served.url : `${served.url}?video=${videoPath}`);
  const { value } = await display.evaluate(async () => {
    const { refreshMs } = await window.__bench.ready();
    return { refreshMs, rect: window.__bench.controller!.clientRect() };
  }, null);
  canvas = value.rect;
}

async function addClip(name: string, path = join(CLIPS, name)): Promise<PresentationStep> {
  const base64 = (await readFile(path)).toString('base64');
  const { value: size } = await display.evaluate(
    async ([n, b]) => {
      window.__bench.addBase64(n, 'video', n.endsWith('.webm') ? 'video/webm' : 'video/mp4', b);
      return (await window.__bench.prepare([n]))[0];
    },
    [name, base64] as const,
  );
  return { label: 'V', items: [{ media: name, rect: { x: 8, y: 8, width: size.width * SCALE, height: size.height * SCALE } }], end: { kind: 'video-end' } };
}

/**
 * Plays the step with every display frame captured: the frames sent while play() starts, `count` more (with
 * `misses(i)` missed vsyncs before the i-th), then until play() resolves.
 */
async function playCaptured(step: PresentationStep, count: number, misses: (i: number) => number = () => 0): Promise<{ frames: DisplayFrame[]; record: PresentationRecord }> {
  const started = await display.evaluate((s) => window.__bench.startPlay([s]), step, { capture: true, maxFrames: 600 });
  const frames = [...started.frames];
  for (let i = 0; i < count; i++) frames.push(await display.frame({ capture: true, missedVsyncs: misses(i) }));
  const { value, frames: tail } = await display.evaluate(() => window.__bench.playing!, null, { capture: true, maxFrames: 3000 });
  frames.push(...tail);
  if (!Array.isArray(value)) throw new Error(`play failed: ${JSON.stringify(value)}`);
  return { frames, record: value[0] };
}

/** What the capture says of each clip frame, in the record's terms: drawn, skipped, repeated beyond the cadence. */
function fromCapture(shown: Shown[], due: number[]) {
  const clip = shown.filter((s) => s.frame !== null);
  const onset = clip[0].vsync;
  const starts = due.reduce<number[]>((acc, d) => [...acc, acc.at(-1)! + d], [0]);
  const drawn = new Map(clip.map((s) => [s.frame!, s]));
  const skipped = due.flatMap((_, k) => (drawn.has(k) ? [] : [{ frame: k, refresh: starts[k] }]));
  const repeats = clip.flatMap((s) => (s.refreshes > due[s.frame!] ? [{ frame: s.frame!, refresh: s.vsync - onset + due[s.frame!], refreshes: s.refreshes - due[s.frame!] }] : []));
  return { clip, skipped, repeats };
}

/** A record whose every figure is what the capture saw. */
function expectRecordIsCapture(record: PresentationRecord, video: VideoFrameRecord, shown: Shown[], due: number[], periodMs: number): void {
  const { clip, skipped, repeats } = fromCapture(shown, due);
  expect(video).toMatchObject({
    timing: 'stage-clock',
    frames: due.length,
    drawnFrames: clip.length,
    skippedFrames: skipped.length,
    repeatedFrames: repeats.length,
    firstFrame: clip[0].frame,
    lastFrame: clip.at(-1)!.frame,
  });
  expect(video.skips ?? []).toEqual(skipped);
  expect(video.repeats ?? []).toEqual(repeats);
  // The step lasted what the screen showed of the clip, onset to offset. rAF timestamps are coarsened to 0.1 ms with
  // jitter: each may land on either neighbouring step, so a difference of two is within two steps (CI saw 0.144 ms
  // against the 0.11 this allowed). (Not record.shownFrames: it divides by the measured period, issue 23.)
  const refreshes = clip.reduce((n, s) => n + s.refreshes, 0);
  expect(Math.abs(record.offsetMs - record.onsetMs - refreshes * periodMs)).toBeLessThanOrEqual(0.2);
  expect(video.firstOnsetMs).toBe(record.onsetMs);
  expect(video.lastOffsetMs).toBe(record.offsetMs);
}

beforeAll(async () => {
  served = await serveBenchPage({ outDir: 'video-display-test' });
}, 120000);

afterAll(async () => {
  await display?.close();
  await served?.close();
});

const RATES = [24, 25, 30, 50, 60];

describe('every clip frame on exactly its refreshes (no missed vsync), and the record is the capture', () => {
  for (const hz of [60, 120, 144, 240]) {
    // Two plays at 60 Hz (the second after a rewind: frame 0 back, decoding again from the start), one elsewhere.
    const plays = hz === 60 ? 2 : 1;
    it(`${RATES.join(', ')} fps on ${hz} Hz, ${plays} play${plays > 1 ? 's' : ''} each`, () => againOnLostCapture(async () => {
      await loadStage(hz);
      for (const fps of RATES) {
        const step = await addClip(`frames-${fps}fps.mp4`);
        const due = cadence(fps, fps, hz);
        for (let play = 0; play < plays; play++) {
          const { frames, record } = await playCaptured(step, hz + 4);
          const shown = await shownFromCaptures(frames, step.items[0].rect);
          const clip = shown.filter((s) => s.frame !== null);
          // Frame 0 at the onset, every frame in order, each for exactly its refreshes, the last one included.
          expect(clip.map((s) => s.frame), `${fps} fps on ${hz} Hz, play ${play + 1}`).toEqual(due.map((_, k) => k));
          expect(clip.map((s) => s.refreshes), `${fps} fps on ${hz} Hz, play ${play + 1}`).toEqual(due);
          expect(record.droppedFrames).toBe(0);
          expectRecordIsCapture(record, record.videos![0], shown, due, 1000 / hz);
        }
      }
    }), 240000);
  }

  it('a VP9 clip too (30 fps on 60 Hz)', () => againOnLostCapture(async () => {
    await loadStage(60);
    const step = await addClip('frames-30fps-vp9.webm');
    const { frames, record } = await playCaptured(step, 64);
    const shown = await shownFromCaptures(frames, step.items[0].rect);
    expect(shown.filter((s) => s.frame !== null).map((s) => s.refreshes)).toEqual(cadence(30, 30, 60));
    expectRecordIsCapture(record, record.videos![0], shown, cadence(30, 30, 60), 1000 / 60);
  }), 180000);

  // Decode order runs ahead of presentation order (I P B B B…): an idle clip must feed the decoder past frame 2.
  it('an H.264 High profile clip with B-frames (30 fps on 60 Hz)', () => againOnLostCapture(async () => {
    await loadStage(60);
    const step = await addClip('frames-30fps-bframes.mp4');
    // Two plays: the second starts from the idle queue refilled after the rewind.
    for (let play = 0; play < 2; play++) {
      const { frames, record } = await playCaptured(step, 64);
      const shown = await shownFromCaptures(frames, step.items[0].rect);
      expect(shown.filter((s) => s.frame !== null).map((s) => s.refreshes)).toEqual(cadence(30, 30, 60));
      expect(record.videos![0].skippedFrames).toBe(0);
      expectRecordIsCapture(record, record.videos![0], shown, cadence(30, 30, 60), 1000 / 60);
    }
  }), 180000);
});

describe('with injected missed vsyncs, the record names each skipped and repeated clip frame', () => {
  for (const { fps, hz, misses } of [
    { fps: 30, hz: 60, misses: { 10: 1, 31: 2, 44: 1 } as Record<number, number> },
    { fps: 60, hz: 60, misses: { 12: 1, 30: 3 } as Record<number, number> },
    { fps: 24, hz: 144, misses: { 20: 1, 77: 7 } as Record<number, number> },
  ]) {
    it(`${fps} fps on ${hz} Hz, misses before frames ${Object.keys(misses).join(', ')}`, () => againOnLostCapture(async () => {
      await loadStage(hz);
      const step = await addClip(`frames-${fps}fps.mp4`);
      const due = cadence(fps, fps, hz);
      const { frames, record } = await playCaptured(step, hz + 4, (i) => misses[i] ?? 0);
      const shown = await shownFromCaptures(frames, step.items[0].rect);
      const { skipped, repeats } = fromCapture(shown, due);
      // The misses did disturb the clip (a miss longer than a clip frame's hold always does: 7 > 144/24 refreshes),
      // and the record says exactly how.
      expect(skipped.length + repeats.length).toBeGreaterThan(0);
      expect(record.droppedFrames).toBe(Object.keys(misses).length);
      expectRecordIsCapture(record, record.videos![0], shown, due, 1000 / hz);
    }), 180000);
  }
});

/**
 * The demo clip played at 60 Hz on a fresh stage, `plays` times (each after a rewind): the last play's captures,
 * decoded, and how its frames were uploaded.
 */
async function playDemoClip(videoPath: 'auto' | 'frames', plays = 1) {
  await loadStage(60, videoPath);
  const step = await addClip('city_480x270_crf30.mp4', join(REPO, 'studies/media/videos/city_480x270_crf30.mp4'));
  step.items[0].rect = { x: 8, y: 8, width: 480, height: 270 };
  const { value: upload } = await display.evaluate((n) => window.__glimpseStage!.videoUpload(n), 'city_480x270_crf30.mp4');
  let { frames, record } = await playCaptured(step, 184);
  for (let play = 1; play < plays; play++) ({ frames, record } = await playCaptured(step, 184));
  const decoded = await Promise.all(frames.map((f) => decodePng(f.png!)));
  // The onset: the first capture where the clip's middle row is not the blank grey (it may be the very first).
  const rect = step.items[0].rect;
  const blank = (image: RgbaImage) =>
    Array.from({ length: rect.width / 8 }, (_, i) => image.pixel(canvas.x + rect.x + i * 8, canvas.y + rect.y + rect.height / 2)).every(([r, g, b]) => r === 128 && g === 128 && b === 128);
  const onsetIndex = decoded.findIndex((image) => !blank(image));
  return { upload, frames, record, decoded, onsetIndex };
}

describe("the demo studies' videos play through the stage clock", () => {
  it('an H.264 demo clip (25 fps, 480×270) at 60 Hz: every frame drawn at its cadence, the screen changing only on it, the browser conversion within 2 levels', () => againOnLostCapture(async () => {
    const due = cadence(25, 75, 60);
    const { upload, frames, record, decoded, onsetIndex } = await playDemoClip('auto');
    // The frames' planes reach the texture as bytes copied ahead and are converted by the stage (clipPlanes.ts).
    expect(upload).toBe('planes');
    expect(record.videos![0]).toMatchObject({ timing: 'stage-clock', frames: 75, drawnFrames: 75, skippedFrames: 0, repeatedFrames: 0 });
    expect(Math.round((record.offsetMs - record.onsetMs) / (1000 / 60))).toBe(180);
    // The captured picture changes only on refreshes where a clip frame is due (the frame code's witness here).
    const boundaries = new Set(due.reduce<number[]>((acc, d) => [...acc, acc.at(-1)! + d], [0]));
    const images = decoded.map((image) => image.data);
    const changes = images.flatMap((data, i) => (i > onsetIndex && !data.equals(images[i - 1]) ? [frames[i].vsync - frames[onsetIndex].vsync] : []));
    for (const refresh of changes) expect(boundaries.has(refresh), `a change at refresh ${refresh}`).toBe(true);
    expect(changes.length).toBeGreaterThanOrEqual(70);

    // The same clip with each VideoFrame uploaded itself (the fallback, the browser converting), second play: every
    // refresh from the onset shows the same picture within 2 levels (the same matrix, BT.601 by the convention for
    // this untagged 480×270 clip, and range). (The second play: the fallback's very first upload, frame 0 at prepare,
    // allocates the texture from the VideoFrame, which Chromium converts another way for this untagged clip, up to
    // 61 levels apart; frame 0 uploaded again after the rewind goes the way of every later frame.)
    const fallback = await playDemoClip('frames', 2);
    expect(fallback.upload).toBe('frames');
    expect(fallback.record.videos![0]).toMatchObject({ drawnFrames: 75, skippedFrames: 0, repeatedFrames: 0 });
    const byRefresh = (run: { frames: DisplayFrame[]; decoded: RgbaImage[]; onsetIndex: number }) =>
      new Map(run.frames.slice(run.onsetIndex).map((f, i) => [f.vsync - run.frames[run.onsetIndex].vsync, run.decoded[run.onsetIndex + i].data]));
    const pixels = byRefresh({ frames, decoded, onsetIndex });
    const framesUpload = byRefresh(fallback);
    const compared = [...pixels.keys()].filter((refresh) => refresh < 180 && framesUpload.has(refresh));
    expect(compared.length).toBeGreaterThanOrEqual(175);
    // The stage's conversion (float, rounded once) and Chromium's (fixed point) differ by at most 2 levels on some
    // samples of this natural scene; the colour bars hold the stage to ffmpeg's decode (colour.display.test.ts).
    const worst = Math.max(
      ...compared.map((refresh) => {
        const [a, b] = [pixels.get(refresh)!, framesUpload.get(refresh)!];
        let most = 0;
        for (let i = 0; i < a.length; i++) if (i % 4 !== 3) most = Math.max(most, Math.abs(a[i]! - b[i]!));
        return most;
      }),
    );
    expect(worst, 'the largest channel difference between the two uploads').toBeLessThanOrEqual(2);
  }), 240000);
});

describe('a page hidden mid-clip', () => {
  it('ends the step at once as "hidden", counting only the clip frames captured before; once visible the clip replays exact to the frame', () => againOnLostCapture(async () => {
    await loadStage(60);
    const step = await addClip('frames-30fps.mp4');
    const due = cadence(30, 30, 60);
    // The 60-refresh clip, its window minimized 24 refreshes in (Browser.setWindowBounds: visibilitychange, no rAF).
    const started = await display.evaluate((s) => window.__bench.startPlay([s]), step, { capture: true });
    const frames = [...started.frames];
    for (let i = 0; i < 24; i++) frames.push(await display.frame({ capture: true }));
    await display.setWindowState('minimized');
    // The compositor keeps its last picture while minimized, but no screen shows it: the first frame sent now is the
    // first refresh off screen, so what was shown ends there.
    const offScreen = await display.frame({ capture: true });
    for (let i = 0; i < 20; i++) await display.frame();
    const { value } = await display.evaluate(() => window.__bench.playing!, null, { maxFrames: 1 });
    const interrupted = value as { name: string; records: PresentationRecord[] };
    expect(interrupted.name).toBe('StageInterruptedError');
    const [record] = interrupted.records;
    expect([record!.endedBy, record!.interrupted?.cause]).toEqual(['interrupted', 'hidden']);
    const shown = (await shownFromCaptures(frames, step.items[0]!.rect)).filter((s) => s.frame !== null);
    // The last run's refreshes end where the page left the screen.
    shown.at(-1)!.refreshes = offScreen.vsync - shown.at(-1)!.vsync;
    const video = record!.videos![0]!;
    // Every clip frame the record counts as drawn was on screen, in order, and none after the page was hidden; the
    // container's 30 frames stay beside them, so a cut play never looks complete.
    expect(video.frames).toBe(30);
    expect(video.drawnFrames).toBe(shown.length);
    expect(shown.map((s) => s.frame)).toEqual(Array.from({ length: shown.length }, (_, k) => k));
    expect(video.drawnFrames).toBeGreaterThan(8);
    expect(video.drawnFrames).toBeLessThan(30);
    expect(video.lastFrame).toBe(shown.at(-1)!.frame);
    const capturedRefreshes = shown.reduce((n, s) => n + s.refreshes, 0);
    // Never a refresh more than the screen showed; at most the last one, still on screen when hidden, left out.
    expect(record!.shownFrames).toBeLessThanOrEqual(capturedRefreshes);
    expect(record!.shownFrames).toBeGreaterThanOrEqual(capturedRefreshes - 1);
    expect(record!.interrupted!.refreshes).toBe(record!.shownFrames);

    // Visible again: the replay shows every frame of the clip, from frame 0, each for exactly its refreshes.
    await display.setWindowState('normal');
    const again = await playCaptured(step, 64);
    const replay = await shownFromCaptures(again.frames, step.items[0]!.rect);
    expect(replay.filter((s) => s.frame !== null).map((s) => s.refreshes)).toEqual(due);
    expectRecordIsCapture(again.record, again.record.videos![0]!, replay, due, 1000 / 60);
  }), 180000);
});
