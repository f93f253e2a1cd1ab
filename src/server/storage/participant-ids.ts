import { createHash } from 'node:crypto';

/**
 * A participant's platform ids as one identity (docs/data-safety.md "Participant continuity"). Ids are compared
 * normalised: Unicode NFKC, trimmed, lower case (Prolific ids are hex, MTurk worker ids upper-case letters and digits,
 * e-mail addresses case-insensitive in practice), so `authA `, `autha` and `AUTHA` are one person; and an id counts
 * whichever parameter carried it (the same id as PROLIFIC_PID and as workerId is the same person). Stored only as
 * digests.
 */

export function normaliseParticipantId(value: string | null | undefined): string | null {
  const normal = value?.normalize('NFKC').trim().toLowerCase() ?? '';
  return normal === '' ? null : normal;
}

export function participantHash(normalisedId: string): string {
  return createHash('sha256').update(`glimpse-participant\n${normalisedId}`).digest('hex');
}

/** The distinct digests of the ids given (absent and blank ones skipped). */
export function participantHashes(ids: ReadonlyArray<string | null | undefined>): string[] {
  return [...new Set(ids.map(normaliseParticipantId).filter((id): id is string => id !== null).map(participantHash))];
}
