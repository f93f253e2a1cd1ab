import { stat } from 'node:fs/promises';
import { formatCount } from './model-limits.js';
import { readVideo, type VideoTrackFacts } from './video-packets.js';
import { containerProblem, framesSaid, VIDEO_LIMITS, type VideoLimits } from './video-tables.js';

/**
 * The video codecs the participant's stage plays: decoded with WebCodecs on the stage's clock, and by the <video>
 * element in the fallback (Chromium, Firefox and Safari decode all four). HEVC is left out: most browsers decode it
 * only with a hardware decoder, so a study using it would fail on some participants' computers.
 */
export const PLAYER_CODECS: Readonly<Record<string, string>> = { avc: 'H.264', vp8: 'VP8', vp9: 'VP9', av1: 'AV1' };

/**
 * Bits per sample a codec string names (RFC 6381 as mediabunny writes it), or null when it names none: VP9
 * `vp09.PP.LL.DD` and AV1 `av01.P.LLT.DD` carry it; H.264 `avc1.PPCCLL` implies more than 8 with the High 10,
 * High 4:2:2 and High 4:4:4 profiles (110, 122, 244).
 */
export function codecBitDepth(codecString: string | null): number | null {
  if (!codecString) return null;
  const parts = codecString.split('.');
  if ((parts[0] === 'vp09' || parts[0] === 'av01') && parts[3]) return Number(parts[3]) || null;
  if (parts[0]?.startsWith('avc') && parts[1]?.length === 6) return [110, 122, 244].includes(parseInt(parts[1].slice(0, 2), 16)) ? 10 : 8;
  return null;
}

/**
 * Why the stage would not show this clip's pixels exactly (docs/pixels.md): the stage converts 8-bit
 * BT.601 or BT.709 SDR pictures; an HDR transfer (PQ, HLG) would need tone mapping, BT.2020 other primaries, and
 * more than 8 bits per sample is decoded by some browsers only, and rounded by each its own way.
 */
function pictureProblem(track: VideoTrackFacts, source: string): string | null {
  const space = track.colorSpace;
  if (space?.transfer === 'pq' || space?.transfer === 'hlg') {
    return `video ${source} is HDR (${space.transfer === 'pq' ? 'PQ, SMPTE 2084' : 'HLG'}): the stage shows SDR pictures as they are and does no tone mapping; grade it to SDR BT.709 first`;
  }
  if (space?.primaries === 'bt2020' || space?.matrix === 'bt2020-ncl') {
    return `video ${source} uses BT.2020 colour: the stage converts BT.601 and BT.709 exactly; convert it to BT.709 first`;
  }
  const depth = codecBitDepth(track.codecString);
  if (depth !== null && depth > 8) {
    return `video ${source} has ${depth} bits per sample: some browsers do not decode it (H.264 High 10 in Safari and hardware decoders), and the stage shows 8; encode it with 8 bits (yuv420p)`;
  }
  return null;
}

/**
 * Why the participant's player cannot play this video file exactly, or null when it can. The stage reads a clip
 * whole before its first trial, so the importer reads it as the stage will: first its container's boxes, bounded
 * (video-tables.ts: a sample table past the end of the file, or listing more samples than the file or the frame
 * limit allow, never reaches the demuxer), then with mediabunny, the stage's demuxer, in a worker under a time and
 * memory bound (video-packets.ts), listing every packet. Its video track's codec must be one of PLAYER_CODECS, its
 * picture 8-bit SDR in BT.601 or BT.709 (pictureProblem), and its packets within the limits and the file.
 */
export async function videoCodecProblem(path: string, source: string, limits: VideoLimits = VIDEO_LIMITS): Promise<string | null> {
  const { size } = await stat(path);
  const cut = await containerProblem(path, source, size, limits);
  if (cut) return cut;
  const reading = await readVideo(path, limits);
  const whole = 'the stage reads every frame of it before the first trial';
  if ('failed' in reading) {
    if (reading.failed === 'timeout') return `video ${source} took ${reading.message} to read, over the limit (${whole})`;
    if (reading.failed === 'memory') return `video ${source} took ${reading.message} of memory to read, over the limit (${whole})`;
    if (reading.failed === 'packets') return `video ${source} is not a readable video file: its frames cannot be listed (${reading.message})`;
    return `video ${source} is not a readable video file (MP4, WebM, Matroska, QuickTime or Ogg)`;
  }
  const track = reading.track;
  if (!track) return `video ${source} has no video track`;
  const codec = track.codec;
  if (!codec || !PLAYER_CODECS[codec]) {
    return `video ${source} uses ${codec ?? track.codecString ?? 'an unknown codec'}, which the player does not support (${Object.values(PLAYER_CODECS).join(', ')})`;
  }
  const picture = pictureProblem(track, source);
  if (picture) return picture;
  if (track.packets === 0) return `video ${source} has no frames`;
  if (track.packets > limits.maxFrames) return `video ${source} has more than ${framesSaid(limits)}, over the limit`;
  if (track.bytes > size) return `video ${source}'s frames take ${formatCount(track.bytes)} bytes, more than the file's ${formatCount(size)}`;
  return null;
}
