import type { LoadedMedia } from '../stage/types.js';
import { mediaType } from '../../contract/media-types.js';
import { loadFigures, type FileProgress, type LoadFigures } from './loadProgress.js';

export { mediaType };

/**
 * Downloads every media of the playlist as a blob before the test (SPEC §4 "Media loading"), so that no
 * stimulus touches the network while it is shown. A small pool of parallel downloads (3) instead of strictly
 * one at a time: it hides per-request latency and the figures stay exact, since they are summed per file.
 * A failed download is only logged; loading ends with whatever was fetched.
 */

export const DEFAULT_CONCURRENCY = 3;

/** Media host from <meta name="glimpse-media-base"> (empty or absent = same origin), without a trailing slash. */
export function readMediaBase(doc: Document): string {
  const content = doc.querySelector('meta[name="glimpse-media-base"]')?.getAttribute('content') ?? '';
  return content.trim().replace(/\/+$/, '');
}

/** `{base}/resmedias/{name}`; each path segment of the name is URL-encoded. */
export function mediaUrl(base: string, name: string): string {
  return `${base}/resmedias/${name.split('/').map(encodeURIComponent).join('/')}`;
}

export interface LoadOptions {
  base: string;
  /** The size in bytes of each name (the playlist's mediaSizes), null when unknown: the total is right from the start. */
  sizes?: ReadonlyArray<number | null>;
  concurrency?: number;
  /** Called at most every `progressEveryMs` and once at the end. */
  onProgress?: (figures: LoadFigures) => void;
  progressEveryMs?: number;
  signal?: AbortSignal;
  now?: () => number;
}

async function readBody(response: Response, file: FileProgress, changed: () => void): Promise<Blob> {
  if (!response.body) {
    const blob = await response.blob();
    file.receivedBytes = blob.size;
    return blob;
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    file.receivedBytes += value.byteLength;
    changed();
  }
  return new Blob(chunks as BlobPart[]);
}

async function downloadOne(name: string, file: FileProgress, options: LoadOptions, changed: () => void): Promise<LoadedMedia | null> {
  try {
    const response = await fetch(mediaUrl(options.base, name), { signal: options.signal });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const length = Number(response.headers.get('content-length'));
    if (Number.isFinite(length) && length > 0) file.expectedBytes = length;
    const raw = await readBody(response, file, changed);
    const type = mediaType(name, response.headers.get('content-type'));
    if (!type || type.kind === 'model') throw new Error('not an image or a video');
    const blob = raw.type === type.mime ? raw : new Blob([raw], { type: type.mime });
    return { name, kind: type.kind, mime: type.mime, blob, url: URL.createObjectURL(blob) };
  } catch (error) {
    console.log(`media download failed: ${name}`, error);
    file.receivedBytes = file.expectedBytes ?? file.receivedBytes;
    return null;
  } finally {
    file.finished = true;
    changed();
  }
}

/** Download `names` (duplicates once each). Resolves with the media that arrived, keyed by name. */
export async function loadMedia(names: readonly string[], options: LoadOptions): Promise<Map<string, LoadedMedia>> {
  const unique = [...new Set(names)];
  const now = options.now ?? (() => performance.now());
  const sizeOf = new Map(names.map((name, i) => [name, options.sizes?.[i] ?? null]));
  const files: FileProgress[] = unique.map((name) => ({ expectedBytes: sizeOf.get(name) ?? null, receivedBytes: 0, finished: false }));
  const loaded = new Map<string, LoadedMedia>();
  const started = now();
  let lastReport = -Infinity;
  const report = (force = false) => {
    const t = now();
    if (!force && t - lastReport < (options.progressEveryMs ?? 100)) return;
    lastReport = t;
    options.onProgress?.(loadFigures(files, t - started));
  };
  report(true);
  let next = 0;
  const worker = async () => {
    while (next < unique.length && !options.signal?.aborted) {
      const index = next++;
      const media = await downloadOne(unique[index]!, files[index]!, options, () => report());
      if (media) loaded.set(media.name, media);
    }
  };
  const pool = Math.max(1, Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, unique.length));
  await Promise.all(Array.from({ length: pool }, worker));
  report(true);
  return loaded;
}

export function releaseMedia(media: Map<string, LoadedMedia>): void {
  for (const m of media.values()) URL.revokeObjectURL(m.url);
}
