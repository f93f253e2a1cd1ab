/**
 * Measurements on a screenshot of the bubble canvas (RGB rows, 3 bytes per pixel), used by the pixel test.
 * Pure functions over the raw pixels.
 */

export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

const value = (img: RgbImage, x: number, y: number) => img.data[(y * img.width + x) * 3];

/**
 * Window of a checkerboard region: a pixel is "sharp" when it is nearer black or white than the blurred grey
 * (|v - 127.5| > 63.75, i.e. mixed less than half with the blurred copy, i.e. nearer the centre than the radius).
 * Centre = centroid of the sharp pixels' centres; radius = sqrt(count / π).
 */
export function windowFromSharpPixels(img: RgbImage, region: Region): { centreX: number; centreY: number; radius: number; count: number } {
  let count = 0;
  let sumX = 0;
  let sumY = 0;
  for (let y = region.y; y < region.y + region.height; y++) {
    for (let x = region.x; x < region.x + region.width; x++) {
      if (Math.abs(value(img, x, y) - 127.5) <= 63.75) continue;
      count += 1;
      sumX += x + 0.5;
      sumY += y + 0.5;
    }
  }
  if (count === 0) throw new Error('no sharp pixel in the region: the window is not there');
  return { centreX: sumX / count, centreY: sumY / count, radius: Math.sqrt(count / Math.PI), count };
}

/**
 * Gaussian deviation of a blurred vertical step edge (dark left, light right) at column `edgeX` on row `y`:
 * the profile is normalised between its two plateaus (`reach` px away) and the distance between its
 * 15.87 % and 84.13 % crossings (pixel centres, linear interpolation) is 2σ.
 */
export function edgeDeviation(img: RgbImage, y: number, edgeX: number, reach: number): number {
  const xs: number[] = [];
  const vs: number[] = [];
  for (let x = edgeX - reach; x < edgeX + reach; x++) {
    xs.push(x + 0.5);
    vs.push(value(img, x, y));
  }
  const low = vs[0];
  const high = vs[vs.length - 1];
  if (!(high - low > 100)) throw new Error(`no edge at x=${edgeX}, y=${y} (plateaus ${low} and ${high})`);
  const crossing = (level: number) => {
    const target = low + level * (high - low);
    for (let i = 1; i < vs.length; i++) {
      if (vs[i - 1] < target && vs[i] >= target) return xs[i - 1] + ((target - vs[i - 1]) / (vs[i] - vs[i - 1])) * (xs[i] - xs[i - 1]);
    }
    throw new Error(`the profile never crosses ${level}`);
  };
  return (crossing(0.8413) - crossing(0.1587)) / 2;
}
