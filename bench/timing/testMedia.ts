/**
 * Bench/test media made in the page: distinct small PNG images (each a different colour and number), wrapped as
 * LoadedMedia exactly like the flow's media loader produces them (blob + object URL).
 */
import type { LoadedMedia } from '../../src/web/stage/types';

export async function makeImages(count: number, width: number, height: number, prefix = 'img'): Promise<LoadedMedia[]> {
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2d context');
  const out: LoadedMedia[] = [];
  for (let i = 0; i < count; i++) {
    ctx.fillStyle = `hsl(${(i * 137.5) % 360} 70% 45%)`;
    ctx.fillRect(0, 0, width, height);
    ctx.fillStyle = '#fff';
    ctx.font = `${Math.round(height / 2)}px sans-serif`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText(String(i), width / 2, height / 2);
    out.push(await toMedia(`${prefix}${i}.png`, canvas));
  }
  return out;
}

/** One image of a single colour (for pixel probes). */
export async function makeSolid(name: string, width: number, height: number, color: string): Promise<LoadedMedia> {
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2d context');
  ctx.fillStyle = color;
  ctx.fillRect(0, 0, width, height);
  return toMedia(name, canvas);
}

export function mediaFromBase64(name: string, kind: 'image' | 'video', mime: string, base64: string): LoadedMedia {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const blob = new Blob([bytes], { type: mime });
  return { name, kind, mime, blob, url: URL.createObjectURL(blob) };
}

export async function toMedia(name: string, canvas: OffscreenCanvas): Promise<LoadedMedia> {
  const blob = await canvas.convertToBlob({ type: 'image/png' });
  return { name, kind: 'image', mime: 'image/png', blob, url: URL.createObjectURL(blob) };
}

/**
 * A short WebM recorded in the page (MediaRecorder over a canvas): one solid colour per segment. Needs no
 * encoder on the machine, so tests can make real videos anywhere Chromium runs.
 */
export async function recordVideo(name: string, width: number, height: number, colors: string[], segmentMs: number): Promise<LoadedMedia> {
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  canvas.style.cssText = 'position:fixed;left:0;top:0;opacity:0.01;pointer-events:none';
  document.body.append(canvas);
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2d context');
  const mime = 'video/webm;codecs=vp8';
  const recorder = new MediaRecorder(canvas.captureStream(30), { mimeType: mime });
  const chunks: Blob[] = [];
  recorder.ondataavailable = (event) => chunks.push(event.data);
  const stopped = new Promise((resolve) => recorder.addEventListener('stop', resolve));
  const paint = (color: string) => {
    ctx.fillStyle = color;
    ctx.fillRect(0, 0, width, height);
  };
  paint(colors[0]);
  recorder.start();
  for (const color of colors) {
    const until = performance.now() + segmentMs;
    // Repaint every frame: captureStream only emits frames for canvases that changed.
    while (performance.now() < until) {
      paint(color);
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
  }
  recorder.stop();
  await stopped;
  canvas.remove();
  const blob = new Blob(chunks, { type: 'video/webm' });
  return { name, kind: 'video', mime: 'video/webm', blob, url: URL.createObjectURL(blob) };
}
