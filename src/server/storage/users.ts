import { createHash, randomBytes } from 'node:crypto';
import { nowIso, type JobStatus, type Storage } from './types.js';

/** Console accounts, their signed-in sessions and their roles per job (README "Console"). */

export interface ConsoleUser {
  id: number;
  email: string;
  admin: boolean;
}

export type JobRole = 'owner' | 'viewer';

/** A lockout after this many failed sign-ins in a row, for LOCKOUT_MS. */
export const LOCKOUT = { attempts: 5, ms: 15 * 60_000 };
/** A console session ends after this long without use. */
export const CONSOLE_SESSION_MS = 12 * 3600_000;

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

export async function createUser(storage: Storage, email: string, passwordHash: string): Promise<ConsoleUser> {
  const normal = email.trim().toLowerCase();
  return storage.write(async (trx) => {
    // The first account administers every job (someone must be able to do everything).
    const first = (await trx.selectFrom('users').select('id').limit(1).executeTakeFirst()) === undefined;
    const { id } = await trx
      .insertInto('users')
      .values({ email: normal, password_hash: passwordHash, admin: first ? 1 : 0, failed_logins: 0, locked_until: null, created_at: nowIso() })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id, email: normal, admin: first };
  });
}

export async function findUserByEmail(storage: Storage, email: string) {
  return storage.db.selectFrom('users').selectAll().where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
}

/** A failed sign-in: counted, and the account locked once LOCKOUT.attempts are reached. */
export async function recordFailedLogin(storage: Storage, userId: number): Promise<void> {
  await storage.write(async (trx) => {
    const row = await trx.selectFrom('users').select('failed_logins').where('id', '=', userId).executeTakeFirstOrThrow();
    const failed = row.failed_logins + 1;
    const locked = failed >= LOCKOUT.attempts ? new Date(Date.now() + LOCKOUT.ms).toISOString() : null;
    await trx.updateTable('users').set({ failed_logins: locked ? 0 : failed, ...(locked ? { locked_until: locked } : {}) }).where('id', '=', userId).execute();
  });
}

export async function recordSuccessfulLogin(storage: Storage, userId: number): Promise<void> {
  await storage.write((trx) => trx.updateTable('users').set({ failed_logins: 0, locked_until: null }).where('id', '=', userId).execute());
}

/** A new signed-in session: the cookie token (kept only as a hash) and its CSRF token. */
export async function openConsoleSession(storage: Storage, userId: number): Promise<{ token: string; csrfToken: string }> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const now = Date.now();
  await storage.write((trx) =>
    trx
      .insertInto('console_sessions')
      .values({ token_hash: tokenHash(token), user_id: userId, csrf_token: csrfToken, created_at: new Date(now).toISOString(), expires_at: new Date(now + CONSOLE_SESSION_MS).toISOString() })
      .execute(),
  );
  return { token, csrfToken };
}

/** The user and CSRF token of a live session cookie (its expiry slides forward), or null. */
export async function consoleSessionOf(storage: Storage, token: string): Promise<{ user: ConsoleUser; csrfToken: string } | null> {
  const row = await storage.db
    .selectFrom('console_sessions as c')
    .innerJoin('users as u', 'u.id', 'c.user_id')
    .select(['u.id', 'u.email', 'u.admin', 'c.csrf_token', 'c.expires_at', 'c.token_hash'])
    .where('c.token_hash', '=', tokenHash(token))
    .executeTakeFirst();
  if (!row || row.expires_at < nowIso()) return null;
  const expires = new Date(Date.now() + CONSOLE_SESSION_MS).toISOString();
  // Sliding expiry, written at most once a minute per session.
  if (Date.parse(row.expires_at) < Date.now() + CONSOLE_SESSION_MS - 60_000) {
    await storage.write((trx) => trx.updateTable('console_sessions').set({ expires_at: expires }).where('token_hash', '=', row.token_hash).execute(), { singleStatement: true });
  }
  return { user: { id: row.id, email: row.email, admin: row.admin === 1 }, csrfToken: row.csrf_token };
}

export async function closeConsoleSession(storage: Storage, token: string): Promise<void> {
  await storage.write((trx) => trx.deleteFrom('console_sessions').where('token_hash', '=', tokenHash(token)).execute(), { singleStatement: true });
}

export async function grantRole(storage: Storage, jobId: string, userId: number, role: JobRole): Promise<void> {
  await storage.write((trx) =>
    trx.insertInto('job_roles').values({ job_id: jobId, user_id: userId, role }).onConflict((oc) => oc.columns(['job_id', 'user_id']).doUpdateSet({ role })).execute(),
  );
}

/** The user's role on a job: owner for an administrator, else the granted one, or null (no access). */
export async function roleOn(storage: Storage, user: ConsoleUser, jobId: string): Promise<JobRole | null> {
  if (user.admin) return 'owner';
  const row = await storage.db.selectFrom('job_roles').select('role').where('job_id', '=', jobId).where('user_id', '=', user.id).executeTakeFirst();
  return row?.role ?? null;
}

/** The jobs a user may see, with their role. */
export async function jobsOfUser(storage: Storage, user: ConsoleUser): Promise<Array<{ id: string; role: JobRole }>> {
  if (user.admin) return (await storage.db.selectFrom('jobs').select('id').orderBy('id').execute()).map((j) => ({ id: j.id, role: 'owner' }));
  const rows = await storage.db.selectFrom('job_roles').select(['job_id', 'role']).where('user_id', '=', user.id).orderBy('job_id').execute();
  return rows.map((r) => ({ id: r.job_id, role: r.role }));
}

export async function setJobStatus(storage: Storage, jobId: string, status: JobStatus): Promise<void> {
  await storage.write((trx) => trx.updateTable('jobs').set({ status }).where('id', '=', jobId).execute(), { singleStatement: true });
}

export async function jobStatus(storage: Storage, jobId: string): Promise<JobStatus | null> {
  const row = await storage.db.selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirst();
  return row?.status ?? null;
}

/** How many console accounts exist (npm start says how to create the first). */
export async function userCount(storage: Storage): Promise<number> {
  return Number((await storage.db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}
