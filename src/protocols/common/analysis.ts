import type { GenericStimulusSpec } from '../../contract/stimulus.js';
import type { AnalysedRating, AnalysisAdapter, CheckRules, RatingAdapter } from '../types.js';
import { choiceChecks } from './checks.js';

/**
 * The analysis adapters the staged protocols share (src/analysis reads their votes). Each undoes what the display
 * did: the stored value is positional (first/left/top 0), so `reversed` decides which media was chosen; the ACR
 * index is turned into the reporting scale.
 */

/** A rating scale: the stimulus is one media, its score on the reporting scale, grouped by its attributes. */
export function ratingAnalysis(stimulusOf: (spec: GenericStimulusSpec) => string, scoreOf: (value: number) => number): RatingAdapter<GenericStimulusSpec> {
  return {
    family: 'rating',
    vote({ spec, value, attributes }) {
      const stimulus = stimulusOf(spec);
      const a = attributes(stimulus);
      return { stimulus, score: scoreOf(value), condition: a.condition ?? null, content: a.content ?? null, isReference: a.reference === true };
    },
  };
}

/** The single media of ACR and acceptability stimuli. */
export const singleSource = (spec: GenericStimulusSpec): string => spec.source ?? spec.sourceA!;

/**
 * A pair comparison: the two options in study order (A, B; a stacked pair of videos counts as one option 'A+B'
 * against 'C+D'), and the one chosen. The value 0 means the option shown first/left, which is B when reversed.
 * The scene is the media's declared `content` (mediaAttributes), so each content is scaled on its own too.
 */
export const pairedAnalysis: AnalysisAdapter<GenericStimulusSpec> = {
  family: 'paired',
  vote({ spec, value, attributes }) {
    const stacked = spec.sourceC !== undefined && spec.sourceD !== undefined;
    const a = stacked ? `${spec.sourceA}+${spec.sourceB}` : spec.sourceA!;
    const b = stacked ? `${spec.sourceC}+${spec.sourceD}` : spec.sourceB!;
    const shownFirst = spec.reversed ? b : a;
    const shownSecond = spec.reversed ? a : b;
    // The scene is the declared content of the media compared (pwcmp's `scene`); sourceA's when they differ.
    const scene = attributes(spec.sourceA!).content ?? attributes((spec.sourceC ?? spec.sourceB)!).content ?? null;
    return { a, b, winner: value === 0 ? shownFirst : shownSecond, scene };
  },
};

/** Gold and trap answers of a pair name the side that should win: 'A' (sourceA) or 'B', whatever the display order. */
export const pairedChecks: CheckRules<GenericStimulusSpec> = choiceChecks(['A', 'B'], (answer) => {
  const vote = pairedAnalysis.vote(answer) as { a: string; winner: string };
  return vote.winner === vote.a ? 'A' : 'B';
});

/** The numeric level of a media (MLDS, triplets): declared in the study's mediaAttributes. */
export function levelOf(answer: AnalysedRating<GenericStimulusSpec>, path: string): number {
  const level = answer.attributes(path).level;
  if (level === undefined) throw new Error(`media ${path} has no level: declare mediaAttributes["${path}"].level in the study file to scale it`);
  return level;
}
