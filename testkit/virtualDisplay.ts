/**
 * A virtual display: Chromium draws a frame only when this code says so, at the time this code chooses, and hands
 * back exactly what that frame drew. Headless Chromium otherwise paints on a synthetic 60 Hz clock that machine
 * load can stall; here a test picks any refresh rate, injects missed vsyncs and jitter, and checks every frame.
 *
 * How: Debian's `chromium-headless-shell` (the full `chromium --headless` of Debian 156 lists but does not answer
 * HeadlessExperimental.beginFrame), started in its own process with `--enable-begin-frame-control
 * --run-all-compositor-stages-before-draw` and the project's SwiftShader flags, driven over a raw DevTools pipe
 * (Playwright does not expose begin-frame control). The page's target is created with
 * `enableBeginFrameControl: true`; each `HeadlessExperimental.beginFrame` runs one rAF with the given
 * `frameTimeTicks` (monotonic ms) and `interval`, and with a screenshot returns the PNG of that frame.
 *
 * Nothing advances between frames: a page promise that waits for rAF resolves only while frames are sent, so
 * `evaluate` and `send` keep sending frames until their answer comes.
 *
 * Virtual time never runs ahead of the wall clock (`pace: 'wall'`, default): a frame is sent no earlier than its
 * time, so the page's `performance.now()` and event timestamps are never behind the rAF timestamps it saw.
 * A captured frame costs ~5–10 ms of wall time, so above ~100 Hz virtual time runs slower than wall time;
 * rAF-driven code does not notice, timers and media playback do.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DevToolsPipe } from './devtoolsPipe';

export const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
/** The display's default graphics flags: SwiftShader WebGL2 on the CPU. */
export const SWIFTSHADER_DISPLAY_FLAGS = ['--use-angle=swiftshader', '--enable-unsafe-swiftshader'];

/** The graphics flags a display starts with unless told: $VIRTUAL_DISPLAY_GRAPHICS_FLAGS (JSON array) or SwiftShader. */
export function displayGraphicsFlags(): string[] {
  const raw = process.env.VIRTUAL_DISPLAY_GRAPHICS_FLAGS;
  return raw ? (JSON.parse(raw) as string[]) : SWIFTSHADER_DISPLAY_FLAGS;
}

export interface VirtualDisplayOptions {
  /** Refresh rate in Hz (default 60); change it later with setRefreshRate. */
  refreshHz?: number;
  /** Viewport in CSS px (default 640×360). */
  width?: number;
  height?: number;
  /**
   * The display's device pixel ratio (default 1): 1.25 or 1.5 as a Windows laptop's display scaling, 2 as a Retina
   * display. A captured PNG is in device pixels: round(width × ratio) × round(height × ratio).
   */
  deviceScaleFactor?: number;
  /** Default: $VIRTUAL_DISPLAY_CHROMIUM, else /usr/bin/chromium-headless-shell. */
  executablePath?: string;
  /**
   * Graphics flags. Default: $VIRTUAL_DISPLAY_GRAPHICS_FLAGS (a JSON array: the GPU machine's, scripts/gpu), else
   * SwiftShader (SWIFTSHADER_DISPLAY_FLAGS), the project's CPU renderer.
   */
  graphicsArgs?: string[];
  extraArgs?: string[];
  /** 'wall' (default): never send a frame before its time on the wall clock. 'free': as fast as Chromium draws. */
  pace?: 'wall' | 'free';
  /** Captures encoded for speed (DevTools `optimizeForSpeed`: a faster PNG compression, the same pixels). */
  fastCapture?: boolean;
}

export interface FrameOptions {
  /** Refreshes skipped before this frame (1 = one missed vsync: the previous frame stays up two refreshes). */
  missedVsyncs?: number;
  /** This frame's timestamp minus its vsync's, in ms (|jitter| < half a period). */
  jitterMs?: number;
  /** Return the PNG of what this frame drew. */
  capture?: boolean;
}

export interface DisplayFrame {
  /** Frames sent since launch, from 1. */
  index: number;
  /** Refresh number since launch: consecutive frames differ by 1 + missedVsyncs. */
  vsync: number;
  /** frameTimeTicks sent (monotonic ms, jitter included). */
  timeMs: number;
  /** The refresh period this frame was sent with. */
  periodMs: number;
  /** Chromium drew something new in this frame. */
  hasDamage: boolean;
  /** What the screen showed in this frame (with `capture`): when Chromium did not redraw, the previous picture. */
  png: Buffer | null;
}

export interface Captured<T> {
  value: T;
  /** Frames sent while waiting for the answer (with PNGs when `capture` was asked). */
  frames: DisplayFrame[];
}

export interface PumpOptions {
  capture?: boolean;
  /** Give up after this many frames (default 100 000). */
  maxFrames?: number;
  /** Applied to the first frame sent while waiting (e.g. a missed vsync right after a pointer event). */
  first?: FrameOptions;
  /** Options of the n-th frame sent while waiting (from 0): inject missed vsyncs or jitter at chosen frames. */
  plan?: (n: number) => FrameOptions | undefined;
}

/** A function the page runs (its source is sent; it must not close over Node values) and its one JSON argument. */
export type PageFunction<A, T> = (arg: A) => T | Promise<T>;

/** Displays launched and not closed: a failing check keeps what they last captured (keepRecentCaptures). */
const liveDisplays = new Set<VirtualDisplay>();
/** Captured frames each display keeps for keepRecentCaptures. */
const RECENT_CAPTURES = 8;

export class VirtualDisplay {
  private vsync = 0;
  /** The last RECENT_CAPTURES captured frames, and the last value a page function returned (the play's record). */
  private readonly recent: DisplayFrame[] = [];
  private lastValue: unknown = undefined;
  private framesSent = 0;
  private periodMs: number;
  private vsyncZeroMs: number;
  private lastTimeMs = -Infinity;
  /** The PNG of the last frame sent, null when it was sent without capture. */
  private lastPng: Buffer | null = null;

  private constructor(
    private readonly process: ChildProcess,
    private readonly pipe: DevToolsPipe,
    private readonly sessionId: string,
    private readonly profileDir: string,
    readonly width: number,
    readonly height: number,
    refreshHz: number,
    private readonly pace: 'wall' | 'free',
    private readonly fastCapture = false,
  ) {
    this.periodMs = periodOf(refreshHz);
    this.vsyncZeroMs = monotonicMs();
  }

  static async launch(options: VirtualDisplayOptions = {}): Promise<VirtualDisplay> {
    const executable = options.executablePath ?? process.env.VIRTUAL_DISPLAY_CHROMIUM ?? HEADLESS_SHELL;
    if (!existsSync(executable)) {
      throw new Error(`virtual display: ${executable} is missing (apt-get install chromium-headless-shell)`);
    }
    const width = options.width ?? 640;
    const height = options.height ?? 360;
    const deviceScaleFactor = options.deviceScaleFactor ?? 1;
    const profileDir = mkdtempSync(path.join(tmpdir(), 'glimpse-vd-'));
    const logFd = process.env.VIRTUAL_DISPLAY_LOG ? openSync(process.env.VIRTUAL_DISPLAY_LOG, 'a') : undefined;
    const child = spawn(
      executable,
      [
        '--remote-debugging-pipe',
        '--enable-begin-frame-control',
        '--run-all-compositor-stages-before-draw',
        ...(options.graphicsArgs ?? displayGraphicsFlags()),
        '--no-sandbox',
        '--no-first-run',
        '--hide-scrollbars',
        `--force-device-scale-factor=${deviceScaleFactor}`,
        `--window-size=${width},${height}`,
        `--user-data-dir=${profileDir}`,
        ...(options.extraArgs ?? []),
        'about:blank',
      ],
      // Its own process group: Debian's /usr/bin/chromium-headless-shell is a shell wrapper that does not exec, so
      // close() ends the whole group, the browser and its helpers with the wrapper (FIELD-NOTES).
      // $VIRTUAL_DISPLAY_LOG: the browser's own stderr appended to that file (why a GPU process failed, say).
      { stdio: ['ignore', 'ignore', logFd ?? 'ignore', 'pipe', 'pipe'], detached: true },
    );
    if (logFd !== undefined) closeSync(logFd);
    const pipe = new DevToolsPipe(child);
    try {
      const { targetId } = await pipe.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank', enableBeginFrameControl: true });
      const { sessionId } = await pipe.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
      await pipe.send('Page.enable', {}, sessionId);
      await pipe.send('Runtime.enable', {}, sessionId);
      await pipe.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor, mobile: false }, sessionId);
      // tsx-compiled functions reference __name (FIELD-NOTES).
      await pipe.send('Page.addScriptToEvaluateOnNewDocument', { source: 'window.__name = (f) => f;' }, sessionId);
      const display = new VirtualDisplay(child, pipe, sessionId, profileDir, width, height, options.refreshHz ?? 60, options.pace ?? 'wall', options.fastCapture);
      liveDisplays.add(display);
      return display;
    } catch (error) {
      killGroup(child, 'SIGKILL');
      rmSync(profileDir, { recursive: true, force: true });
      throw error;
    }
  }

  get refreshMs(): number {
    return this.periodMs;
  }

  /** Later frames are sent at this rate (as if the window moved to another monitor). */
  setRefreshRate(hz: number): void {
    const next = periodOf(hz);
    // Keep the vsync grid continuous: the next vsync is one new period after the last one.
    this.vsyncZeroMs = this.vsyncTime(this.vsync) - this.vsync * next;
    this.periodMs = next;
  }

  /**
   * With `pace: 'wall'`, frames that cost more than a refresh (captures of a large viewport) leave virtual time behind
   * the wall clock, and the frames after them are sent as fast as Chromium draws until it has caught up: faster than
   * the refresh rate. This moves the vsync grid to the present instead, as if the display had shown no new frame
   * meanwhile (the page sees one long interval, as after a stall): the next frame is the first vsync after now.
   * Returns the refreshes skipped (0 when virtual time was not behind).
   */
  catchUp(): number {
    const behind = Math.floor((monotonicMs() - this.vsyncTime(this.vsync)) / this.periodMs);
    if (behind <= 0) return 0;
    this.vsync += behind;
    return behind;
  }

  /** Sends one frame; resolves when Chromium has drawn it. */
  async frame(options: FrameOptions = {}): Promise<DisplayFrame> {
    const missed = options.missedVsyncs ?? 0;
    const jitter = options.jitterMs ?? 0;
    if (!Number.isInteger(missed) || missed < 0) throw new RangeError(`missedVsyncs must be a whole number ≥ 0, got ${missed}`);
    if (!(Math.abs(jitter) < this.periodMs / 2)) throw new RangeError(`jitterMs must be under half a period, got ${jitter}`);
    this.vsync += 1 + missed;
    const timeMs = this.vsyncTime(this.vsync) + jitter;
    if (timeMs <= this.lastTimeMs) throw new RangeError('frame times must increase');
    this.lastTimeMs = timeMs;
    if (this.pace === 'wall') {
      const ahead = timeMs - monotonicMs();
      if (ahead > 0) await sleep(ahead);
    }
    const result = await this.pipe.send<{ hasDamage: boolean; screenshotData?: string }>(
      'HeadlessExperimental.beginFrame',
      { frameTimeTicks: timeMs, interval: this.periodMs, ...(options.capture ? { screenshot: { format: 'png', ...(this.fastCapture ? { optimizeForSpeed: true } : {}) } } : {}) },
      this.sessionId,
    );
    this.framesSent += 1;
    const png = options.capture ? pictureOfFrame(result, this.lastPng, `frame ${this.framesSent} (vsync ${this.vsync})`) : null;
    this.lastPng = png;
    const frame = { index: this.framesSent, vsync: this.vsync, timeMs, periodMs: this.periodMs, hasDamage: result.hasDamage, png };
    if (png) {
      this.recent.push(frame);
      if (this.recent.length > RECENT_CAPTURES) this.recent.shift();
    }
    return frame;
  }

  /** Sends `count` frames (the same options for each). */
  async frames(count: number, options: FrameOptions = {}): Promise<DisplayFrame[]> {
    const out: DisplayFrame[] = [];
    for (let i = 0; i < count; i++) out.push(await this.frame(options));
    return out;
  }

  /** Any DevTools command to the page, with frames sent until it answers (input events wait for a frame). */
  async send<T = Record<string, unknown>>(method: string, params: object = {}, pump: PumpOptions = {}): Promise<Captured<T>> {
    return this.pumpUntil(this.pipe.send<T>(method, params, this.sessionId), pump);
  }

  /** Runs a function in the page (awaiting its promise) while frames are sent; returns its JSON value. */
  async evaluate<A, T>(fn: PageFunction<A, T>, arg: A, pump: PumpOptions = {}): Promise<Captured<T>> {
    const expression = `(${fn.toString()})(${JSON.stringify(arg) ?? 'undefined'})`;
    const answer = this.pipe.send<{ result: { value?: T }; exceptionDetails?: { text: string; exception?: { description?: string } } }>(
      'Runtime.evaluate',
      { expression, awaitPromise: true, returnByValue: true },
      this.sessionId,
    );
    const { value, frames } = await this.pumpUntil(answer, pump);
    if (value.exceptionDetails) {
      throw new Error(`page threw: ${value.exceptionDetails.exception?.description ?? value.exceptionDetails.text}`);
    }
    this.lastValue = value.result.value;
    return { value: value.result.value as T, frames };
  }

  /** Runs a function in the page WITHOUT sending frames (for values ready at once: counts, flags); JSON value. */
  async read<A, T>(fn: PageFunction<A, T>, arg: A): Promise<T> {
    const answer = await this.pipe.send<{ result: { value?: T }; exceptionDetails?: { text: string; exception?: { description?: string } } }>(
      'Runtime.evaluate',
      { expression: `(${fn.toString()})(${JSON.stringify(arg) ?? 'undefined'})`, returnByValue: true },
      this.sessionId,
    );
    if (answer.exceptionDetails) throw new Error(`page threw: ${answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text}`);
    return answer.result.value as T;
  }

  /** Navigates and sends frames until the load event. */
  async goto(url: string): Promise<void> {
    let loaded!: () => void;
    const load = new Promise<void>((resolve) => (loaded = resolve));
    const off = this.pipe.on('Page.loadEventFired', (_params, sessionId) => {
      if (sessionId === this.sessionId) loaded();
    });
    try {
      const { value } = await this.send<{ errorText?: string }>('Page.navigate', { url });
      if (value.errorText) throw new Error(`navigation to ${url} failed: ${value.errorText}`);
      await this.pumpUntil(load, {});
    } finally {
      off();
    }
  }

  /**
   * Minimizes the display's window ('minimized') or brings it back ('normal'), as a participant minimizing the
   * browser: the page gets `visibilitychange` and `document.visibilityState` 'hidden' (rAF stops), then 'visible'.
   * Sends no frame; resolves once the page sees the new state. Frames sent while minimized are still captured: they
   * hold the compositor's last picture, which no screen shows. (Browser.setWindowBounds; in chromium-headless-shell
   * Page.setWebLifecycleState 'frozen' hides the page too but 'active' does not show it again, and
   * Target.activateTarget of another tab hides nothing: every headless target is a window of its own.)
   */
  async setWindowState(state: 'minimized' | 'normal'): Promise<void> {
    const { targetInfo } = await this.pipe.send<{ targetInfo: { targetId: string } }>('Target.getTargetInfo', {}, this.sessionId);
    const { windowId } = await this.pipe.send<{ windowId: number }>('Browser.getWindowForTarget', { targetId: targetInfo.targetId });
    await this.pipe.send('Browser.setWindowBounds', { windowId, bounds: { windowState: state } });
    const expected = state === 'minimized' ? 'hidden' : 'visible';
    for (let tries = 0; (await this.read(() => document.visibilityState, null)) !== expected; tries++) {
      if (tries >= 500) throw new Error(`virtual display: the page is not ${expected} after its window was made ${state}`);
      await sleep(10);
    }
  }

  /**
   * The page's device pixel ratio from now on, its CSS size unchanged (a window moved to a screen of another scale):
   * `devicePixelRatio` and `(resolution)` media queries change and their `change` listeners run. Sends no frame.
   * Emulated (Emulation.setDeviceMetricsOverride), so captures stay in the launch ratio's pixels with the page's
   * drawing scaled to them. Chromium 156 runs no media query listener after a ratio-only override, so a no-op
   * Emulation.setEmulatedMedia (which clears any emulated media type or features) follows it to make it evaluate them
   * again; it fires no resize and no device-pixel-content-box ResizeObserver callback.
   */
  async setDeviceScaleFactor(ratio: number): Promise<void> {
    await this.pipe.send('Emulation.setDeviceMetricsOverride', { width: this.width, height: this.height, deviceScaleFactor: ratio, mobile: false }, this.sessionId);
    await this.pipe.send('Emulation.setEmulatedMedia', { media: '' }, this.sessionId);
  }

  /** A mouse event at CSS px (x, y) (`Input.dispatchMouseEvent`), frames sent until Chromium acknowledges it. */
  async mouse(type: 'mouseMoved' | 'mousePressed' | 'mouseReleased', x: number, y: number, pump: PumpOptions = {}): Promise<DisplayFrame[]> {
    const buttons = type === 'mouseMoved' ? {} : { button: 'left', buttons: type === 'mousePressed' ? 1 : 0, clickCount: 1 };
    return (await this.send('Input.dispatchMouseEvent', { type, x, y, ...buttons }, pump)).frames;
  }

  /** What this display last captured and the last value a page function returned, for a failing check's files. */
  recentCaptures(): { frames: readonly DisplayFrame[]; lastValue: unknown } {
    return { frames: [...this.recent], lastValue: this.lastValue };
  }

  async close(): Promise<void> {
    liveDisplays.delete(this);
    this.pipe.fail(new Error('the virtual display was closed'));
    if (this.process.exitCode === null && this.process.signalCode === null) {
      const exited = new Promise((resolve) => this.process.once('exit', resolve));
      killGroup(this.process, 'SIGTERM');
      await Promise.race([exited, sleep(5000)]);
    }
    // Whatever of the group outlived the wrapper (the browser itself, when the wrapper went first).
    killGroup(this.process, 'SIGKILL');
    rmSync(this.profileDir, { recursive: true, force: true });
  }

  private vsyncTime(vsync: number): number {
    return this.vsyncZeroMs + vsync * this.periodMs;
  }

  private async pumpUntil<T>(answer: Promise<T>, pump: PumpOptions): Promise<Captured<T>> {
    let settled = false;
    const watched = answer.finally(() => (settled = true));
    watched.catch(() => {}); // rethrown below
    const frames: DisplayFrame[] = [];
    const max = pump.maxFrames ?? 100_000;
    // Give an answer that needs no frame a moment to arrive before drawing one.
    await Promise.race([watched, sleep(1)]).catch(() => {});
    while (!settled) {
      if (frames.length >= max) throw new Error(`no answer after ${max} frames`);
      const planned = pump.plan?.(frames.length) ?? (frames.length === 0 ? pump.first : undefined);
      const options = { ...planned, capture: pump.capture };
      frames.push(await this.frame(options));
    }
    return { value: await watched, frames };
  }
}

/**
 * The picture a captured frame showed. A capture is a copy request that itself makes the display draw, so Chromium
 * almost always returns one (DevTools: capturing "can fail"; seen about once in a few CI runs). Without one:
 * - no damage: the display drew nothing in this frame, so the screen still shows the previous frame's picture;
 * - damage, or no previous captured frame to stand for it: what was shown is unknown, and the frame cannot be sent
 *   again, so the caller learns at once which frame lost its capture.
 */
/** Signals the child's whole process group (it was started detached, as its group's leader); gone already is fine. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // No such group any more.
  }
}

export function pictureOfFrame(result: { hasDamage: boolean; screenshotData?: string }, previous: Buffer | null, name: string): Buffer {
  if (result.screenshotData) return Buffer.from(result.screenshotData, 'base64');
  if (!result.hasDamage && previous) return previous;
  throw new LostCaptureError(`${name} was drawn but Chromium returned no screenshot of it (hasDamage ${result.hasDamage}${previous ? '' : ', no previous capture'})`);
}

/** Chromium drew a frame and returned no picture of it: the harness lost a capture; the page lost nothing. */
export class LostCaptureError extends Error {
  override name = 'LostCaptureError';
}

/**
 * Keeps what a harness failure saw, for whoever reads the CI run: files under test-results/virtual-display/ (the
 * capture as PNG, anything else as JSON), named after the check. Returns the folder.
 */
export function keepCapture(check: string, files: Record<string, Uint8Array | unknown>): string {
  const folder = path.join('test-results', 'virtual-display', check.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 80));
  mkdirSync(folder, { recursive: true });
  for (const [name, data] of Object.entries(files)) {
    if (data instanceof Uint8Array) writeFileSync(path.join(folder, `${name}.png`), data);
    else writeFileSync(path.join(folder, `${name}.json`), JSON.stringify(data, null, 2));
  }
  return folder;
}

/**
 * Keeps, for a failing check, what every open display last captured (RECENT_CAPTURES frames, as PNG named by frame
 * and vsync), the last value a page function returned (a play's records) and the error: under
 * test-results/virtual-display/{check}/ (with -2, -3… for a second display). The vitest setup calls it for every
 * failed test (testkit/vitest-setup.ts), so CI keeps the failing capture and record. Returns the folders.
 */
export function keepRecentCaptures(check: string, error?: unknown): string[] {
  return [...liveDisplays].map((display, i) => {
    const { frames, lastValue } = display.recentCaptures();
    const pictures = Object.fromEntries(frames.map((f) => [`frame-${f.index}-vsync-${f.vsync}`, f.png!]));
    const failure = error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : { message: String(error) };
    return keepCapture(i === 0 ? check : `${check}-${i + 1}`, { ...pictures, lastValue: lastValue ?? null, error: failure });
  });
}

/**
 * Runs `attempt` once more when the harness lost a capture (LostCaptureError), never on any other failure: for a
 * check that starts from a fresh display, so a second attempt repeats it whole. The lost attempt's last captures
 * are kept first (keepRecentCaptures, as "lost-capture-…").
 */
export async function againOnLostCapture<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!(error instanceof LostCaptureError)) throw error;
    const kept = keepRecentCaptures(`lost-capture-${Date.now()}`, error);
    console.warn(`virtual display: ${error.message}; the check runs once more from a fresh display${kept.length ? ` (kept in ${kept.join(', ')})` : ''}`);
    return attempt();
  }
}

function periodOf(hz: number): number {
  if (!(hz > 0) || !Number.isFinite(hz)) throw new RangeError(`refresh rate must be a positive number of Hz, got ${hz}`);
  return 1000 / hz;
}

/** CLOCK_MONOTONIC in ms: the timebase of Chromium's TimeTicks on Linux. */
function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
