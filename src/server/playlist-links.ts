import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed participant links that choose a playlist (`cli link JOBID --playlist ID`): `playlist_id` is honoured only
 * with `sig`, an HMAC-SHA256 of the job and the playlist under LINK_SECRET (or when the job sets
 * allowPlaylistChoice), so an outsider cannot pin sessions to a playlist and steer the balancing.
 */

export function playlistSignature(secret: string, jobId: string, playlistId: number): string {
  return createHmac('sha256', secret).update(`glimpse-playlist\n${jobId}\n${playlistId}`).digest('base64url').slice(0, 32);
}

export function playlistSignatureValid(secret: string | null, jobId: string, playlistId: number, signature: string | undefined): boolean {
  if (!secret || !signature) return false;
  const expected = Buffer.from(playlistSignature(secret, jobId, playlistId));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
