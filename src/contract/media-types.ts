/**
 * The media types a study may use, by file extension (web and server share them: the loader falls back on them
 * when a server sends no Content-Type, the importer allows only these).
 */

export const IMAGE_EXT: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
};
export const VIDEO_EXT: Readonly<Record<string, string>> = {
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  webm: 'video/webm',
  ogv: 'video/ogg',
  ogg: 'video/ogg',
  mov: 'video/quicktime',
  mkv: 'video/x-matroska',
};

/**
 * 3D objects (docs/3d-objects.md): glTF 2.0 meshes (`.gltf` may name side files: buffers and textures, which the
 * importer copies with it) and PLY point clouds (binary or ASCII, per-point colour).
 */
export const MODEL_EXT: Readonly<Record<string, string>> = {
  glb: 'model/gltf-binary',
  gltf: 'model/gltf+json',
  ply: 'model/ply',
};

export type MediaKind = 'image' | 'video' | 'model';

/** The media kind and mime: from the Content-Type when it says image/ or video/, else from the extension. */
export function mediaType(name: string, contentType: string | null): { kind: MediaKind; mime: string } | null {
  const mime = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mime.startsWith('image/')) return { kind: 'image', mime };
  if (mime.startsWith('video/')) return { kind: 'video', mime };
  if (Object.values(MODEL_EXT).includes(mime)) return { kind: 'model', mime };
  const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  if (IMAGE_EXT[ext]) return { kind: 'image', mime: IMAGE_EXT[ext] };
  if (VIDEO_EXT[ext]) return { kind: 'video', mime: VIDEO_EXT[ext] };
  if (MODEL_EXT[ext]) return { kind: 'model', mime: MODEL_EXT[ext] };
  return null;
}
