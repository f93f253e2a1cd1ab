import type { LogStateSummary } from '../body/log-summary.mjs';
import type { BcheckBody, ConsentBody } from '../../contract/payloads.js';
import { HttpError } from '../errors.js';
import { nowIso, type SessionRow, type Storage } from './types.js';

/** The small records a participant's page posts outside answers: browser checks, session logs, lab consent forms. */

export async function storeBcheck(storage: Storage, body: BcheckBody): Promise<number> {
  const { id } = await storage.write((trx) => trx.insertInto('bchecks').values({ ...body, created_at: nowIso() }).returning('id').executeTakeFirstOrThrow());
  return id;
}

export async function bcheckExists(storage: Storage, id: number): Promise<boolean> {
  return (await storage.db.selectFrom('bchecks').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** What one session may store as interaction logs (README "Limits"): the page posts once or twice per load. */
export const SESSION_LOGS_QUOTA = { posts: 100, bytes: 32 * 1024 * 1024, afterCompletionMs: 60 * 60 * 1000 };

/**
 * One session-logs post, stored as one JSON document (the payload without its token, as JSON text). Quotas: a
 * session stores at most 100 posts and 32 MiB of logs, and after its completion only for an hour (the end screen's
 * and the closing page's logs come then); past them, 429 LOGS_QUOTA and nothing stored.
 */
export async function storeSessionLogs(storage: Storage, session: SessionRow, logsJson: string, summary: LogStateSummary): Promise<number> {
  if (session.completed_at && Date.now() - Date.parse(session.completed_at) > SESSION_LOGS_QUOTA.afterCompletionMs) {
    throw new HttpError(429, 'LOGS_QUOTA', 'this session was completed over an hour ago and takes no more logs');
  }
  // Counted in the transaction that writes, after locking the session's row (PostgreSQL; SQLite's writes are
  // serialised): posts sent at once cannot all read the same count and overrun the quota.
  const { id } = await storage.write(async (trx) => {
    if (storage.dialect === 'postgres') await trx.selectFrom('sessions').select('id').where('id', '=', session.id).forUpdate().execute();
    const used = await trx
      .selectFrom('session_logs')
      // octet_length reads the stored size (SQLite's length() of text counts characters: it reads every earlier log).
      .select((eb) => [eb.fn.countAll().as('posts'), eb.fn.sum(eb.fn('octet_length', ['body'])).as('bytes')])
      .where('session_id', '=', session.id)
      .executeTakeFirstOrThrow();
    if (Number(used.posts) + 1 > SESSION_LOGS_QUOTA.posts || Number(used.bytes ?? 0) + logsJson.length > SESSION_LOGS_QUOTA.bytes) {
      throw new HttpError(429, 'LOGS_QUOTA', `a session stores at most ${SESSION_LOGS_QUOTA.posts} log posts and ${SESSION_LOGS_QUOTA.bytes} bytes of logs`);
    }
    const row = await trx.insertInto('session_logs').values({ session_id: session.id, body: logsJson, state_classes: summary.classes, created_at: nowIso() }).returning('id').executeTakeFirstOrThrow();
    // The phase the session reached, for the live statistics (a post without states leaves it as it was).
    if (summary.last) await trx.updateTable('sessions').set({ log_phase: JSON.stringify(summary.last) }).where('id', '=', session.id).execute();
    return row;
  });
  return id;
}

/** A signed lab consent form (identity data, in its own table, never joined to answers). `signedOn` is YYYY-MM-DD. */
export async function storeConsent(storage: Storage, form: ConsentBody, signedOn: string): Promise<void> {
  await storage.write((trx) =>
    trx
      .insertInto('consents')
      .values({
        email: form.emailAddress,
        paraphe: form.paraphe,
        gender: form.gender,
        name: form.name,
        family_name: form.familyName,
        birth_country: form.birthCountry,
        birth_day: form.birthDay,
        signed_on: signedOn,
        created_at: nowIso(),
      })
      .execute(),
  );
}
