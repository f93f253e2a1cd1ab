/**
 * Pure layout helpers: where each media goes on the stage canvas. No pixi.js import, so protocols may import this
 * file without pulling PixiJS into the first bundle.
 *
 * Every layout is a packed grid: all media of one layout share ONE scale factor (so two encodings of the same
 * source are drawn at exactly the same size, which a quality comparison needs), and the grid is centred in the free
 * area. With a canvas that names its `scaling` 'integer' or 'native' (docs/pixels.md), the layout is
 * computed in device pixels: each media pixel becomes k×k device pixels (k whole, never shrunk to fit), at a whole
 * device pixel, and the CSS rectangle is that divided by the ratio. Otherwise ('fit', or no scaling: tests and the
 * old behaviour) every coordinate is a whole CSS pixel and media are shrunk to fit.
 */
import type { Scaling } from '../../contract/job-options';
import type { ItemPixels, Rect, StageItem } from './types';

export interface Size {
  width: number;
  height: number;
}

/** The stage canvas a layout fills: its CSS size, and how media pixels map to device pixels. */
export interface Canvas extends Size {
  /** window.devicePixelRatio as the stage drew with it (default 1). */
  pixelRatio?: number;
  /** Absent: 'fit' in CSS pixels, without a pixels record (the old layout). */
  scaling?: Scaling;
}

/**
 * Device pixels per media pixel: 'native' 1; 'integer' the whole part of the ratio (at least 1: 1 at 1.25 and 1.5,
 * 2 on a Retina display). A ratio a hair under a whole number (1.9999999 from a zoom step) counts as that number.
 */
export function pixelsPerMediaPixel(scaling: Exclude<Scaling, 'fit'>, ratio: number): number {
  if (scaling === 'native') return 1;
  return Math.max(1, Math.floor(ratio + 1e-6));
}

const exactScaling = (canvas: Canvas): Exclude<Scaling, 'fit'> | null =>
  canvas.scaling === 'integer' || canvas.scaling === 'native' ? canvas.scaling : null;

/** A media to place, with its natural size (StageController.mediaSize). */
export interface MediaBox {
  media: string;
  size: Size;
}

export interface LayoutOptions {
  /** Free space kept on every side of the canvas, CSS px. Default 16. */
  margin?: number;
  /** Space between neighbouring media, CSS px. Default 16. */
  gap?: number;
  /** Height reserved at the top of the canvas for the question text (questionAlongTest), CSS px. Default 0. */
  topBand?: number;
  /** Allow drawing media larger than their natural size. Default false: quality studies avoid upscaling. */
  allowUpscale?: boolean;
  /**
   * Bands along the canvas's right or bottom edge (CSS px, margin included) the media must leave free: the page puts
   * something there (the answer dialog beside 3D objects that stay up while it is open). The media are fitted in
   * what is left, then centred in the whole content area and pushed back out of the band. 'fit' layouts only.
   */
  keepClear?: { right?: number; bottom?: number };
}

const DEFAULT_MARGIN = 16;
const DEFAULT_GAP = 16;

/** The part of the canvas media may occupy: the canvas minus the margins and the question band. */
export function contentArea(canvas: Size, options: LayoutOptions = {}): Rect {
  const margin = options.margin ?? DEFAULT_MARGIN;
  const topBand = options.topBand ?? 0;
  return {
    x: margin,
    y: topBand + margin,
    width: Math.max(0, canvas.width - 2 * margin),
    height: Math.max(0, canvas.height - topBand - 2 * margin),
  };
}

/** The content area less the `keepClear` bands: where media may be fitted. */
function clearArea(area: Rect, canvas: Size, options: LayoutOptions): Rect {
  const right = Math.max(0, area.x + area.width - (canvas.width - (options.keepClear?.right ?? 0)));
  const bottom = Math.max(0, area.y + area.height - (canvas.height - (options.keepClear?.bottom ?? 0)));
  return { ...area, width: Math.max(0, area.width - right), height: Math.max(0, area.height - bottom) };
}

/** Top-left of a `size` block centred in `area`, moved left / up as little as keeps it inside `clear`. */
function centredClear(size: Size, area: Rect, clear: Rect): { x: number; y: number } {
  return {
    x: Math.max(clear.x, Math.min(area.x + Math.round((area.width - size.width) / 2), clear.x + clear.width - size.width)),
    y: Math.max(clear.y, Math.min(area.y + Math.round((area.height - size.height) / 2), clear.y + clear.height - size.height)),
  };
}

/** Fit one media into a box keeping its aspect ratio, centred in the box, whole pixels. */
export function fitRect(size: Size, box: Rect, allowUpscale = false): Rect {
  assertSize(size);
  const scale = Math.max(0, Math.min(box.width / size.width, box.height / size.height, allowUpscale ? Infinity : 1));
  const width = Math.round(size.width * scale);
  const height = Math.round(size.height * scale);
  return {
    x: box.x + Math.round((box.width - width) / 2),
    y: box.y + Math.round((box.height - height) / 2),
    width,
    height,
  };
}

/**
 * Place `rows` x `cols` media (row-major order) as a packed grid centred in the content area.
 * Column widths / row heights are the largest scaled media of that column / row; each media is centred in its cell.
 */
export function layoutGrid(canvas: Canvas, items: MediaBox[], rows: number, cols: number, options: LayoutOptions = {}): StageItem[] {
  if (items.length !== rows * cols) {
    throw new RangeError(`layoutGrid: ${items.length} media for a ${rows}x${cols} grid`);
  }
  items.forEach((item) => assertSize(item.size));
  const exact = exactScaling(canvas);
  if (exact) return exactGrid(canvas, exact, items, rows, cols, options);
  const gap = options.gap ?? DEFAULT_GAP;
  const area = contentArea(canvas, options);
  const clear = clearArea(area, canvas, options);
  const natural = tracksOf(items, rows, cols, 1, gap);
  const scale = Math.max(
    0,
    Math.min(
      (clear.width - gap * (cols - 1)) / sum(natural.cols),
      (clear.height - gap * (rows - 1)) / sum(natural.rows),
      options.allowUpscale ? Infinity : 1,
    ),
  );
  const tracks = tracksOf(items, rows, cols, scale, gap, Math.round);
  const origin = centredClear(extent(tracks), area, clear);
  const sizes = items.map((item) => ({ width: Math.round(item.size.width * scale), height: Math.round(item.size.height * scale) }));
  return placeGrid(sizes, cols, tracks, origin, Math.round).map((rect, i) => ({ media: items[i].media, rect }));
}

/** The widths of a packed grid's columns and the heights of its rows, and the gap between them. */
interface Tracks {
  cols: number[];
  rows: number[];
  gap: number;
}

/** Each column as wide as its widest media, each row as high as its highest, times `scale`, then `whole`. */
function tracksOf(items: MediaBox[], rows: number, cols: number, scale: number, gap: number, whole: (n: number) => number = (n) => n): Tracks {
  return {
    cols: range(cols).map((c) => whole(scale * Math.max(...range(rows).map((r) => items[r * cols + c].size.width)))),
    rows: range(rows).map((r) => whole(scale * Math.max(...range(cols).map((c) => items[r * cols + c].size.height)))),
    gap,
  };
}

function extent(tracks: Tracks): Size {
  return { width: sum(tracks.cols) + tracks.gap * (tracks.cols.length - 1), height: sum(tracks.rows) + tracks.gap * (tracks.rows.length - 1) };
}

/** Each media (row-major, drawn at `sizes`) centred in its cell of the grid whose top-left is `origin`; `half` rounds. */
function placeGrid(sizes: Size[], cols: number, tracks: Tracks, origin: { x: number; y: number }, half: (n: number) => number): Rect[] {
  return sizes.map((size, index) => {
    const r = Math.floor(index / cols);
    const c = index % cols;
    return {
      x: origin.x + sum(tracks.cols.slice(0, c)) + tracks.gap * c + half((tracks.cols[c] - size.width) / 2),
      y: origin.y + sum(tracks.rows.slice(0, r)) + tracks.gap * r + half((tracks.rows[r] - size.height) / 2),
      width: size.width,
      height: size.height,
    };
  });
}

/**
 * The grid in device pixels at k device pixels per media pixel: whole device pixels everywhere, centred in the
 * content area, or in the whole canvas below the question band when the margins do not leave room. Never shrunk: a
 * grid larger than that is still centred (and cut), with `fits` false, for the page to pause on.
 */
function exactGrid(canvas: Canvas, scaling: Exclude<Scaling, 'fit'>, items: MediaBox[], rows: number, cols: number, options: LayoutOptions): StageItem[] {
  const ratio = canvas.pixelRatio ?? 1;
  const k = pixelsPerMediaPixel(scaling, ratio);
  const device = (css: number) => Math.round(css * ratio);
  const gap = device(options.gap ?? DEFAULT_GAP);
  const topBand = device(options.topBand ?? 0);
  const width = device(canvas.width);
  const height = device(canvas.height);
  const tracks = tracksOf(items, rows, cols, k, gap);
  const grid = extent(tracks);
  const padded = contentArea({ width, height }, { margin: device(options.margin ?? DEFAULT_MARGIN), topBand });
  const whole: Rect = { x: 0, y: topBand, width, height: Math.max(0, height - topBand) };
  const fits = grid.width <= whole.width && grid.height <= whole.height;
  const area = grid.width <= padded.width && grid.height <= padded.height ? padded : whole;
  const origin = { x: area.x + Math.floor((area.width - grid.width) / 2), y: area.y + Math.floor((area.height - grid.height) / 2) };
  const sizes = items.map((item) => ({ width: k * item.size.width, height: k * item.size.height }));
  return placeGrid(sizes, cols, tracks, origin, Math.floor).map((deviceRect, i) => {
    const pixels: ItemPixels = { scaling, scale: k, filter: 'nearest', device: deviceRect, fits };
    return { media: items[i].media, rect: cssOf(deviceRect, ratio), pixels };
  });
}

/** A device-pixel rectangle in CSS px (fractional at fractional ratios: the stage multiplies it back exactly). */
function cssOf(rect: Rect, ratio: number): Rect {
  return { x: rect.x / ratio, y: rect.y / ratio, width: rect.width / ratio, height: rect.height / ratio };
}

/** Every item of a layout lies inside the canvas (an exact layout never shrinks: the page pauses instead). */
export function layoutFits(items: readonly StageItem[]): boolean {
  return items.every((item) => item.pixels?.fits ?? true);
}

/**
 * When an exact layout does not fit: the device-pixel size its items cover (their bounding box), the least canvas
 * they need (the "enlarge the window" message); null when every item fits.
 */
export function layoutNeeds(items: readonly StageItem[]): Size | null {
  const rects = items.flatMap((item) => (item.pixels && !item.pixels.fits ? [item.pixels.device] : []));
  if (rects.length === 0) return null;
  const left = Math.min(...rects.map((r) => r.x));
  const top = Math.min(...rects.map((r) => r.y));
  const right = Math.max(...rects.map((r) => r.x + r.width));
  const bottom = Math.max(...rects.map((r) => r.y + r.height));
  return { width: right - left, height: bottom - top };
}

/** One media centred (single stimulus, categoryTest 5). */
export function layoutSingle(canvas: Canvas, item: MediaBox, options?: LayoutOptions): StageItem {
  return layoutGrid(canvas, [item], 1, 1, options)[0];
}

/** A pair side by side, A left, B right (categoryTest 1 and 3). */
export function layoutSideBySide(canvas: Canvas, pair: [MediaBox, MediaBox], options?: LayoutOptions): [StageItem, StageItem] {
  const [a, b] = layoutGrid(canvas, pair, 1, 2, options);
  return [a, b];
}

/**
 * A pair shown one after another (categoryTest 2 and 4): each centred on its own, both at the same scale so the
 * second one is not drawn larger or smaller than the first. Put each item in its own PresentationStep.
 */
export function layoutOneAfterAnother(canvas: Canvas, pair: [MediaBox, MediaBox], options: LayoutOptions = {}): [StageItem, StageItem] {
  // Exact: one scale k for both by construction, each centred on its own.
  if (exactScaling(canvas)) return [layoutGrid(canvas, [pair[0]], 1, 1, options)[0], layoutGrid(canvas, [pair[1]], 1, 1, options)[0]];
  const area = contentArea(canvas, options);
  const clear = clearArea(area, canvas, options);
  const scale = Math.max(
    0,
    Math.min(
      ...pair.map((item) => {
        assertSize(item.size);
        return Math.min(clear.width / item.size.width, clear.height / item.size.height);
      }),
      options.allowUpscale ? Infinity : 1,
    ),
  );
  const place = (item: MediaBox): StageItem => {
    const size = { width: Math.round(item.size.width * scale), height: Math.round(item.size.height * scale) };
    return { media: item.media, rect: { ...centredClear(size, area, clear), ...size } };
  };
  return [place(pair[0]), place(pair[1])];
}

/** MLDS quadruplet: top pair (A, B) over bottom pair (C, D). */
export function layoutQuadruplet(
  canvas: Canvas,
  quad: [MediaBox, MediaBox, MediaBox, MediaBox],
  options?: LayoutOptions,
): [StageItem, StageItem, StageItem, StageItem] {
  const [a, b, c, d] = layoutGrid(canvas, quad, 2, 2, options);
  return [a, b, c, d];
}

/** Triplet: three media in one row, left to right. */
export function layoutTripletRow(canvas: Canvas, triplet: [MediaBox, MediaBox, MediaBox], options?: LayoutOptions): [StageItem, StageItem, StageItem] {
  const [a, b, c] = layoutGrid(canvas, triplet, 1, 3, options);
  return [a, b, c];
}

function assertSize(size: Size): void {
  if (!(size.width > 0 && size.height > 0)) {
    throw new RangeError(`layout: media size must be positive, got ${size.width}x${size.height}`);
  }
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

function sum(values: number[]): number {
  return values.reduce((total, v) => total + v, 0);
}
