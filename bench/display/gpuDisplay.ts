/**
 * The virtual display (testkit/virtualDisplay.ts) on the GPU machine (scripts/gpu/run-on-gpu.sh): a `--gpu` bench run
 * starts every display of the run on the probe's graphics flags (GLIMPSE_GPU_FLAGS) in the packed browser
 * (CHROMIUM_PATH), reads each display's own WebGL renderer and refuses a software one (`--dry-run` allows it, for the
 * dry run of the code path on a CPU machine: never GPU figures).
 */
import { gpuFlags, isSoftwareRenderer } from '../timing/benchPage';
import type { VirtualDisplay } from '../../testkit/virtualDisplay';

export interface DisplayGpuMode {
  gpu: boolean;
  dryRun: boolean;
}

export function displayGpuMode(argv: string[] = process.argv): DisplayGpuMode {
  const gpu = argv.includes('--gpu');
  const mode = { gpu, dryRun: gpu && argv.includes('--dry-run') };
  if (gpu) {
    process.env.VIRTUAL_DISPLAY_GRAPHICS_FLAGS ??= JSON.stringify(gpuFlags());
    if (process.env.CHROMIUM_PATH) process.env.VIRTUAL_DISPLAY_CHROMIUM ??= process.env.CHROMIUM_PATH;
  }
  return mode;
}

/** The WebGL renderer of the display's page (WEBGL_debug_renderer_info), as a WebGL2 canvas there reports it. */
export function displayRenderer(display: VirtualDisplay): Promise<string> {
  return display.read(() => {
    const gl = document.createElement('canvas').getContext('webgl2');
    if (!gl) return 'no WebGL2';
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    return String(info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER));
  }, null);
}

/** Renderers seen on a run's displays; with --gpu (not a dry run) a software one throws. */
export class RendererCheck {
  readonly seen = new Set<string>();
  constructor(private readonly mode: DisplayGpuMode, private readonly bench: string) {}

  async check(display: VirtualDisplay): Promise<string> {
    const renderer = await displayRenderer(display);
    this.seen.add(renderer);
    if (this.mode.gpu && !this.mode.dryRun && isSoftwareRenderer(renderer)) {
      throw new Error(`${this.bench} --gpu: the virtual display's WebGL renderer is "${renderer}", not a GPU; no GPU figures written`);
    }
    return renderer;
  }
}

/**
 * `work`, or a rejection after `ms`: a display whose GPU process never draws (begin-frame control on a driver that
 * does not answer) must fail the run within the GPU machine's short lease, not hang it.
 */
export function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/** Seconds a display may take to open, load the bench page and prepare its media (DISPLAY_OPEN_LIMIT_S, default 60). */
export const OPEN_LIMIT_MS = Number(process.env.DISPLAY_OPEN_LIMIT_S ?? 60) * 1000;
