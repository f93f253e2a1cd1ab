/** Protocol names and their routes/playlist paths (SPEC §2, §7). Shared by web and server. */

export const RATING_PROTOCOLS = [
  'pair_comparison',
  'absolute_category_rating',
  'double_stimulus_impairment_scale',
  'acceptability_annoyance',
  'maximum_likelihood_difference_scaling',
  'triplet',
  'mlds_pair',
] as const;
export type RatingProtocol = (typeof RATING_PROTOCOLS)[number];

export const ALL_PROTOCOLS = [...RATING_PROTOCOLS, 'bubble', 'piiface'] as const;
export type Protocol = (typeof ALL_PROTOCOLS)[number];

/** Route segment (SPEC §2) for each protocol: /{segment}/{jobId}. */
export const ROUTE_OF_PROTOCOL: Record<Protocol, string> = {
  pair_comparison: 'pvid',
  absolute_category_rating: 'acr',
  double_stimulus_impairment_scale: 'dsis',
  acceptability_annoyance: 'accann',
  maximum_likelihood_difference_scaling: 'mlds',
  triplet: 'triplet',
  mlds_pair: 'mlds_pair',
  bubble: 'bubble',
  piiface: 'piiface',
};

/**
 * Playlist path (SPEC §7) for each protocol: GET /api/{path}/{jobId}.
 * acceptability_annoyance shares the ACR path; pair_comparison is the default (getrandomtasks).
 * The bubble path is ours (the spec leaves it open): /api/getbubble/{jobId}.
 */
export const PLAYLIST_PATH_OF_PROTOCOL: Record<Protocol, string> = {
  pair_comparison: 'getrandomtasks',
  absolute_category_rating: 'getacr',
  double_stimulus_impairment_scale: 'getdsis',
  acceptability_annoyance: 'getacr',
  maximum_likelihood_difference_scaling: 'getmlds',
  triplet: 'gettriplet',
  mlds_pair: 'getmldspc',
  bubble: 'getbubble',
  piiface: 'getpiiface',
};

export const PLATFORMS = ['prolific', 'mturk', 'nantes'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** SPEC §1: prolific is the default when the value is missing or unknown. */
export function parsePlatform(value: string | null | undefined): Platform {
  return (PLATFORMS as readonly string[]).includes(value ?? '') ? (value as Platform) : 'prolific';
}

export const APP_VERSION = '1.8.9';
