import { ALL_FORMATS, FilePathSource, Input, type InputVideoTrack } from 'mediabunny';

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
 * Why the stage would not show this clip's pixels exactly (README "Pixel-exact stimuli"): the stage converts 8-bit
 * BT.601 or BT.709 SDR pictures; an HDR transfer (PQ, HLG) would need tone mapping, BT.2020 other primaries, and
 * more than 8 bits per sample is decoded by some browsers only, and rounded by each its own way.
 */
async function pictureProblem(track: InputVideoTrack, source: string): Promise<string | null> {
  // mediabunny names more values than the DOM's VideoColorSpaceInit types know ('pq', 'hlg', 'bt2020').
  const space = (await track.getColorSpace().catch(() => null)) as { primaries?: string | null; transfer?: string | null; matrix?: string | null } | null;
  if (space?.transfer === 'pq' || space?.transfer === 'hlg') {
    return `video ${source} is HDR (${space.transfer === 'pq' ? 'PQ, SMPTE 2084' : 'HLG'}): the stage shows SDR pictures as they are and does no tone mapping; grade it to SDR BT.709 first`;
  }
  if (space?.primaries === 'bt2020' || space?.matrix === 'bt2020-ncl') {
    return `video ${source} uses BT.2020 colour: the stage converts BT.601 and BT.709 exactly; convert it to BT.709 first`;
  }
  const depth = codecBitDepth(await track.getCodecParameterString().catch(() => null));
  if (depth !== null && depth > 8) {
    return `video ${source} has ${depth} bits per sample: some browsers do not decode it (H.264 High 10 in Safari and hardware decoders), and the stage shows 8; encode it with 8 bits (yuv420p)`;
  }
  return null;
}

/**
 * Why the participant's player cannot play this video file exactly, or null when it can: its container is read on
 * the server (mediabunny, the demuxer the stage uses), its video track's codec must be one of PLAYER_CODECS, and
 * its picture 8-bit SDR in BT.601 or BT.709 (pictureProblem).
 */
export async function videoCodecProblem(path: string, source: string): Promise<string | null> {
  const input = new Input({ formats: ALL_FORMATS, source: new FilePathSource(path) });
  try {
    const track = await input.getPrimaryVideoTrack();
    if (!track) return `video ${source} has no video track`;
    const codec = track.codec;
    if (codec && PLAYER_CODECS[codec]) return pictureProblem(track, source);
    const named = codec ?? (await track.getCodecParameterString().catch(() => null)) ?? 'an unknown codec';
    return `video ${source} uses ${named}, which the player does not support (${Object.values(PLAYER_CODECS).join(', ')})`;
  } catch {
    return `video ${source} is not a readable video file (MP4, WebM, Matroska, QuickTime or Ogg)`;
  } finally {
    input.dispose();
  }
}
