import type { Protocol } from '../../contract/protocols.js';

/** Flattened view of a stored study stimulus, for the export (the full spec travels in stimulus_spec too). */
export interface StimulusColumns {
  stimulus_type: string | null;
  source: string | null;
  source_a: string | null;
  source_b: string | null;
  source_c: string | null;
  source_d: string | null;
  reversed: boolean | null;
  reference_value: number | null;
}

export function stimulusColumns(protocol: Protocol, specText: string): StimulusColumns {
  const spec = JSON.parse(specText) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const bubbleSource = (v: unknown) => text((v as { source?: unknown } | undefined)?.source);
  const bubble = protocol === 'bubble';
  return {
    stimulus_type: text(spec.type),
    source: text(spec.source),
    source_a: bubble ? bubbleSource(spec.sourceA) : text(spec.sourceA),
    source_b: bubble ? bubbleSource(spec.sourceB) : text(spec.sourceB),
    source_c: text(spec.sourceC),
    source_d: text(spec.sourceD),
    reversed: bubble || protocol === 'piiface' ? null : spec.reversed === true,
    reference_value: typeof spec.value === 'number' ? spec.value : null,
  };
}

/** Columns of every export table that describe the session and who took it (identity kept apart in storage). */
export const SESSION_COLUMNS = [
  'job_id',
  'protocol',
  'playlist_id',
  'session_id',
  'platform',
  'worker_id',
  'assignment_id',
  'hit_id',
  'prolific_pid',
  'study_id',
  'prolific_session_id',
  'email',
  'bcheck_id',
  'session_started_at',
  'session_completed_at',
] as const;

export const STIMULUS_COLUMNS = [
  'stimulus_id',
  'stimulus_position',
  'is_training',
  'stimulus_type',
  'source',
  'source_a',
  'source_b',
  'source_c',
  'source_d',
  'reversed',
  'reference_value',
  'stimulus_spec',
] as const;
