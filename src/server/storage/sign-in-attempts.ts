import { randomBytes } from 'node:crypto';
import { normalizeIP } from '@fastify/rate-limit';
import { sql } from 'kysely';
import { nowIso, type Db, type Storage } from './types.js';
import { tokenHash } from './users.js';

/**
 * The sign-in locks (docs/console.md), counted BEFORE a password is checked, in one statement per key: however
 * many attempts arrive at once, no more are checked than a lock allows; the rest are refused unchecked. A lock must
 * never be a way to keep a researcher out of their own account (OWASP's "device cookies"):
 * - A known browser (the device cookie of an earlier sign-in to this account) is counted on its own: 5 attempts per
 *   15 minutes for that cookie. Nothing anyone else sends touches it, whatever their addresses.
 * - Any other attempt is counted per e-mail and network: 5 attempts, then that network is refused for that e-mail
 *   for 15 minutes. A network is an IPv4 address, or an IPv6 /64 (what one home or device is given; a /56 is 256
 *   networks, each with its own 5 attempts, which the account-wide back-off below bounds).
 * - And per e-mail from any network: past 50 checked attempts in 15 minutes, unknown browsers are slowed, not
 *   refused: one check per 30 seconds for the account, shared by them all (an attack of 10 addresses and many /64s
 *   gets 2 guesses a minute; the old lock refused every one, its owner's included, for as long as the attack went on).
 * Keys are e-mails as typed (normalised), existing or not, so an unknown e-mail is counted exactly like a real one.
 * A successful sign-in clears its browser's and its network's counters; the account-wide one runs its course.
 */
export const LOCKOUT = { attempts: 5, ms: 15 * 60_000 };
export const ACCOUNT_BACKOFF = { attempts: 50, ms: 15 * 60_000, slowedIntervalMs: 30_000 };
/** A browser stays known this long after its last sign-in (its cookie's lifetime too). */
export const KNOWN_BROWSER_MS = 365 * 24 * 60 * 60_000;
/** The IPv6 prefix of one network: a /64 is one subnet, the smallest any ISP hands out. */
export const IPV6_NETWORK_PREFIX = 64;

/** The network an address belongs to, as the locks and the rate limits count it: IPv4 as is, IPv6 as its /64. */
export const networkOf = (address: string) => normalizeIP(address, IPV6_NETWORK_PREFIX);

const accountKey = (email: string) => `acct:${email.trim().toLowerCase()}`;
const keysOf = (email: string, address: string) => ({
  pair: tokenHash(`${accountKey(email)}\n${networkOf(address)}`),
  account: tokenHash(accountKey(email)),
});
const browserKey = (browserToken: string) => tokenHash(`browser:${tokenHash(browserToken)}`);

/** What a sign-in attempt may do. */
export type SignInAdmission =
  | { check: true; knownBrowser: boolean }
  /** Refused unchecked: this browser or network used its attempts (answered like a wrong password). */
  | { check: false; slowedMs?: undefined }
  /** Not checked now: the account is under attack from elsewhere; an unknown browser may try again in `slowedMs`. */
  | { check: false; slowedMs: number };

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

/**
 * The account-wide back-off: takes one check when the account is within its 50, or when its last check is
 * `slowedIntervalMs` old; otherwise nothing is written and the wait until the next check is returned. The update's
 * WHERE decides, in one statement: of attempts arriving together past the limit, exactly one gets the slot.
 */
async function takeAccountCheck(trx: Db, key: string): Promise<{ granted: true } | { granted: false; waitMs: number }> {
  const now = Date.now();
  const windowCutoff = new Date(now - ACCOUNT_BACKOFF.ms).toISOString();
  const slotCutoff = new Date(now - ACCOUNT_BACKOFF.slowedIntervalMs).toISOString();
  const taken = await trx
    .insertInto('sign_in_attempts')
    .values({ key_hash: key, attempts: 1, last_at: new Date(now).toISOString() })
    .onConflict((oc) =>
      oc
        .column('key_hash')
        .doUpdateSet({
          attempts: sql<number>`case when sign_in_attempts.last_at < ${windowCutoff} then 1 else sign_in_attempts.attempts + 1 end`,
          last_at: new Date(now).toISOString(),
        })
        .where((eb) =>
          eb.or([eb('sign_in_attempts.last_at', '<', windowCutoff), eb('sign_in_attempts.attempts', '<', ACCOUNT_BACKOFF.attempts), eb('sign_in_attempts.last_at', '<', slotCutoff)]),
        ),
    )
    .returning('attempts')
    .executeTakeFirst();
  if (taken) return { granted: true };
  const row = await trx.selectFrom('sign_in_attempts').select('last_at').where('key_hash', '=', key).executeTakeFirst();
  const waitMs = row ? Date.parse(row.last_at) + ACCOUNT_BACKOFF.slowedIntervalMs - now : 0;
  return { granted: false, waitMs: Math.max(1000, waitMs) };
}

/** The browser token is a device cookie of an earlier sign-in to this e-mail's account. */
async function isKnownBrowser(trx: Db, email: string, browserToken: string | undefined): Promise<boolean> {
  if (!browserToken || !/^[\w-]{43}$/.test(browserToken)) return false;
  const row = await trx
    .selectFrom('known_browsers as b')
    .innerJoin('users as u', 'u.id', 'b.user_id')
    .select('b.last_sign_in_at')
    .where('b.token_hash', '=', tokenHash(browserToken))
    .where('u.email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
  return !!row && Date.parse(row.last_sign_in_at) > Date.now() - KNOWN_BROWSER_MS;
}

let nextSweep = 0;

/** Counts a sign-in attempt before its check, and says whether it may be checked (SignInAdmission). */
export async function admitSignIn(storage: Storage, email: string, address: string, browserToken: string | undefined): Promise<SignInAdmission> {
  const keys = keysOf(email, address);
  const admission = await storage.write(async (trx): Promise<SignInAdmission> => {
    if (await isKnownBrowser(trx, email, browserToken)) {
      return (await countAttempt(trx, browserKey(browserToken!), LOCKOUT.attempts, LOCKOUT.ms)) ? { check: true, knownBrowser: true } : { check: false };
    }
    if (!(await countAttempt(trx, keys.pair, LOCKOUT.attempts, LOCKOUT.ms))) return { check: false };
    const account = await takeAccountCheck(trx, keys.account);
    if (account.granted) return { check: true, knownBrowser: false };
    // Not checked, so not counted against this network either: a researcher told to wait does not lock themselves.
    await trx.updateTable('sign_in_attempts').set({ attempts: sql<number>`attempts - 1` }).where('key_hash', '=', keys.pair).execute();
    return { check: false, slowedMs: account.waitMs };
  });
  // Rows of windows long over (random e-mails tried once) are swept at most once a minute per process.
  if (Date.now() >= nextSweep) {
    nextSweep = Date.now() + 60_000;
    const cutoff = new Date(Date.now() - Math.max(LOCKOUT.ms, ACCOUNT_BACKOFF.ms)).toISOString();
    await storage.write((trx) => trx.deleteFrom('sign_in_attempts').where('last_at', '<', cutoff).execute(), { singleStatement: true });
    const forgotten = new Date(Date.now() - KNOWN_BROWSER_MS).toISOString();
    await storage.write((trx) => trx.deleteFrom('known_browsers').where('last_sign_in_at', '<', forgotten).execute(), { singleStatement: true });
  }
  return admission;
}

/**
 * A successful sign-in: its browser's and its network's counters start again, and the browser is known to the
 * account from now on. Returns the browser's device-cookie token: the one it sent when it was known, else a new one.
 */
export async function signedIn(storage: Storage, userId: number, email: string, address: string, browserToken: string | undefined, knownBrowser: boolean): Promise<string> {
  const keys = keysOf(email, address);
  const token = knownBrowser && browserToken ? browserToken : randomBytes(32).toString('base64url');
  const now = nowIso();
  await storage.write(async (trx) => {
    await trx.deleteFrom('sign_in_attempts').where('key_hash', 'in', [keys.pair, browserKey(token)]).execute();
    await trx
      .insertInto('known_browsers')
      .values({ token_hash: tokenHash(token), user_id: userId, last_sign_in_at: now })
      .onConflict((oc) => oc.column('token_hash').doUpdateSet({ last_sign_in_at: now }))
      .execute();
  });
  return token;
}
