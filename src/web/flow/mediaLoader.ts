import type { LoadedMedia } from '../stage/types.js';
import { mediaType } from '../../contract/media-types.js';
import { loadFigures, type FileProgress, type LoadFigures } from './loadProgress.js';

export { mediaType };

/**
 * Downloads every media of the playlist as a blob before the test (SPEC §4 "Media loading"), so that no
 * stimulus touches the network while it is shown. A small pool of parallel downloads (3) instead of strictly
 * one at a time: it hides per-request latency and the figures stay exact, since they are summed per file.
 * A failed download is only logged; loading ends with whatever was fetched.
 * A `.gltf` 3D object names side files (buffers, textures) by relative URI: they are fetched from next to it and
 * counted in its own progress entry (the playlist's size of a .gltf includes them), so it arrives whole or not at all.
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

/** The relative URIs of a glTF JSON's buffers and images (data: URIs are inside the file already). */
export function gltfSideFiles(json: unknown): string[] {
  const doc = json as { buffers?: Array<{ uri?: unknown }>; images?: Array<{ uri?: unknown }> };
  const uris = [...(doc.buffers ?? []), ...(doc.images ?? [])].map((entry) => entry?.uri).filter((uri): uri is string => typeof uri === 'string');
  return [...new Set(uris.filter((uri) => !/^[a-z][a-z0-9+.-]*:/i.test(uri)).map((uri) => decodeURIComponent(uri)))];
}

async function fetchBody(url: string, file: FileProgress, options: LoadOptions, changed: () => void, own: false | 'gltf' | 'whole'): Promise<{ blob: Blob; contentType: string | null }> {
  const response = await fetch(url, { signal: options.signal });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const length = Number(response.headers.get('content-length'));
  // A .gltf's own length is not its whole size (its side files come after it): the playlist's size stands.
  const partial = own === 'gltf' && file.expectedBytes !== null;
  if (own && !partial && Number.isFinite(length) && length > 0) file.expectedBytes = length;
  return { blob: await readBody(response, file, changed), contentType: response.headers.get('content-type') };
}

/** A .gltf's side files, by the URI the file gives them, fetched from the .gltf's own folder. */
async function downloadSideFiles(name: string, gltf: Blob, file: FileProgress, options: LoadOptions, changed: () => void): Promise<Map<string, Blob>> {
  const folder = name.includes('/') ? name.slice(0, name.lastIndexOf('/') + 1) : '';
  const files = new Map<string, Blob>();
  for (const uri of gltfSideFiles(JSON.parse(await gltf.text()))) {
    if (uri.split('/').includes('..')) throw new Error(`side file ${uri} is outside the media folder`);
    files.set(uri, (await fetchBody(mediaUrl(options.base, folder + uri), file, options, changed, false)).blob);
  }
  return files;
}

async function downloadOne(name: string, file: FileProgress, options: LoadOptions, changed: () => void): Promise<LoadedMedia | null> {
  try {
    const own = /\.gltf$/i.test(name) ? 'gltf' : 'whole';
    const { blob: raw, contentType } = await fetchBody(mediaUrl(options.base, name), file, options, changed, own);
    const type = mediaType(name, contentType);
    if (!type) throw new Error('not an image, a video or a 3D object');
    const blob = raw.type === type.mime ? raw : new Blob([raw], { type: type.mime });
    const files = type.mime === 'model/gltf+json' ? await downloadSideFiles(name, blob, file, options, changed) : undefined;
    return { name, kind: type.kind, mime: type.mime, blob, url: URL.createObjectURL(blob), ...(files ? { files } : {}) };
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
