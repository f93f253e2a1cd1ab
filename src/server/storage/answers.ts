import { conflict, forbidden, notFound } from '../errors.js';
import { findSessionById, tokenMatches } from './sessions.js';
import { nowIso, type SessionRow, type Storage } from './types.js';

/** 201 for a new row, 200 when the post replays one already stored (same key, same content). */
export interface AnswerOutcome {
  status: 200 | 201;
  body: { id: number; stimuli_id: number; session_id: number };
}

/**
 * Object-level authorization of an answer: the session exists, the token is that session's, and the stimulus
 * belongs to that session's playlist (test or training list).
 */
export async function authorizeAnswer(storage: Storage, sessionId: number, token: string, stimulusId: number): Promise<SessionRow> {
  const session = await findSessionById(storage.db, sessionId);
  if (!session) throw notFound(`no session ${sessionId}`);
  if (!tokenMatches(session, token)) throw forbidden('session_token does not belong to this session');
  const stimulus = await storage.db
    .selectFrom('stimuli')
    .select('id')
    .where('id', '=', stimulusId)
    .where('playlist_id', '=', session.playlist_id)
    .executeTakeFirst();
  if (!stimulus) throw notFound(`stimulus ${stimulusId} is not in this session's playlist`);
  return session;
}

/**
 * dedupe_key: with an Idempotency-Key header, one row per (session, key) so a retry never stores twice;
 * without it, the natural key (session, stimulus[, screening_no]).
 */
export function dedupeKey(idempotencyKey: string | undefined, natural: string): string {
  return idempotencyKey ? `k:${idempotencyKey}` : `n:${natural}`;
}

interface AnswerTable<Row> {
  table: 'ratings' | 'screenings';
  /** Same logical answer? (compares the stored columns that came from the request) */
  sameContent(stored: Row, incoming: Row): boolean;
}

const RATINGS: AnswerTable<RatingRow> = {
  table: 'ratings',
  sameContent: (a, b) => a.stimulus_id === b.stimulus_id && a.value === b.value && a.nb_replay === b.nb_replay && a.logs === b.logs,
};
const SCREENINGS: AnswerTable<ScreeningRow> = {
  table: 'screenings',
  sameContent: (a, b) => a.stimulus_id === b.stimulus_id && a.screening_no === b.screening_no && a.mouse_logs === b.mouse_logs,
};

export interface RatingRow {
  session_id: number;
  stimulus_id: number;
  dedupe_key: string;
  value: number;
  nb_replay: number;
  logs: string | null;
}
export interface ScreeningRow {
  session_id: number;
  stimulus_id: number;
  screening_no: number;
  dedupe_key: string;
  mouse_logs: string;
}

export const storeRating = (storage: Storage, session: SessionRow, row: RatingRow, keyed: boolean) =>
  storeAnswer(storage, session, RATINGS, row, keyed);
export const storeScreening = (storage: Storage, session: SessionRow, row: ScreeningRow, keyed: boolean) =>
  storeAnswer(storage, session, SCREENINGS, row, keyed);

/**
 * Inserts unless (session, dedupe_key) is taken; a taken key is a replay (200, first body) when the content is the
 * same, else 409. A completed session takes no new answers (its verification code has been given out).
 * Resolves only after the commit.
 */
async function storeAnswer<Row extends RatingRow | ScreeningRow>(
  storage: Storage,
  session: SessionRow,
  kind: AnswerTable<Row>,
  row: Row,
  keyed: boolean,
): Promise<AnswerOutcome> {
  const answer = (status: 200 | 201, id: number): AnswerOutcome => ({
    status,
    body: { id, stimuli_id: row.stimulus_id, session_id: row.session_id },
  });
  return storage.write(async (trx) => {
    if (session.completed_at === null) {
      const inserted = await trx
        .insertInto(kind.table)
        .values({ ...row, created_at: nowIso() } as never)
        .onConflict((oc) => oc.columns(['session_id', 'dedupe_key']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (inserted) return answer(201, inserted.id);
    }
    const stored = (await trx
      .selectFrom(kind.table)
      .selectAll()
      .where('session_id', '=', row.session_id)
      .where('dedupe_key', '=', row.dedupe_key)
      .executeTakeFirst()) as unknown as (Row & { id: number }) | undefined;
    if (!stored) throw conflict('SESSION_COMPLETED', 'this session is completed and takes no more answers');
    if (kind.sameContent(stored, row)) return answer(200, stored.id);
    throw keyed
      ? conflict('IDEMPOTENCY_CONFLICT', 'this Idempotency-Key was already used for a different answer')
      : conflict('DUPLICATE', `an answer for stimulus ${row.stimulus_id} is already stored for this session`);
  });
}
