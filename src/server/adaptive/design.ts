import type { AdaptiveDesignSummary } from '../../analysis/asap/plan.js';
import type { StimulusCheck } from '../../contract/quality.js';
import type { AdaptiveDesign, MediaAttributes, StudyFile } from '../../contract/study.js';
import type { ProtocolDefinition } from '../../protocols/types.js';
import type { ErrorDetail } from '../errors.js';

/**
 * An adaptive pair-comparison job's design (`design.mode: "asap"`, docs/adaptive.md): its contents, each a list of
 * conditions (media files) compared with each other, and the names the analysis gives them. The analysis names an
 * option by its media path and a content by the media's declared `content` (protocols/common/analysis.ts), so the
 * names here are read through the protocol's own `vote`, as every other part of the analysis reads them.
 */

export interface DesignContent {
  /** The analysis's scene: the conditions' declared content (null when the study declares none). */
  scene: string | null;
  /** The conditions' media paths, in the study's order: the indices of the posterior. */
  conditions: string[];
}

/** The design as the report states it. */
export function designSummary(design: AdaptiveDesign): AdaptiveDesignSummary {
  const counts = design.contents.map((c) => c.conditions.length);
  return { mode: 'asap', comparisonsPerParticipant: design.comparisonsPerParticipant, contents: counts.length, conditions: { min: Math.min(...counts), max: Math.max(...counts) } };
}

/** The pair stimulus a participant is shown: the design's shared fields and the two conditions, first and second. */
export function pairSpec(design: AdaptiveDesign, first: string, second: string): Record<string, unknown> {
  return { ...design.pairFields, sourceA: first, sourceB: second };
}

/** Which content and conditions the analysis sees in a pair of this design (the protocol's own vote). */
function voteOf(protocol: ProtocolDefinition, design: AdaptiveDesign, a: string, b: string, attributes: (path: string) => MediaAttributes) {
  const adapter = protocol.analysis;
  if (adapter.family !== 'paired') throw new Error(`${protocol.name} is not a pair comparison protocol`);
  return adapter.vote({ stimulusId: 0, spec: pairSpec(design, a, b), value: 0, attributes });
}

/** The design's contents as the analysis names them. */
export function designContents(protocol: ProtocolDefinition, design: AdaptiveDesign, attributes: (path: string) => MediaAttributes): DesignContent[] {
  return design.contents.map(({ conditions }) => ({ scene: voteOf(protocol, design, conditions[0]!, conditions[1]!, attributes).scene ?? null, conditions: [...conditions] }));
}

/**
 * The key of an unordered pair of one content in the running sums (storage/quality-sums.ts) and the pending counts
 * (storage/adaptive.ts): the scene and both options, the options in code-unit order. A pair answer's score in the
 * sums is 1 when the second of the two (in that order) won.
 */
export function pairKey(scene: string | null | undefined, a: string, b: string): string {
  const [lo, hi] = a < b ? [a, b] : [b, a];
  return JSON.stringify([scene ?? null, lo, hi]);
}

/** The scene and options of a key written by `pairKey`. */
export function parsePairKey(key: string): { scene: string | null; lo: string; hi: string } {
  const [scene, lo, hi] = JSON.parse(key) as [string | null, string, string];
  return { scene, lo, hi };
}

/**
 * What the schema cannot say about a design: it is for pair comparison only; each content's conditions are distinct
 * and share one declared content, different from every other content's; the study's playlist is one list of
 * training and checks (the pairs come from the design); and a per-playlist target has no meaning (each participant
 * has their own playlist). `checkSource` checks a condition's media file as a stimulus's would be.
 */
export async function designProblems(
  study: Pick<StudyFile, 'design' | 'playlists' | 'quality'>,
  protocol: ProtocolDefinition,
  attributes: (path: string) => MediaAttributes,
  checkSource: (source: string) => Promise<string | null>,
): Promise<ErrorDetail[]> {
  const design = study.design;
  const problems: ErrorDetail[] = [];
  if (design?.mode !== 'asap') {
    for (const [p, playlist] of study.playlists.entries()) {
      if (playlist.stimuli.length === 0) problems.push({ path: `$.playlists[${p}].stimuli`, message: 'must NOT have fewer than 1 items' });
    }
    return problems;
  }
  if (protocol.analysis.family !== 'paired' || protocol.stimulus.media(pairSpec(design, 'a.png', 'b.png')).length !== 2) {
    return [{ path: '$.design.mode', message: `"asap" chooses pairs of a pair comparison: ${protocol.name} is a ${protocol.analysis.family} protocol` }];
  }
  if (study.playlists.length !== 1) {
    problems.push({ path: '$.playlists', message: `an "asap" design makes each participant's playlist: the study has one playlist, of training and checks only (it has ${study.playlists.length})` });
  }
  for (const [s, stimulus] of (study.playlists[0]?.stimuli ?? []).entries()) {
    if ((stimulus as { check?: StimulusCheck } | null)?.check === undefined) {
      problems.push({ path: `$.playlists[0].stimuli[${s}]`, message: 'in an "asap" design the playlist holds only gold, trap and attention checks (and training): the compared pairs come from design.contents' });
    }
  }
  if (study.quality?.targetAcceptedPerPlaylist !== undefined) {
    problems.push({ path: '$.quality.targetAcceptedPerPlaylist', message: 'each participant of an "asap" design has a playlist of their own: stop the study with quality.stopWhen, or close it from the console' });
  }
  const scenes = new Map<string, number>();
  for (const [c, { conditions }] of design.contents.entries()) {
    const at = `$.design.contents[${c}].conditions`;
    const seen = new Set<string>();
    for (const [k, source] of conditions.entries()) {
      if (seen.has(source)) problems.push({ path: `${at}[${k}]`, message: `${source} is listed twice in this content` });
      seen.add(source);
      const problem = await checkSource(source);
      if (problem) problems.push({ path: `${at}[${k}]`, message: problem });
    }
    const declared = new Set(conditions.map((source) => attributes(source).content ?? null));
    if (declared.size > 1) {
      problems.push({ path: at, message: `the conditions of one content must declare the same mediaAttributes content (found ${[...declared].map((d) => JSON.stringify(d)).join(', ')})` });
      continue;
    }
    const scene = String([...declared][0] ?? null);
    if (scenes.has(scene)) problems.push({ path: at, message: `content ${scene} is also $.design.contents[${scenes.get(scene)}]: declare a different mediaAttributes content for each` });
    scenes.set(scene, c);
  }
  const probe = design.contents[0]!.conditions;
  problems.push(...(protocol.stimulus.problems?.(pairSpec(design, probe[0]!, probe[1]!), protocol.name) ?? []).map(([field, message]) => ({ path: `$.design.pairFields${field ? `.${field}` : ''}`, message })));
  return problems;
}
