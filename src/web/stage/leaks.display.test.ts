/**
 * Leak checks on the real <Stage> (issue 36), on the virtual display at its own pace (no captures: frames are sent as
 * fast as Chromium draws them). What the stage holds is read through the debug hook (`window.__glimpseStage.
 * resources()`: open VideoFrames, decoders, clip players and their packets, decoded bytes, PixiJS textures, three.js
 * render targets and GPU textures), what the page holds through DevTools (a full GC, then Runtime.getHeapUsage: the
 * JS heap and the ArrayBuffer backing stores, where a clip's packets and decoded planes live).
 * - 200 clip preparations and plays, on the planes path (each VideoFrame closed once its planes are copied) and again
 *   on the frames path (the VideoFrames themselves held): each cycle prepares a clip under a new name (a real
 *   preparation: demux, decode, the first frame uploaded) and plays it to its end; the media cache releases the least
 *   recently used beyond its count cap. Then images prepared in their place release every clip: the counters are back
 *   to zero (PixiJS's textures, buffers and geometries to their count after the warm-up) and the heap has not grown
 *   since the same point after a warm-up. (This found the planes path's conversion quad left on the GPU by every
 *   released clip, a geometry and its three buffers: fixed in clipPlanes.ts.)
 * - 50 resizes of a 3D step: each resize comes while a 3D step is on screen (the step ends as a display change), and
 *   the next step is laid out for the new size (a new render target size); the render targets kept stay those of
 *   the sizes drawn now, and three.js's GPU textures and geometries return to their idle counts.
 */
import { readFile } from 'node:fs/promises';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BufferSource, BufferTarget, EncodedPacketSink, EncodedVideoPacketSource, Input, MP4, Mp4OutputFormat, Output } from 'mediabunny';
import { serveBenchPage } from '../../../bench/timing/benchPage';
import { VirtualDisplay } from '../../../testkit/virtualDisplay';
import { OBJECT_DEFAULTS } from '../../contract/objects';
import type { StageResources } from './debugHook';
import type { PresentationRecord, PresentationStep, Rect } from './types';

/** Clip preparations and plays, the first WARM_UP of them before the heap is first measured. */
const CYCLES = 200;
const WARM_UP = 40;
/** Frames of the test clip (the first ones of the 60 fps frame-coded fixture, 128×16): 8 refreshes a play at 60 Hz. */
const CLIP_FRAMES = 8;
/** The media cache's count cap (mediaCache.ts DEFAULT_CAPACITY): images this many release every clip. */
const CACHE_CAPACITY = 32;
const RESIZES = 50;
/** 3D steps resized under before the heap is first measured. */
const WARM_UP_RESIZES = 5;
/**
 * Page heap growth allowed between the two measurements (JS heap, backing stores and Blink's heap, each time after a
 * full GC; clips: after the warm-up and after every cycle, the clips released; 3D: after the warm-up resizes and
 * after the 50). Measured on SwiftShader (2026-11-28, 2 shared cores; the test logs its figures): 0.16–0.26 MB over
 * the 160 clip cycles of either path, 0.18–0.20 MB over the 50 resizes. PixiJS's hashes keep a null entry for each
 * GPU resource released while its GC is off (stageEngine.ts turns it off), a few hundred bytes a clip. A clip player
 * kept after its release would be over 10 kB a cycle (1.6 MB).
 */
const HEAP_GROWTH_BOUND = 768 * 1024;
/**
 * Resident memory the GPU process (SwiftShader draws there, render targets included) may gain over the 50 resizes.
 * Measured: 0.2–0.8 MB; with a render target kept for every size drawn (ObjectRenderer.keepOnly off) 42 MB or more.
 */
const GPU_PROCESS_GROWTH_BOUND = 16 * 1024 * 1024;

let served: { url: string; close(): Promise<void> };
let display: VirtualDisplay;

/** The first `frames` frames of a frame-coded fixture, remuxed (no re-encoding) into a short MP4. */
async function shortClip(frames: number): Promise<Buffer> {
  const input = new Input({ formats: [MP4], source: new BufferSource(await readFile(new URL('../../../tests/fixtures/clips/frames-60fps.mp4', import.meta.url))) });
  const track = (await input.getPrimaryVideoTrack())!;
  const decoderConfig = await track.getDecoderConfig();
  const output = new Output({ format: new Mp4OutputFormat(), target: new BufferTarget() });
  const source = new EncodedVideoPacketSource('avc');
  output.addVideoTrack(source, { frameRate: 60 });
  await output.start();
  let n = 0;
  for await (const packet of new EncodedPacketSink(track).packets()) {
    if (n === frames) break;
    await source.add(packet, n === 0 ? { decoderConfig: decoderConfig! } : undefined);
    n++;
  }
  await output.finalize();
  input.dispose();
  return Buffer.from(output.target.buffer!);
}

const resources = () => display.read(() => window.__glimpseStage!.resources(), null);

/** Full GCs (DevTools), then the page's heap: JS objects and ArrayBuffer backing stores. */
async function heap(): Promise<{ used: number; backing: number; total: number }> {
  for (let i = 0; i < 3; i++) await display.send('HeapProfiler.collectGarbage');
  const { value } = await display.send<{ usedSize: number; backingStorageSize?: number; embedderHeapUsedSize?: number }>('Runtime.getHeapUsage');
  const backing = value.backingStorageSize ?? 0;
  return { used: value.usedSize, backing, total: value.usedSize + backing + (value.embedderHeapUsedSize ?? 0) };
}

/** Waits (frames sent meanwhile) until the page's asynchronous work has settled: copies, closes, decoder shutdowns. */
async function settle(ms = 300): Promise<void> {
  await display.evaluate((wait) => new Promise((resolve) => setTimeout(resolve, wait)), ms);
}

/**
 * Resident memory (bytes) of the display's Chromium processes by type ('browser', 'gpu-process', 'renderer'...): those
 * of its process group (it starts the browser as a group's leader).
 */
function chromiumMemory(): Record<string, number> {
  const leader = (Reflect.get(display, 'process') as ChildProcess).pid;
  const out: Record<string, number> = {};
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // pid (comm) state ppid pgrp …: the fields after the command's closing parenthesis.
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (pgrp !== leader) continue;
      const type = /--type=([\w-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '))?.[1] ?? 'browser';
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (rss) out[type] = (out[type] ?? 0) + Number(rss[1]) * 1024;
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

let clip: string;

/** The bench page (`query`: the stage's video path) with every media added. */
async function openStage(query = ''): Promise<void> {
  await display.goto(`${served.url}${query}`);
  await display.evaluate(() => window.__bench.ready(), null);
  // Every media is added before the first measurement: the bench page's own map of them is not the stage's.
  await display.evaluate(
    async ([data, cycles, capacity]) => {
      for (let i = 0; i < cycles; i++) window.__bench.addBase64(`clip${i}.mp4`, 'video', 'video/mp4', data);
      await window.__bench.makeImages(capacity, 16, 16, 'idle');
    },
    [clip, CYCLES, CACHE_CAPACITY] as const,
  );
  // The bench page adds 'image' and 'video' media; a model is the same LoadedMedia with kind 'model'.
  const cube = readFileSync(new URL('../../../tests/fixtures/objects/cube.glb', import.meta.url)).toString('base64');
  await display.evaluate((data) => window.__bench.addBase64('cube.glb', 'model' as 'video', 'model/gltf-binary', data), cube);
}

beforeAll(async () => {
  clip = (await shortClip(CLIP_FRAMES)).toString('base64');
  served = await serveBenchPage({ outDir: 'leaks-display-test' });
  display = await VirtualDisplay.launch({ refreshHz: 60, width: 640, height: 360, pace: 'free' });
  await openStage();
}, 180_000);

afterAll(async () => {
  await display?.close();
  await served?.close();
});

interface Cycles {
  /** The most each counter reached, read after each play. */
  peak: Pick<StageResources, 'videoFrames' | 'decoders' | 'players' | 'clips' | 'pixiTextures'>;
  /** Clip frames drawn per play (all of them unless the free-running display outpaced the decoder). */
  drawn: number[];
}

/** Clips `from` to `to` (exclusive): each prepared, then played to its end. */
async function cycles(from: number, to: number): Promise<Cycles> {
  const { value } = await display.evaluate(
    async ([first, last]) => {
      const peak = { videoFrames: 0, decoders: 0, players: 0, clips: 0, pixiTextures: 0 };
      const drawn: number[] = [];
      for (let i = first; i < last; i++) {
        const media = `clip${i}.mp4`;
        await window.__bench.prepare([media]);
        const step: PresentationStep = { label: `clip ${i}`, items: [{ media, rect: { x: 8, y: 8, width: 256, height: 32 } }], end: { kind: 'video-end' } };
        await window.__bench.startPlay([step]);
        const records = await window.__bench.playing!;
        if (!Array.isArray(records)) throw new Error(`play ${i} failed: ${records.name}: ${records.error}`);
        if (records[0]?.endedBy !== 'video-end') throw new Error(`play ${i} ended by ${records[0]?.endedBy}`);
        drawn.push(records[0].videos?.[0]?.drawnFrames ?? 0);
        const now = window.__glimpseStage!.resources();
        for (const key of Object.keys(peak) as Array<keyof typeof peak>) peak[key] = Math.max(peak[key], now[key]);
      }
      return { peak, drawn };
    },
    [from, to] as const,
  );
  return value;
}

/** Images prepared in their place release every clip (the count cap); then the counters are read. */
async function releaseClips(): Promise<StageResources> {
  await display.evaluate((capacity) => window.__bench.prepare(Array.from({ length: capacity }, (_, i) => `idle${i}.png`)), CACHE_CAPACITY);
  await settle();
  return resources();
}

/** Runs the clip cycles on the page as it is (its video path) and checks the counters and the heap. */
async function clipCyclesLeaveNothing(path: 'planes' | 'frames'): Promise<void> {
  const started = performance.now();
  const idleAtStart = await releaseClips();
  const warmUp = await cycles(0, WARM_UP);
  const upload = await display.read((media) => window.__glimpseStage!.videoUpload(media), `clip${WARM_UP - 1}.mp4`);
  const afterWarmUp = await releaseClips();
  const before = await heap();
  const run = await cycles(WARM_UP, CYCLES);
  await settle();
  // Idle with the cache full of clips: the count cap holds.
  const full = await resources();
  const idle = await releaseClips();
  const after = await heap();
  const seconds = (performance.now() - started) / 1000;
  console.log(
    [
      `${path} path: ${CYCLES} clip preparations and plays in ${seconds.toFixed(1)} s`,
      `peaks after each play: ${JSON.stringify(run.peak)} (warm-up ${JSON.stringify(warmUp.peak)})`,
      `the cache full of clips, idle: ${JSON.stringify(full)}`,
      `after the warm-up, clips released: ${JSON.stringify(afterWarmUp)}`,
      `after every cycle, clips released: ${JSON.stringify(idle)}`,
      `heap after the warm-up: JS ${mb(before.used)}, backing stores ${mb(before.backing)}, total ${mb(before.total)}; after every cycle: JS ${mb(after.used)}, backing stores ${mb(after.backing)}, total ${mb(after.total)}; growth ${mb(after.total - before.total)}`,
      `clip frames drawn per play: min ${Math.min(...run.drawn)}, max ${Math.max(...run.drawn)}`,
    ].join('\n'),
  );
  expect(upload).toBe(path);
  expect(idleAtStart).toMatchObject({ clips: 0, players: 0, videoFrames: 0, decoders: 0, packets: 0 });
  // Every play went on the stage clock and ended with its clip.
  expect(Math.min(...run.drawn)).toBeGreaterThanOrEqual(1);
  expect(run.peak.players).toBeLessThanOrEqual(CACHE_CAPACITY);
  expect(run.peak.clips).toBeLessThanOrEqual(CACHE_CAPACITY);
  expect(full).toMatchObject({ clips: CACHE_CAPACITY, players: CACHE_CAPACITY, packets: CACHE_CAPACITY * CLIP_FRAMES });
  expect(full.decoders).toBeLessThanOrEqual(CACHE_CAPACITY);
  // An idle clip holds no VideoFrame on the planes path (each is closed once its planes are copied); on the frames
  // path frame 0, the texture's copy of it and the IDLE_AHEAD (2) frames decoded ahead.
  expect(full.videoFrames).toBeLessThanOrEqual(path === 'planes' ? 0 : CACHE_CAPACITY * (2 + 2));
  // Released: nothing of any clip is left, and PixiJS holds as much as after the warm-up.
  expect(idle).toMatchObject({ prepared: CACHE_CAPACITY, clips: 0, clipBytes: 0, players: 0, packets: 0, packetBytes: 0, videoFrames: 0, decoders: 0 });
  expect([idle.pixiTextures, idle.pixiBuffers, idle.pixiGeometries]).toEqual([afterWarmUp.pixiTextures, afterWarmUp.pixiBuffers, afterWarmUp.pixiGeometries]);
  expect(after.total - before.total).toBeLessThan(HEAP_GROWTH_BOUND);
}

describe('leaks', () => {
  it(`${CYCLES} clip preparations and plays (planes path): frames, decoders, packets and textures back to their idle counts; the heap does not grow`, async () => {
    await clipCyclesLeaveNothing('planes');
  }, 300_000);

  it(`${CYCLES} clip preparations and plays (frames path, VideoFrames held): the same`, async () => {
    await openStage('?video=frames');
    await clipCyclesLeaveNothing('frames');
  }, 300_000);

  it(`${RESIZES} resizes of a 3D step: render targets only for the sizes drawn now, three.js's GPU memory back to idle`, async () => {
    const started = performance.now();
    await display.evaluate(() => window.__bench.prepare(['cube.glb']), null);
    /** The stage's host at `size` CSS px, and frames sent until the stage has taken the size. */
    const resize = (size: { width: number; height: number }) =>
      display.evaluate(async ({ width, height }) => {
        const host = document.getElementById('stage')!;
        host.style.width = `${width}px`;
        host.style.height = `${height}px`;
        for (let n = 0; n < 600; n++) {
          const now = window.__glimpseStage!.size();
          if (now.width === width && now.height === height) return;
          await new Promise((resolve) => requestAnimationFrame(resolve));
        }
        throw new Error(`the stage did not take ${width}×${height}`);
      }, size);
    const sizeAt = (i: number) => ({ width: 320 + ((i * 53) % 300), height: 200 + ((i * 37) % 150) });
    /** Laid out for the stage's size, as a layout does: a square filling half its shorter side, centred. */
    const rectFor = ({ width, height }: { width: number; height: number }): Rect => {
      const side = Math.floor(Math.min(width, height) / 2);
      return { x: Math.floor((width - side) / 2), y: Math.floor((height - side) / 2), width: side, height: side };
    };
    const objectStep = (rect: Rect): PresentationStep => ({ label: '3D', items: [{ media: 'cube.glb', rect, object: { ...OBJECT_DEFAULTS, mode: 'inspect' } }], end: { kind: 'hold' } });
    /** A 3D step shown until it has been drawn a few refreshes, then answered (released). */
    const playOnce = (rect: Rect) =>
      display.evaluate(async (steps) => {
        await window.__bench.startPlay(steps);
        // A play after a display change waits for steady frames before its onset.
        for (let n = 0; n < 600 && window.__glimpseStage!.objectRects.length === 0; n++) await new Promise((resolve) => requestAnimationFrame(resolve));
        for (let n = 0; n < 3; n++) await new Promise((resolve) => requestAnimationFrame(resolve));
        window.__bench.controller!.release();
        const outcome = await window.__bench.playing!;
        if (!Array.isArray(outcome)) throw new Error(`3D step failed: ${outcome.name}: ${outcome.error}`);
      }, [objectStep(rect)]);

    /** Steps `from` to `to` (exclusive), each laid out for its size and resized under: the counters at their peak. */
    const resizeUnderSteps = async (from: number, to: number) => {
      const peak = { renderTargets: 0, threeTextures: 0, threeGeometries: 0 };
      const outcomes: string[] = [];
      const sizes = new Set<string>();
      for (let i = from; i < to; i++) {
        const rect = rectFor(sizeAt(i));
        sizes.add(`${rect.width}x${rect.height}`);
        // The step laid out for this size on screen for a few refreshes, then the window resized under it.
        const { value } = await display.evaluate(
          async ([steps, next]) => {
            await window.__bench.startPlay(steps);
            for (let n = 0; n < 600 && window.__glimpseStage!.objectRects.length === 0; n++) await new Promise((resolve) => requestAnimationFrame(resolve));
            for (let n = 0; n < 3; n++) await new Promise((resolve) => requestAnimationFrame(resolve));
            const drawing = window.__glimpseStage!.resources();
            const host = document.getElementById('stage')!;
            host.style.width = `${next.width}px`;
            host.style.height = `${next.height}px`;
            const outcome = await window.__bench.playing!;
            return { drawing, outcome: Array.isArray(outcome) ? `ended by ${outcome[0]?.endedBy}` : `${outcome.name}: ${(outcome.records[0] as PresentationRecord | undefined)?.interrupted?.cause}` };
          },
          [[objectStep(rect)], sizeAt(i + 1)] as [PresentationStep[], { width: number; height: number }],
        );
        outcomes.push(value.outcome);
        for (const key of Object.keys(peak) as Array<keyof typeof peak>) peak[key] = Math.max(peak[key], value.drawing[key]);
        await resize(sizeAt(i + 1));
      }
      // The last size drawn once more, then idle again.
      await playOnce(rectFor(sizeAt(to)));
      await settle();
      return { peak, outcomes, sizes };
    };

    await resize(sizeAt(0));
    // Idle after one 3D step drawn: the upload's target and the one of its size.
    await playOnce(rectFor(sizeAt(0)));
    await settle();
    const idle = await resources();
    // A few resizes first: the heap then holds what the first ones compile and cache (0.6 MB), not a leak.
    await resizeUnderSteps(0, WARM_UP_RESIZES);
    const before = await heap();
    const processesBefore = chromiumMemory();
    const { peak, outcomes, sizes } = await resizeUnderSteps(WARM_UP_RESIZES, WARM_UP_RESIZES + RESIZES);
    const after = await resources();
    const heapAfter = await heap();
    const processesAfter = chromiumMemory();
    const seconds = (performance.now() - started) / 1000;
    const growth = (type: string) => (processesAfter[type] ?? 0) - (processesBefore[type] ?? 0);
    console.log(
      [
        `${RESIZES} resizes of a 3D step in ${seconds.toFixed(1)} s (${sizes.size} render target sizes)`,
        `idle after one step: ${JSON.stringify(idle)}`,
        `peaks while drawn: ${JSON.stringify(peak)}`,
        `after the resizes: ${JSON.stringify(after)}`,
        `outcomes: ${[...new Set(outcomes)].join(', ')}`,
        `heap: total ${mb(before.total)} → ${mb(heapAfter.total)} (growth ${mb(heapAfter.total - before.total)})`,
        `Chromium processes' resident memory: ${Object.keys(processesAfter).map((type) => `${type} ${mb(processesBefore[type] ?? 0)} → ${mb(processesAfter[type]!)}`).join(', ')}`,
      ].join('\n'),
    );
    expect(sizes.size).toBeGreaterThanOrEqual(40);
    // Each resize ended the step on screen as a display change.
    expect(outcomes.every((o) => o === 'StageInterruptedError: display-changed')).toBe(true);
    // The upload's target and the one of the size on screen, at every step: never one per size seen.
    expect(idle.renderTargets).toBe(2);
    expect(peak.renderTargets).toBeLessThanOrEqual(2);
    expect(after.renderTargets).toBe(idle.renderTargets);
    expect(after.threeTextures).toBe(idle.threeTextures);
    expect(after.threeGeometries).toBe(idle.threeGeometries);
    expect(peak.threeTextures).toBeLessThanOrEqual(idle.threeTextures);
    expect([after.pixiTextures, after.pixiBuffers, after.pixiGeometries]).toEqual([idle.pixiTextures, idle.pixiBuffers, idle.pixiGeometries]);
    expect(heapAfter.total - before.total).toBeLessThan(HEAP_GROWTH_BOUND);
    // The render targets live in the GPU process (SwiftShader: its memory): one 4× target of these sizes is 1–3 MB,
    // so 50 kept would be 50–150 MB.
    expect(growth('gpu-process')).toBeLessThan(GPU_PROCESS_GROWTH_BOUND);
  }, 600_000);
});
