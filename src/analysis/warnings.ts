/**
 * Warnings of a report: what the data cannot support, said where a reader looks first (report.json `warnings`,
 * the top of report.html). Notes say what was done; warnings say which numbers not to trust and why.
 */
import type { MldsResult } from './mlds/mlds.js';
import type { PairedResult } from './paired/paired.js';

const list = (names: readonly string[]) => names.join(', ');

/** Paired scales: one observer, disconnected graphs, separated (unanimous) data, non-convergence. `where` names a scene. */
export function pairedWarnings(result: PairedResult, observers: number, where = ''): string[] {
  const warnings: string[] = [];
  const at = where ? ` (${where})` : '';
  if (observers === 1) warnings.push(`Only one observer${at}: no bootstrap CIs and no outlier check are possible; the scale describes that one observer.`);
  if (result.components > 1) {
    warnings.push(
      `The comparison graph${at} has ${result.components} disconnected parts (${result.parts.map((p, i) => `part ${i + 1}: ${list(p)}`).join('; ')}). Scores are comparable only within a part: pwcmp’s bridging ties put the parts on one scale by assumption, not by data. Each part is drawn on its own axis.`,
    );
  }
  for (const { part, groups } of result.separated) {
    const scope = result.components > 1 ? ` in part ${part + 1}` : '';
    warnings.push(
      `Unanimous or separated data${at}${scope}: no vote goes against the order ${groups.map((g) => `{${list(g)}}`).join(' > ')}. The distances between these groups are not identified by the data (the likelihood grows without bound as they move apart): the Thurstone distances there come from pwcmp’s prior and the Bradley–Terry ones from its penalty; only the order is supported.`,
    );
  }
  if (!result.converged) warnings.push(`A scale fit${at} did not converge; the last iterate is reported.`);
  return warnings;
}

/** MLDS: separation (R: "fitted probabilities numerically 0 or 1 occurred") and non-convergence. */
export function mldsWarnings(result: MldsResult): string[] {
  const warnings: string[] = [];
  if (result.separated) {
    warnings.push(
      `Separated responses: some fitted probabilities are numerically 0 or 1 (R's glm warns the same), so the likelihood keeps growing as ψ moves. ${
        result.notIdentified.length > 0 ? `ψ of level${result.notIdentified.length > 1 ? 's' : ''} ${result.notIdentified.join(', ')} ${result.notIdentified.length > 1 ? 'are' : 'is'} not identified (SE > 100): do not read ${result.notIdentified.length > 1 ? 'them' : 'it'}.` : 'Every ψ still has SE ≤ 100.'
      } More trials near the threshold, or fewer extreme ones, identify the scale.`,
    );
  }
  if (!result.converged) warnings.push('The MLDS GLM did not converge; the last iterate is reported.');
  return warnings;
}
