/** Columns of every export table that describe the session and who took it (identity kept apart in storage). */
export const SESSION_COLUMNS = [
  'job_id',
  'protocol',
  'playlist_id',
  'session_id',
  'platform',
  // 1: a researcher's preview (docs/console.md), in an export only when asked (--include-preview).
  'session_preview',
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
  // Quality control (docs/quality.md): payment (approved, rejected) and analysis (included, excluded)
  // verdicts, empty when not judged; the failed rules in words.
  'session_verdict',
  'session_analysis',
  'session_verdict_reasons',
] as const;

/** The stimulus of an answer: the protocol's flattened columns (protocols/types.ts StimulusColumns), and its spec. */
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
  // A gold, trap or attention-check stimulus: its kind, the answer it expects, and whether this answer met it.
  'check_kind',
  'check_answer',
  'check_passed',
  'stimulus_spec',
] as const;
