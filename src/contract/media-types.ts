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

/** The media kind and mime: from the Content-Type when it says image/ or video/, else from the extension. */
export function mediaType(name: string, contentType: string | null): { kind: 'image' | 'video'; mime: string } | null {
  const mime = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mime.startsWith('image/')) return { kind: 'image', mime };
  if (mime.startsWith('video/')) return { kind: 'video', mime };
  const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  if (IMAGE_EXT[ext]) return { kind: 'image', mime: IMAGE_EXT[ext] };
  if (VIDEO_EXT[ext]) return { kind: 'video', mime: VIDEO_EXT[ext] };
  return null;
}
