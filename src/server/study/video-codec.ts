import { ALL_FORMATS, FilePathSource, Input } from 'mediabunny';

/**
 * The video codecs the participant's stage plays: decoded with WebCodecs on the stage's clock, and by the <video>
 * element in the fallback (Chromium, Firefox and Safari decode all four). HEVC is left out: most browsers decode it
 * only with a hardware decoder, so a study using it would fail on some participants' computers.
 */
export const PLAYER_CODECS: Readonly<Record<string, string>> = { avc: 'H.264', vp8: 'VP8', vp9: 'VP9', av1: 'AV1' };

/**
 * Why the participant's player cannot play this video file, or null when it can: its container is read on the
 * server (mediabunny, the demuxer the stage uses), and its video track's codec must be one of PLAYER_CODECS.
 */
export async function videoCodecProblem(path: string, source: string): Promise<string | null> {
  const input = new Input({ formats: ALL_FORMATS, source: new FilePathSource(path) });
  try {
    const track = await input.getPrimaryVideoTrack();
    if (!track) return `video ${source} has no video track`;
    const codec = track.codec;
    if (codec && PLAYER_CODECS[codec]) return null;
    const named = codec ?? (await track.getCodecParameterString().catch(() => null)) ?? 'an unknown codec';
    return `video ${source} uses ${named}, which the player does not support (${Object.values(PLAYER_CODECS).join(', ')})`;
  } catch {
    return `video ${source} is not a readable video file (MP4, WebM, Matroska, QuickTime or Ogg)`;
  } finally {
    input.dispose();
  }
}
