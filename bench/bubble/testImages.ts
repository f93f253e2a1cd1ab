/**
 * Images made in the bench page for the bubble pixel test and benchmark, wrapped as LoadedMedia like the flow's
 * media loader makes them.
 */
import type { LoadedMedia } from '../../src/web/stage/types';
import { toMedia } from '../timing/testMedia';

/** Row where the pixel-test target switches from the checkerboard to the step edge (fraction of the height). */
export const TARGET_SPLIT = 0.5;

/**
 * Pixel-test target: the top half is a 1-px checkerboard (sharp: black/white texels; blurred: uniform grey, so the
 * window's rim is visible everywhere around it), the bottom half a vertical step edge at x = width / 2 (black on
 * the left, white on the right) whose blurred profile gives the deviation.
 */
export async function makePixelTarget(name: string, width: number, height: number): Promise<LoadedMedia> {
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d')!;
  const image = ctx.createImageData(width, height);
  const split = Math.round(height * TARGET_SPLIT);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const white = y < split ? (x + y) % 2 === 1 : x >= width / 2;
      const i = (y * width + x) * 4;
      image.data.fill(white ? 255 : 0, i, i + 3);
      image.data[i + 3] = 255;
    }
  }
  ctx.putImageData(image, 0, 0);
  return toMedia(name, canvas);
}

/** A busy, photo-like image (gradients, shapes, fine texture) for the benchmark: blur has work to do. */
export async function makePhotoLike(name: string, width: number, height: number): Promise<LoadedMedia> {
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d')!;
  const sky = ctx.createLinearGradient(0, 0, 0, height);
  sky.addColorStop(0, '#3a6ea5');
  sky.addColorStop(1, '#f3d9a4');
  ctx.fillStyle = sky;
  ctx.fillRect(0, 0, width, height);
  let seed = 7;
  const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
  for (let i = 0; i < 400; i++) {
    ctx.fillStyle = `hsl(${Math.floor(random() * 360)} ${40 + random() * 50}% ${25 + random() * 50}%)`;
    const r = (0.005 + random() * 0.05) * width;
    ctx.beginPath();
    ctx.arc(random() * width, random() * height, r, 0, Math.PI * 2);
    ctx.fill();
  }
  ctx.strokeStyle = 'rgba(255,255,255,0.6)';
  for (let x = 0; x < width; x += 6) {
    ctx.beginPath();
    ctx.moveTo(x, height * 0.7);
    ctx.lineTo(x + 3, height);
    ctx.stroke();
  }
  return toMedia(name, canvas);
}
