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

/**
 * The participant links of a job, per platform (console, `cli import`, `npm start`): Prolific's with the placeholders
 * Prolific fills in, MTurk's (the HIT adds the worker's ids), and the lab's (French; `email=` for the consent form).
 */
export function participantLinks(base: string, route: string, jobId: string): { prolific: string; mturk: string; lab: string } {
  const page = `${base}/${route}/${jobId}`;
  return {
    prolific: `${page}?platform=prolific&PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}`,
    mturk: `${page}?platform=mturk`,
    lab: `${page}?platform=nantes&email=`,
  };
}

/** Where a server listening on host:port is reached from this machine: a wildcard address is reached on loopback. */
export function reachableBase(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
