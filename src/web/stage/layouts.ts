/**
 * Pure layout helpers: where each media goes on the stage canvas. No pixi.js import, so protocols may import this
 * file without pulling PixiJS into the first bundle.
 *
 * Every layout is a packed grid: all media of one layout share ONE scale factor (so two encodings of the same
 * source are drawn at exactly the same size, which a quality comparison needs), the grid is centred in the free
 * area, and every coordinate is a whole CSS pixel (so a media shown at its natural size is not resampled).
 */
import type { Rect, StageItem } from './types';

export interface Size {
  width: number;
  height: number;
}

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
export function layoutGrid(canvas: Size, items: MediaBox[], rows: number, cols: number, options: LayoutOptions = {}): StageItem[] {
  if (items.length !== rows * cols) {
    throw new RangeError(`layoutGrid: ${items.length} media for a ${rows}x${cols} grid`);
  }
  items.forEach((item) => assertSize(item.size));
  const gap = options.gap ?? DEFAULT_GAP;
  const area = contentArea(canvas, options);
  const colNatural = range(cols).map((c) => Math.max(...range(rows).map((r) => items[r * cols + c].size.width)));
  const rowNatural = range(rows).map((r) => Math.max(...range(cols).map((c) => items[r * cols + c].size.height)));
  const scale = Math.max(
    0,
    Math.min(
      (area.width - gap * (cols - 1)) / sum(colNatural),
      (area.height - gap * (rows - 1)) / sum(rowNatural),
      options.allowUpscale ? Infinity : 1,
    ),
  );
  const colWidths = colNatural.map((w) => Math.round(w * scale));
  const rowHeights = rowNatural.map((h) => Math.round(h * scale));
  const gridWidth = sum(colWidths) + gap * (cols - 1);
  const gridHeight = sum(rowHeights) + gap * (rows - 1);
  const left = area.x + Math.round((area.width - gridWidth) / 2);
  const top = area.y + Math.round((area.height - gridHeight) / 2);

  return items.map((item, index) => {
    const r = Math.floor(index / cols);
    const c = index % cols;
    const cell: Rect = {
      x: left + sum(colWidths.slice(0, c)) + gap * c,
      y: top + sum(rowHeights.slice(0, r)) + gap * r,
      width: colWidths[c],
      height: rowHeights[r],
    };
    const width = Math.round(item.size.width * scale);
    const height = Math.round(item.size.height * scale);
    const rect: Rect = {
      x: cell.x + Math.round((cell.width - width) / 2),
      y: cell.y + Math.round((cell.height - height) / 2),
      width,
      height,
    };
    return { media: item.media, rect };
  });
}

/** One media centred (single stimulus, categoryTest 5). */
export function layoutSingle(canvas: Size, item: MediaBox, options?: LayoutOptions): StageItem {
  return layoutGrid(canvas, [item], 1, 1, options)[0];
}

/** A pair side by side, A left, B right (categoryTest 1 and 3). */
export function layoutSideBySide(canvas: Size, pair: [MediaBox, MediaBox], options?: LayoutOptions): [StageItem, StageItem] {
  const [a, b] = layoutGrid(canvas, pair, 1, 2, options);
  return [a, b];
}

/**
 * A pair shown one after another (categoryTest 2 and 4): each centred on its own, both at the same scale so the
 * second one is not drawn larger or smaller than the first. Put each item in its own PresentationStep.
 */
export function layoutOneAfterAnother(canvas: Size, pair: [MediaBox, MediaBox], options: LayoutOptions = {}): [StageItem, StageItem] {
  const area = contentArea(canvas, options);
  const scale = Math.max(
    0,
    Math.min(
      ...pair.map((item) => {
        assertSize(item.size);
        return Math.min(area.width / item.size.width, area.height / item.size.height);
      }),
      options.allowUpscale ? Infinity : 1,
    ),
  );
  const place = (item: MediaBox): StageItem => {
    const scaled = { width: item.size.width * scale, height: item.size.height * scale };
    return { media: item.media, rect: fitRect(scaled, area, false) };
  };
  return [place(pair[0]), place(pair[1])];
}

/** MLDS quadruplet: top pair (A, B) over bottom pair (C, D). */
export function layoutQuadruplet(
  canvas: Size,
  quad: [MediaBox, MediaBox, MediaBox, MediaBox],
  options?: LayoutOptions,
): [StageItem, StageItem, StageItem, StageItem] {
  const [a, b, c, d] = layoutGrid(canvas, quad, 2, 2, options);
  return [a, b, c, d];
}

/** Triplet: three media in one row, left to right. */
export function layoutTripletRow(canvas: Size, triplet: [MediaBox, MediaBox, MediaBox], options?: LayoutOptions): [StageItem, StageItem, StageItem] {
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
