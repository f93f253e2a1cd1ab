import { CompiledQuery, sql, type RawBuilder } from 'kysely';
import { conflict, forbidden, notFound } from '../errors.js';
import { findSessionById, tokenMatches } from './sessions.js';
import { nowIso, type Db, type DialectName, type Storage } from './types.js';

/** 201 for a new row, 200 when the post replays one already stored (same key, same content). */
export interface AnswerOutcome {
  status: 200 | 201;
  body: { id: number; stimuli_id: number; session_id: number };
}

/** Who posts the answer: the session, its token, and the stimulus answered. */
export interface AnswerTarget {
  sessionId: number;
  token: string;
  stimulusId: number;
  /** "k:{Idempotency-Key}" or "n:{natural key}" (dedupeKey()). */
  dedupeKey: string;
  keyed: boolean;
}

/**
 * dedupe_key: with an Idempotency-Key header, one row per (session, key) so a retry never stores twice;
 * without it, the natural key (session, stimulus[, screening_no]).
 */
export function dedupeKey(idempotencyKey: string | undefined, natural: string): string {
  return idempotencyKey ? `k:${idempotencyKey}` : `n:${natural}`;
}

export interface RatingInput {
  value: number;
  nbReplay: number;
  logs: string | null;
}
export interface ScreeningInput {
  screeningNo: number;
  /** The mouse_logs object as JSON text. */
  mouseLogs: string;
}

/** The answer's own columns with their SQL types (PostgreSQL reads an untyped INSERT ... SELECT parameter as text). */
type AnswerColumns = Array<[column: string, type: 'integer' | 'double precision' | 'text', value: unknown]>;

const ratingColumns = (r: RatingInput): AnswerColumns => [
  ['value', 'double precision', r.value],
  ['nb_replay', 'integer', r.nbReplay],
  ['logs', 'text', r.logs],
];
const screeningColumns = (s: ScreeningInput): AnswerColumns => [
  ['screening_no', 'integer', s.screeningNo],
  ['mouse_logs', 'text', s.mouseLogs],
];

export const storeRating = (storage: Storage, target: AnswerTarget, rating: RatingInput) =>
  storeAnswer(storage, 'ratings', target, ratingColumns(rating), (row) => row.value === rating.value && row.nb_replay === rating.nbReplay && row.logs === rating.logs);

export const storeScreening = (storage: Storage, target: AnswerTarget, screening: ScreeningInput) =>
  storeAnswer(storage, 'screenings', target, screeningColumns(screening), (row) => row.screening_no === screening.screeningNo && row.mouse_logs === screening.mouseLogs);

/**
 * Stores an answer, acknowledged after commit. The common case is ONE statement: an INSERT ... SELECT that only
 * yields a row when the session exists, the token is its token, the stimulus belongs to its playlist and it is
 * not completed, and that skips a taken (session, dedupe_key). When it stores nothing, the reason is looked up:
 * 404 unknown session or stimulus, 403 foreign token, 200 replay of the same answer, 409 otherwise.
 */
async function storeAnswer(
  storage: Storage,
  table: 'ratings' | 'screenings',
  target: AnswerTarget,
  columns: AnswerColumns,
  sameContent: (stored: Record<string, unknown>) => boolean,
): Promise<AnswerOutcome> {
  const answer = (status: 200 | 201, id: number): AnswerOutcome => ({
    status,
    body: { id, stimuli_id: target.stimulusId, session_id: target.sessionId },
  });
  const inserted = await storage.write((trx) => insertIfAllowed(trx, storage.dialect, table, target, columns), { singleStatement: true });
  if (inserted) return answer(201, inserted.id);

  const session = await findSessionById(storage.db, target.sessionId);
  if (!session) throw notFound(`no session ${target.sessionId}`);
  if (!tokenMatches(session, target.token)) throw forbidden('session_token does not belong to this session');
  const stimulus = await storage.db
    .selectFrom('stimuli')
    .select('id')
    .where('id', '=', target.stimulusId)
    .where('playlist_id', '=', session.playlist_id)
    .executeTakeFirst();
  if (!stimulus) throw notFound(`stimulus ${target.stimulusId} is not in this session's playlist`);
  const stored = (await storage.db
    .selectFrom(table)
    .selectAll()
    .where('session_id', '=', target.sessionId)
    .where('dedupe_key', '=', target.dedupeKey)
    .executeTakeFirst()) as (Record<string, unknown> & { id: number; stimulus_id: number }) | undefined;
  if (stored) {
    if (stored.stimulus_id === target.stimulusId && sameContent(stored)) return answer(200, stored.id);
    throw target.keyed
      ? conflict('IDEMPOTENCY_CONFLICT', 'this Idempotency-Key was already used for a different answer')
      : conflict('DUPLICATE', `an answer for stimulus ${target.stimulusId} is already stored for this session`);
  }
  if (session.completed_at !== null) throw conflict('SESSION_COMPLETED', 'this session is completed and takes no more answers');
  throw new Error(`answer of session ${target.sessionId} neither stored nor found`);
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
  const parameters = [target.dedupeKey, nowIso(), ...columns.map(([, , value]) => value), target.sessionId, target.token, target.stimulusId];
  const cacheKey = `${dialect}:${table}`;
  let text = compiledInserts.get(cacheKey);
  if (text === undefined) {
    const [dedupe, createdAt, ...rest] = parameters.map((value) => sql.val(value));
    const values = rest.slice(0, columns.length);
    const [sessionId, token, stimulusId] = rest.slice(columns.length);
    const cast = (value: RawBuilder<unknown>, type: string) => sql`cast(${value} as ${sql.raw(type)})`;
    const compiled = sql`
      insert into ${sql.table(table)} (session_id, stimulus_id, dedupe_key, created_at, ${sql.join(columns.map(([name]) => sql.ref(name)))})
      select s.id, st.id, ${cast(dedupe, 'text')}, ${cast(createdAt, 'text')}, ${sql.join(columns.map(([, type], i) => cast(values[i], type)))}
      from sessions s join stimuli st on st.playlist_id = s.playlist_id
      where s.id = ${sessionId} and s.token = ${token} and s.completed_at is null and st.id = ${stimulusId}
      on conflict (session_id, dedupe_key) do nothing
      returning id`.compile(trx);
    text = compiled.sql;
    compiledInserts.set(cacheKey, text);
  }
  const { rows } = await trx.executeQuery<{ id: number }>(CompiledQuery.raw(text, parameters));
  return rows[0];
}
