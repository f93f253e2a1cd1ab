import { randomBytes, timingSafeEqual } from 'node:crypto';
import { PasswordPool, type ScryptCost } from './password-pool.js';

/**
 * Console passwords, hashed with scrypt on the password pool's own threads (password-pool.ts: never on libuv's
 * pool, which acknowledges participants' answers). Stored as `scrypt$N$r$p$salt$key` (base64url), so the cost can
 * rise later without breaking the hashes already stored.
 */

const COST: ScryptCost = { N: 2 ** 15, r: 8, p: 1 };
const KEY_BYTES = 32;
/** A password is at least this long (the console says so when creating one). */
export const MIN_PASSWORD_LENGTH = 10;

/** The process's one budget of concurrent password checks (sign-ins and `cli user add` alike). */
export const passwordPool = new PasswordPool();

function derive(password: string, salt: Buffer, cost: ScryptCost, priority = false): Promise<Buffer> {
  return passwordPool.derive(password.normalize('NFKC'), salt, KEY_BYTES, cost, priority);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  // Priority: the CLI's and the console's new passwords are not refused for a flood of strangers' sign-ins.
  const key = await derive(password, salt, COST, true);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** `priority`: a known browser's sign-in, checked before unknown ones (password-pool.ts). */
export async function verifyPassword(password: string, stored: string, priority = false): Promise<boolean> {
  const [scheme, N, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(N), r: Number(r), p: Number(p) }, priority);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
