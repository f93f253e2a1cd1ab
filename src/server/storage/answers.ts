import { CompiledQuery, sql, type RawBuilder } from 'kysely';
import { conflict, forbidden, HttpError, notFound } from '../errors.js';
import { AnswerBatcher, type AnswerColumns } from './answer-batch.js';
import { findSessionById, tokenMatches } from './sessions.js';
import { LOG_PAGE_BYTES, pagedText, storeInPages } from './text-pages.js';
import { nowIso, type Db, type DialectName, type Storage } from './types.js';

/** 201 for a new row, 200 when the post replays the one already stored (same key, same content). */
export interface AnswerOutcome {
  status: 200 | 201;
  body: { id: number; stimuli_id: number; session_id: number };
}

/** Who posts the answer: the session, its token, and the presentation answered. */
export interface AnswerTarget {
  sessionId: number;
  token: string;
  stimulusId: number;
  /** The presentation (presentationKey()): one answer each, whatever key the post carries. */
  dedupeKey: string;
  /** The client's Idempotency-Key; null without the header. */
  idempotencyKey: string | null;
}

/**
 * dedupe_key: the presentation answered, unique per session. A rating answers its stimulus ("p:{stimulus}"), or
 * in bubble one play of it ("p:{stimulus}:{play}"); a bubble screening one play ("p:{stimulus}:{screening_no}").
 * A fresh Idempotency-Key therefore cannot add a second answer to the same presentation.
 */
export function presentationKey(stimulusId: number, play: number | null): string {
  return play === null ? `p:${stimulusId}` : `p:${stimulusId}:${play}`;
}

export interface RatingInput {
  value: number;
  nbReplay: number;
  logs: string | null;
  /** The timing envelope as JSON text. */
  timing: string | null;
  /** The camera poses of a 3D stimulus (ViewsRecord) as JSON text; null for images and videos. */
  views: string | null;
}
export interface ScreeningInput {
  screeningNo: number;
  /**
   * The mouse_logs object as JSON text in UTF-8, as the JSON worker hands it over: the database casts the bytes to
   * text (decoding megabytes into a string for the driver to encode again would cost the event loop twice).
   */
  mouseLogs: Buffer;
  timing: string | null;
}


const ratingColumns = (r: RatingInput): AnswerColumns => [
  ['idempotency_key', 'text', null],
  ['value', 'double precision', r.value],
  ['nb_replay', 'integer', r.nbReplay],
  ['logs', 'text', r.logs],
  ['timing', 'text', r.timing],
  ['views', 'text', r.views],
];
/** `logKey`: the key of the mouse log's pages (mouse_logs is then empty), null when it is stored in its row. */
const screeningColumns = (s: ScreeningInput, logKey: string | null): AnswerColumns => [
  ['idempotency_key', 'text', null],
  ['screening_no', 'integer', s.screeningNo],
  ['mouse_logs', 'text', logKey === null ? s.mouseLogs : ''],
  ['log_key', 'text', logKey],
  ['bytes', 'integer', s.mouseLogs.length],
  ['timing', 'text', s.timing],
];

/**
 * Per-session write quotas, sized from the playlist (docs/security.md "Quotas"): at most MAX_PLAYS plays of a stimulus
 * are answered (bubble repetitions), and a session's mouse logs total at most MOUSE_LOG_BYTES_PER_STIMULUS per test
 * stimulus. Ratings need no more: one per presentation is enforced by the unique key.
 */
export const ANSWER_QUOTA = { maxPlays: 20, mouseLogBytesPerStimulus: 8 * 1024 * 1024 };

/**
 * Refuses (429 ANSWER_QUOTA) a mouse log past the session's quota. Run inside the transaction that inserts it,
 * after locking the session's row (PostgreSQL; SQLite's writes are serialised): screenings sent at once cannot all
 * read the same total and overrun the quota together.
 */
async function checkScreeningQuota(trx: Db, dialect: DialectName, sessionId: number, screeningNo: number, bytes: number): Promise<void> {
  if (screeningNo >= ANSWER_QUOTA.maxPlays) throw new HttpError(429, 'ANSWER_QUOTA', `a stimulus is played at most ${ANSWER_QUOTA.maxPlays} times`);
  // FOR NO KEY UPDATE: mouse logs of one session still queue on it, but the session's ratings (whose foreign key
  // takes a key-share lock on the row) never wait for a paged log's transaction.
  if (dialect === 'postgres') await trx.selectFrom('sessions').select('id').where('id', '=', sessionId).forNoKeyUpdate().execute();
  const used = await trx
    .selectFrom('screenings')
    // octet_length: the stored size in bytes (SQLite's length() of text counts characters, reading every log).
    // The stored size: `bytes` (paged logs have an empty mouse_logs), else octet_length (SQLite's length() of text
    // counts characters: it reads every earlier log).
    .select((eb) => eb.fn.sum(eb.fn.coalesce('bytes', eb.fn('octet_length', ['mouse_logs']))).as('bytes'))
    .where('session_id', '=', sessionId)
    .executeTakeFirstOrThrow();
  const stimuli = await trx
    .selectFrom('stimuli as st')
    .innerJoin('sessions as s', 's.playlist_id', 'st.playlist_id')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('s.id', '=', sessionId)
    .where('st.is_training', '=', 0)
    .executeTakeFirstOrThrow();
  const budget = Number(stimuli.n) * ANSWER_QUOTA.mouseLogBytesPerStimulus;
  if (Number(used.bytes ?? 0) + bytes > budget) {
    throw new HttpError(429, 'ANSWER_QUOTA', `this session's mouse logs would pass their quota of ${budget} bytes (${ANSWER_QUOTA.mouseLogBytesPerStimulus} per stimulus)`);
  }
}

export const storeRating = (storage: Storage, target: AnswerTarget, rating: RatingInput) =>
  storeAnswer(storage, 'ratings', target, ratingColumns(rating), null, (row) => row.value === rating.value && row.nb_replay === rating.nbReplay && row.logs === rating.logs && row.timing === rating.timing && row.views === rating.views, (row) => ({
    value: row.value,
    nbReplay: row.nb_replay,
  }));

/**
 * A mouse log over LOG_PAGE_BYTES is stored in pages (mouse_log_pages, storage/text-pages.ts), as a large session
 * log is: one SQLite insert of 8 MB held the event loop for 200-400 ms. Its screenings row names the pages and is
 * written by the transaction that checks the quota, so the log is acknowledged only once whole.
 */
export const storeScreening = (storage: Storage, target: AnswerTarget, screening: ScreeningInput) => {
  const bytes = screening.mouseLogs.length;
  const quota = (trx: Db) => checkScreeningQuota(trx, storage.dialect, target.sessionId, screening.screeningNo, bytes);
  const insert: AnswerInsert =
    bytes <= LOG_PAGE_BYTES
      ? (columns) => storage.write(async (trx) => (await quota(trx), insertIfAllowed(trx, storage.dialect, 'screenings', target, columns)))
      : (columns) => insertPaged(storage, target, screening, columns, quota);
  return storeAnswer(
    storage,
    'screenings',
    target,
    screeningColumns(screening, null),
    insert,
    async (row) =>
      row.screening_no === screening.screeningNo &&
      row.timing === screening.timing &&
      (typeof row.log_key === 'string' ? await pagedText(storage.db, 'mouse_log_pages', row.log_key) : row.mouse_logs) === screening.mouseLogs.toString('utf8'),
    (row) => ({ screening_no: row.screening_no }),
  );
};

/** The paged insert did not store the row (already answered, completed...): its pages go, and storeAnswer says why. */
class NotStored extends Error {}

async function insertPaged(storage: Storage, target: AnswerTarget, screening: ScreeningInput, columns: AnswerColumns, quota: (trx: Db) => Promise<void>) {
  // Refused before its turn and its pages when the presentation has its answer already or the session is past its
  // quota (both checked again at commit).
  const answered = await storage.db.selectFrom('screenings').select('id').where('session_id', '=', target.sessionId).where('dedupe_key', '=', target.dedupeKey).executeTakeFirst();
  if (answered) return undefined;
  await quota(storage.db);
  try {
    return await storeInPages(storage, 'mouse_log_pages', target.sessionId, screening.mouseLogs, quota, async (trx, { logKey }) => {
      await quota(trx);
      const keyed = columns.map((c): AnswerColumns[number] => (c[0] === 'log_key' ? [c[0], c[1], logKey] : c[0] === 'mouse_logs' ? [c[0], c[1], ''] : c));
      const row = await insertIfAllowed(trx, storage.dialect, 'screenings', target, keyed);
      if (!row) throw new NotStored();
      return row;
    });
  } catch (error) {
    if (error instanceof NotStored) return undefined;
    throw error;
  }
}

/** How an answer's row is inserted; undefined when the statement stored nothing (storeAnswer then says why). */
type AnswerInsert = (columns: AnswerColumns) => Promise<{ id: number } | undefined>;

/**
 * Stores an answer, acknowledged after commit. The common case is ONE statement: an INSERT ... SELECT that only
 * yields a row when the session exists, the token is its token, the stimulus is a test stimulus of its playlist
 * and it is not completed, and that skips a presentation already answered. When it stores nothing, the reason is
 * looked up: 404 unknown session or stimulus, 403 foreign token, 409 TRAINING_STIMULUS, 200 replay of the same
 * post, 409 ALREADY_ANSWERED with the stored answer (the first answer counts; the client takes it as saved), 409
 * SESSION_COMPLETED.
 */
async function storeAnswer(
  storage: Storage,
  table: 'ratings' | 'screenings',
  target: AnswerTarget,
  columns: AnswerColumns,
  /** How the row is inserted (a quota checked first, pages); null: the one-statement insert (batched on PostgreSQL). */
  insert: AnswerInsert | null,
  sameContent: (stored: Record<string, unknown>) => boolean | Promise<boolean>,
  describe: (stored: Record<string, unknown>) => Record<string, unknown>,
): Promise<AnswerOutcome> {
  columns = columns.map((c): AnswerColumns[number] => (c[0] === 'idempotency_key' ? [c[0], c[1], target.idempotencyKey] : c));
  const answer = (status: 200 | 201, id: number): AnswerOutcome => ({
    status,
    body: { id, stimuli_id: target.stimulusId, session_id: target.sessionId },
  });
  // PostgreSQL: the ratings of one event-loop turn share one statement and one commit (answer-batch.ts); SQLite's
  // writes share their commit already (group-commit.ts). Screenings (their quota is checked in their transaction)
  // go alone.
  const inserted = insert
    ? await insert(columns)
    : storage.dialect === 'postgres'
      ? await batcherOf(storage).insert(table, { sessionId: target.sessionId, token: target.token, stimulusId: target.stimulusId, dedupeKey: target.dedupeKey, createdAt: nowIso(), columns })
      : await storage.write((trx) => insertIfAllowed(trx, storage.dialect, table, target, columns), { singleStatement: true });
  if (inserted) return answer(201, inserted.id);

  const session = await findSessionById(storage, target.sessionId);
  if (!session) throw notFound(`no session ${target.sessionId}`);
  if (!tokenMatches(session, target.token)) throw forbidden('session_token does not belong to this session');
  const stimulus = await storage.db
    .selectFrom('stimuli')
    .select(['id', 'is_training'])
    .where('id', '=', target.stimulusId)
    .where('playlist_id', '=', session.playlist_id)
    .executeTakeFirst();
  if (!stimulus) throw notFound(`stimulus ${target.stimulusId} is not in this session's playlist`);
  if (stimulus.is_training === 1) throw conflict('TRAINING_STIMULUS', `stimulus ${target.stimulusId} is a training example: training answers are not stored`);
  const stored = (await storage.db
    .selectFrom(table)
    .selectAll()
    .where('session_id', '=', target.sessionId)
    .where('dedupe_key', '=', target.dedupeKey)
    .executeTakeFirst()) as (Record<string, unknown> & { id: number; stimulus_id: number; idempotency_key: string | null }) | undefined;
  if (stored) {
    if (stored.idempotency_key === target.idempotencyKey && (await sameContent(stored))) return answer(200, stored.id);
    throw conflict('ALREADY_ANSWERED', `this presentation of stimulus ${target.stimulusId} already has its answer; the first one counts`, {
      answer: { id: stored.id, stimuli_id: target.stimulusId, session_id: target.sessionId, ...describe(stored) },
    });
  }
  if (session.completed_at !== null) throw conflict('SESSION_COMPLETED', 'this session is completed and takes no more answers');
  if (session.preview_until !== null && session.preview_until <= nowIso()) {
    throw new HttpError(403, 'PREVIEW_EXPIRED', 'this preview session ended with its link: ask the console for a new one');
  }
  throw new Error(`answer of session ${target.sessionId} neither stored nor found`);
}

const batchers = new WeakMap<Storage, AnswerBatcher>();

function batcherOf(storage: Storage): AnswerBatcher {
  let batcher = batchers.get(storage);
  if (!batcher) {
    batcher = new AnswerBatcher(storage.db, (table, a) =>
      storage.write((trx) => insertIfAllowed(trx, storage.dialect, table, { ...a, idempotencyKey: null }, a.columns), { singleStatement: true }),
    );
    batchers.set(storage, batcher);
  }
  return batcher;
}

/**
 * The hot path of every rating. Its SQL text depends only on the dialect and the table, so it is compiled by
 * Kysely once and then executed with fresh parameters: building and compiling the query on every call was most
 * of the server's CPU per rating in bench/api. Portable SQL (SQLite >= 3.35 and PostgreSQL):
 * INSERT ... SELECT ... ON CONFLICT DO NOTHING RETURNING.
 */
const compiledInserts = new Map<string, string>();

async function insertIfAllowed(trx: Db, dialect: DialectName, table: 'ratings' | 'screenings', target: AnswerTarget, columns: AnswerColumns) {
  // Parameters in the order the statement uses them.
  const now = nowIso();
  // The last one: the time a preview session must not have reached (its link's expiry).
  const parameters = [target.dedupeKey, now, ...columns.map(([, , value]) => value), target.sessionId, target.token, target.stimulusId, now];
  const cacheKey = `${dialect}:${table}`;
  let text = compiledInserts.get(cacheKey);
  if (text === undefined) {
    const [dedupe, createdAt, ...rest] = parameters.map((value) => sql.val(value));
    const values = rest.slice(0, columns.length);
    const [sessionId, token, stimulusId, previewNow] = rest.slice(columns.length);
    const cast = (value: RawBuilder<unknown>, type: string) => sql`cast(${value} as ${sql.raw(type)})`;
    const compiled = sql`
      insert into ${sql.table(table)} (session_id, stimulus_id, dedupe_key, created_at, ${sql.join(columns.map(([name]) => sql.ref(name)))})
      select s.id, st.id, ${cast(dedupe, 'text')}, ${cast(createdAt, 'text')}, ${sql.join(columns.map(([, type], i) => cast(values[i], type)))}
      from sessions s join stimuli st on st.playlist_id = s.playlist_id
      where s.id = ${sessionId} and s.token = ${token} and s.completed_at is null and st.id = ${stimulusId} and st.is_training = 0
        and (s.preview_until is null or s.preview_until > ${cast(previewNow, 'text')})
      on conflict (session_id, dedupe_key) do nothing
      returning id`.compile(trx);
    text = compiled.sql;
    compiledInserts.set(cacheKey, text);
  }
  const { rows } = await trx.executeQuery<{ id: number }>(CompiledQuery.raw(text, parameters));
  return rows[0];
}
