import type { Generated, Kysely, Selectable } from 'kysely';

/**
 * Table shapes, identical on SQLite and PostgreSQL.
 * Conventions (both dialects): timestamps are ISO-8601 UTC text (`new Date().toISOString()`), booleans are
 * integers 0/1, JSON documents are text. Identity data (platform ids, consent forms) lives in its own tables,
 * apart from ratings.
 */
export interface JobsTable {
  id: string;
  protocol: string;
  /** JobFields as JSON text. */
  fields: string;
  /** The study file's `quality` (StudyQuality) as JSON text; null when it declares none (defaults apply). */
  quality: string | null;
  /** The study file it was imported from (real path); null for jobs imported before migration 007. */
  source: string | null;
  /** Who may start a session (docs/console.md): draft (imported from the console, not yet opened), open, paused, closed. */
  status: Generated<JobStatus>;
  created_at: string;
  updated_at: string;
  /** When the study's precision rule (quality.stopWhen) closed it to new participants; null until then (migration 022). */
  precision_reached_at: Generated<string | null>;
  /** The study's `design` (JSON); null for a fixed design (migration 023). */
  design: Generated<string | null>;
}

export interface PlaylistsTable {
  id: Generated<number>;
  job_id: string;
  /** Index of the playlist in the study file (stable across re-imports); negative for a participant's own playlist. */
  position: number;
  /** 1: made at arrival for one participant of an adaptive design (migration 023), not a playlist of the study file. */
  adaptive: Generated<number>;
}

export interface StimuliTable {
  id: Generated<number>;
  playlist_id: number;
  is_training: number;
  /** Index within the playlist's stimuli (or training) list. */
  position: number;
  /** The study-file stimulus as canonical JSON (keys sorted), sources relative to the media folder. */
  spec: string;
}

export interface BchecksTable {
  id: Generated<number>;
  b_name: string;
  b_version: string;
  b_os: string;
  screen_size: string;
  created_at: string;
}

export interface SessionsTable {
  id: Generated<number>;
  job_id: string;
  playlist_id: number;
  token: string;
  platform: string;
  bcheck_id: number | null;
  /** Bubble free task (ft=1): completion needs a mouse log per stimulus instead of a rating. */
  free_task: number;
  created_at: string;
  completed_at: string | null;
  verification_code: string | null;
  /** The last interaction-log state the session sent, {state, status} as JSON (written with its log). */
  log_phase: string | null;
  /** 1: a researcher's preview (docs/console.md), kept out of balancing, statistics and exports. */
  preview: Generated<number>;
  /** A preview session takes answers until then: its link's expiry (null: not a preview, or from before 021). */
  preview_until: Generated<string | null>;
}

/** Who the participant is on their platform; kept apart from the answers. */
export interface SessionIdentitiesTable {
  session_id: number;
  /** "{platform}:{id}" used to refuse a second completion of the same job; null when anonymous. */
  participant_key: string | null;
  worker_id: string | null;
  assignment_id: string | null;
  hit_id: string | null;
  turk_submit_to: string | null;
  prolific_pid: string | null;
  study_id: string | null;
  prolific_session_id: string | null;
  email: string | null;
}

export interface RatingsTable {
  id: Generated<number>;
  session_id: number;
  stimulus_id: number;
  /**
   * The presentation this answers, unique per session: "p:{stimulus_id}" (one answer per stimulus) or
   * "p:{stimulus_id}:{play}" (bubble: one per repetition). Rows stored before migration 006 have "k:{key}" or
   * "n:{stimulus_id}".
   */
  dedupe_key: string;
  /** The client's Idempotency-Key (a retry of the same post carries it again); null without the header. */
  idempotency_key: string | null;
  value: number;
  nb_replay: number;
  logs: string | null;
  /** TimingEnvelope as JSON text (contract/payloads.ts); null when the post carried none. */
  timing: string | null;
  /** ViewsRecord as JSON text (the camera poses of a 3D stimulus, contract/payloads.ts); null when none were posted. */
  views: string | null;
  created_at: string;
}

export interface ScreeningsTable {
  id: Generated<number>;
  session_id: number;
  stimulus_id: number;
  screening_no: number;
  /** The presentation: "p:{stimulus_id}:{screening_no}", unique per session (older rows: "k:..." or "n:..."). */
  dedupe_key: string;
  idempotency_key: string | null;
  /** {mediaA, mediaB} sample lists as JSON text; empty when they are stored in pages. */
  mouse_logs: string;
  /** The key of its pages in mouse_log_pages (a log over one page), else null. */
  log_key: string | null;
  /** Its size in UTF-8 bytes (null for logs stored before migration 016: octet_length(mouse_logs)). */
  bytes: number | null;
  /** TimingEnvelope of the play, as JSON text; null when the post carried none. */
  timing: string | null;
  created_at: string;
}

export interface SessionLogsTable {
  id: Generated<number>;
  session_id: number;
  /** The whole session-logs payload (without the token) as JSON text; empty when it is stored in pages. */
  body: string;
  /** The key of its pages in session_log_pages (a log over one page), else null. */
  log_key: string | null;
  /** Its size in UTF-8 bytes (null for logs stored before migration 015: octet_length(body)). */
  bytes: number | null;
  /** The post's states reduced to what the visual-test verdict reads (body/log-summary.mjs). */
  state_classes: string | null;
  created_at: string;
}

/**
 * A large session log or mouse log, a page at a time (storage/text-pages.ts); visible only through the row that
 * names its key (session_logs, screenings).
 */
export interface LogPagesTable {
  id: Generated<number>;
  session_id: number;
  log_key: string;
  page_no: number;
  /** At most LOG_PAGE_BYTES of the log's JSON text, cut between characters. */
  text: string;
  created_at: string;
}

export interface ConsentsTable {
  id: Generated<number>;
  email: string;
  paraphe: string;
  gender: string;
  name: string;
  family_name: string;
  birth_country: string;
  birth_day: string;
  /** currentDate of the form as YYYY-MM-DD. */
  signed_on: string;
  created_at: string;
}

/**
 * Tombstone of a completed session deleted on the participant's request (`cli withdraw`): no answer, no platform id,
 * only SHA-256 digests that let the server refuse a retake of the job (participant key) and let the lab tell a
 * participant who writes again that the deletion was done (verification code). `cli purge-identities` deletes it.
 */
export interface WithdrawalsTable {
  id: Generated<number>;
  job_id: string;
  /** withdrawalDigest(participant_key) of the deleted session; null when it was anonymous or already purged. */
  participant_hash: string | null;
  /** withdrawalDigest(verification_code). */
  code_hash: string | null;
  /** created_at of the deleted session (purge-identities --before selects on it). */
  session_started_at: string;
  withdrawn_at: string;
}

/** A media file of a job as imported (path relative to the study's media folder). */
export interface JobMediaTable {
  job_id: string;
  path: string;
  /** Size in bytes (bigint on PostgreSQL: read back with Number()). */
  bytes: number | string;
  /** MediaAttributes (contract/study.ts) as JSON text; null when none were declared. */
  attributes: string | null;
  /** Bytes a browser loads to show it when more than the file (a .gltf with its side files); null: `bytes`. */
  load_bytes: number | string | null;
}

/** The quality verdict of a session (src/quality/rules.ts): its latest evaluation. */
export interface SessionVerdictsTable {
  session_id: number;
  job_id: string;
  /** Payment: 1 approved, 0 rejected (only payment rules reject; docs/quality.md). */
  accepted: number;
  /** Analysis: 1 included, 0 excluded (any failed rule, technical ones too). */
  included: number;
  /** RuleOutcome[] as JSON text: every rule with its status and what was measured. */
  outcomes: string;
  evaluated_at: string;
}

/**
 * Every platform id a session came with (PROLIFIC_PID, workerId, lab e-mail), normalised and hashed
 * (participant-ids.ts): one row per id and job, so a second tab, a reload or another spelling of the same id finds
 * the same session. Deleted with the session, and by `purge-identities`.
 */
export interface SessionParticipantsTable {
  job_id: string;
  participant_hash: string;
  session_id: number;
}

/** Per job: how many included sessions the score sums hold. */
export interface AcceptedSessionsTable {
  job_id: string;
  sessions: number;
  /** 1: rebuild the sums before reading them (a withdrawal deleted sessions they counted). */
  stale: Generated<number>;
}

/** Per job and analysis stimulus: the sum and count of the included sessions' ordinary scores (the MOS's terms). */
export interface AcceptedScoreSumsTable {
  job_id: string;
  stimulus: string;
  score_sum: number;
  /** The sum of the scores' squares: a stimulus's interval (stopping for precision, migration 022). */
  score_squares: Generated<number>;
  ratings: number;
}

/** Per job and pair of an adaptive design: comparisons handed out to participants, and those judged since (migration 023). */
export interface AdaptivePendingTable {
  job_id: string;
  /** adaptive/design.ts pairKey. */
  pair: string;
  assigned: Generated<number>;
  judged: Generated<number>;
}

/** Per job: uncompleted sessions created up to swept_until are no longer counted as running (their lease ended). */
export interface JobLoadsTable {
  job_id: string;
  swept_until: string;
}

/** Per playlist: the balancing counts (storage/playlist-loads.ts). */
export interface PlaylistLoadsTable {
  playlist_id: number;
  job_id: string;
  /** Sessions ever created (not previews): the tie-break. */
  sessions: number;
  /** Completed sessions not excluded by quality control (a session without a verdict counts). */
  included: number;
  /** Uncompleted sessions within the lease. */
  running: number;
}

export type JobStatus = 'draft' | 'open' | 'paused' | 'closed';

/**
 * A participant link opened (docs/data-safety.md "Participant continuity"): the visit call of a page whose visitor is
 * new. It holds no playlist slot and no lease; `started_at` is set when the visitor passes eligibility and their
 * session starts. No platform id, no link to the session: the console only counts the visits never started.
 */
export interface VisitsTable {
  id: Generated<number>;
  job_id: string;
  /** 128 random bits, base64url: the page sends it back with the playlist call that starts its session. */
  token: string;
  platform: string;
  created_at: string;
  started_at: string | null;
}

/** A researcher's account of the console; the password only as a scrypt hash (console/passwords.ts). */
export interface UsersTable {
  id: Generated<number>;
  /** Lower case. */
  email: string;
  password_hash: string;
  /** 1: owner of every job (the first account). */
  admin: number;
  /** Unused since migration 010 (sign_in_attempts counts failed sign-ins). */
  failed_logins: number;
  /** Unused since migration 010. */
  locked_until: string | null;
  created_at: string;
  /** 1: may upload new studies in the console (`cli user grant EMAIL creator`); administrators always may. */
  creates_studies: Generated<number>;
}

/** A signed-in console session: the cookie's token only as its SHA-256, and the CSRF token of its changes. */
export interface ConsoleSessionsTable {
  token_hash: string;
  user_id: number;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

/**
 * Sign-in attempts, counted before the password is checked (storage/sign-in-attempts.ts). The key is a SHA-256 of
 * "acct:{email}\n{address}" or "acct:{email}" (no e-mail or address stored in clear).
 */
export interface SignInAttemptsTable {
  key_hash: string;
  /** Attempts counted since the window began. */
  attempts: number;
  /** The last counted attempt before the limit; the lock lasts from here. */
  last_at: string;
}

/**
 * A browser that signed in to an account before (its device cookie's SHA-256): its sign-ins are counted on their own,
 * never refused for what other addresses sent (storage/sign-in-attempts.ts).
 */
export interface KnownBrowsersTable {
  token_hash: string;
  user_id: number;
  last_sign_in_at: string;
}

/** A preview link of a job (the token's SHA-256), valid until expires_at. */
export interface PreviewLinksTable {
  token_hash: string;
  job_id: string;
  user_id: number;
  expires_at: string;
}

/** owner: everything; viewer: reads, without platform ids. */
export interface JobRolesTable {
  job_id: string;
  user_id: number;
  role: 'owner' | 'viewer';
}

export interface Database {
  jobs: JobsTable;
  playlists: PlaylistsTable;
  stimuli: StimuliTable;
  bchecks: BchecksTable;
  sessions: SessionsTable;
  session_identities: SessionIdentitiesTable;
  ratings: RatingsTable;
  screenings: ScreeningsTable;
  session_logs: SessionLogsTable;
  session_log_pages: LogPagesTable;
  mouse_log_pages: LogPagesTable;
  consents: ConsentsTable;
  withdrawals: WithdrawalsTable;
  job_media: JobMediaTable;
  session_verdicts: SessionVerdictsTable;
  session_participants: SessionParticipantsTable;
  users: UsersTable;
  console_sessions: ConsoleSessionsTable;
  job_roles: JobRolesTable;
  sign_in_attempts: SignInAttemptsTable;
  known_browsers: KnownBrowsersTable;
  preview_links: PreviewLinksTable;
  accepted_sessions: AcceptedSessionsTable;
  accepted_score_sums: AcceptedScoreSumsTable;
  adaptive_pending: AdaptivePendingTable;
  job_loads: JobLoadsTable;
  playlist_loads: PlaylistLoadsTable;
  visits: VisitsTable;
}

export type Db = Kysely<Database>;
export type DialectName = 'sqlite' | 'postgres';

export type SessionRow = Selectable<SessionsTable>;

export interface WriteOptions {
  singleStatement?: boolean;
}

/** The one storage interface the server, CLI and tests use, whatever the dialect. */
export interface Storage {
  /** Kysely instance (tests may query it to assert stored values). */
  readonly db: Db;
  readonly dialect: DialectName;
  /**
   * Runs `work` inside a write transaction and resolves once it is committed. On SQLite, writes that arrive
   * together share one commit (group commit); each still runs in its own savepoint, so one failing write
   * does not undo the others. `singleStatement`: the work makes at most one change, which is atomic by itself,
   * so no savepoint (SQLite) nor explicit transaction (PostgreSQL autocommit) is needed: the hot path of ratings.
   * `work` must use only `trx` (on SQLite, `db` waits for the connection that the batch holds).
   */
  write<T>(work: (trx: Db) => Promise<T>, opts?: WriteOptions): Promise<T>;
  close(): Promise<void>;
}

export const nowIso = (): string => new Date().toISOString();
