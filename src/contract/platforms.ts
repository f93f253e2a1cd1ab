/** Crowd platforms (SPEC §1). Shared by web and server. */

export const PLATFORMS = ['prolific', 'mturk', 'nantes'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** SPEC §1: prolific is the default when the value is missing or unknown. */
export function parsePlatform(value: string | null | undefined): Platform {
  return (PLATFORMS as readonly string[]).includes(value ?? '') ? (value as Platform) : 'prolific';
}
