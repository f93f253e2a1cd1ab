import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { nowIso, type Db, type Storage } from './types.js';

/**
 * The sign-in lock (README "Console"), counted BEFORE a password is checked, in one statement per key: however
 * many attempts arrive at once, at most `attempts` of them per window are checked; the rest are refused unchecked.
 * - Per e-mail and address: 5 attempts, then that address is refused for that e-mail for 15 minutes. Someone else
 *   trying your account from their address locks only their own pair, never your sign-in from yours.
 * - Per e-mail, from any address: a slower back-off of 50 checked attempts per 15 minutes (it would take 10
 *   addresses, each at its own limit, to reach it), against one attacker spread over many addresses.
 * Keys are e-mails as typed (normalised), existing or not, so an unknown e-mail locks exactly like a real one.
 * A successful sign-in clears both counters.
 */
export const LOCKOUT = { attempts: 5, ms: 15 * 60_000 };
export const ACCOUNT_LOCKOUT = { attempts: 50, ms: 15 * 60_000 };

const keyHash = (key: string) => createHash('sha256').update(key).digest('hex');
const keysOf = (email: string, address: string) => {
  const account = `acct:${email.trim().toLowerCase()}`;
  return { pair: keyHash(`${account}\n${address}`), account: keyHash(account) };
};

/**
 * Counts one attempt on a key; true while within `limit` (then the password may be checked). One upsert: the
 * window restarts once the last counted attempt is older than `ms`; the lock's start stays at the attempt that
 * reached the limit.
 */
async function countAttempt(trx: Db, key: string, limit: number, ms: number): Promise<boolean> {
  const now = nowIso();
  const cutoff = new Date(Date.now() - ms).toISOString();
  const row = await trx
    .insertInto('sign_in_attempts')
    .values({ key_hash: key, attempts: 1, last_at: now })
    .onConflict((oc) =>
      oc.column('key_hash').doUpdateSet({
        attempts: sql<number>`case when sign_in_attempts.last_at < ${cutoff} then 1 else sign_in_attempts.attempts + 1 end`,
        last_at: sql<string>`case when sign_in_attempts.last_at < ${cutoff} or sign_in_attempts.attempts < ${limit} then ${now} else sign_in_attempts.last_at end`,
      }),
    )
    .returning('attempts')
    .executeTakeFirstOrThrow();
  return row.attempts <= limit;
}

let nextSweep = 0;

/** Counts a sign-in attempt before its check; false when it must be refused unchecked (locked). */
export async function countSignInAttempt(storage: Storage, email: string, address: string): Promise<boolean> {
  const keys = keysOf(email, address);
  const allowed = await storage.write(async (trx) => {
    if (!(await countAttempt(trx, keys.pair, LOCKOUT.attempts, LOCKOUT.ms))) return false;
    return countAttempt(trx, keys.account, ACCOUNT_LOCKOUT.attempts, ACCOUNT_LOCKOUT.ms);
  });
  // Rows of windows long over (random e-mails tried once) are swept at most once a minute per process.
  if (Date.now() >= nextSweep) {
    nextSweep = Date.now() + 60_000;
    const cutoff = new Date(Date.now() - Math.max(LOCKOUT.ms, ACCOUNT_LOCKOUT.ms)).toISOString();
    await storage.write((trx) => trx.deleteFrom('sign_in_attempts').where('last_at', '<', cutoff).execute(), { singleStatement: true });
  }
  return allowed;
}

/** A successful sign-in: both counters start again. */
export async function clearSignInAttempts(storage: Storage, email: string, address: string): Promise<void> {
  const keys = keysOf(email, address);
  await storage.write((trx) => trx.deleteFrom('sign_in_attempts').where('key_hash', 'in', [keys.pair, keys.account]).execute(), { singleStatement: true });
}
