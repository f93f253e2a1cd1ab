/**
 * Top of the vote dialog in CSS px (SPEC §2 "Rating dialogs", §9): 40 % of the window height; on a phone
 * 45 % of the outer height in portrait and 7.5 % otherwise.
 */
export function voteModalTop(opts: { phone: boolean; portrait: boolean; innerHeight: number; outerHeight: number }): number {
  if (!opts.phone) return Math.round(0.4 * opts.innerHeight);
  return Math.round((opts.portrait ? 0.45 : 0.075) * opts.outerHeight);
}
