import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { nowIso, type JobStatus, type Storage } from './types.js';

/** Console accounts, their signed-in sessions and their roles per job (docs/console.md). */

export interface ConsoleUser {
  id: number;
  email: string;
  admin: boolean;
}

export type JobRole = 'owner' | 'viewer';

/** A console session ends after this long without use. */
export const CONSOLE_SESSION_MS = 12 * 3600_000;

/** A token as stored: its SHA-256 in hex (a stolen database holds no usable token). */
export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

export async function createUser(storage: Storage, email: string, passwordHash: string): Promise<ConsoleUser> {
  const normal = email.trim().toLowerCase();
  return storage.write(async (trx) => {
    // The first account administers every job (someone must be able to do everything): exactly one, however many
    // accounts are created at once. PostgreSQL: a table lock that conflicts with itself serialises the creations
    // (readers unaffected) until the transaction ends, in every process; SQLite's writes are serialised already
    // (one group commit per process, BEGIN IMMEDIATE across processes).
    if (storage.dialect === 'postgres') await sql`lock table users in share row exclusive mode`.execute(trx);
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

/** Whether the user may upload a new study in the console: administrators, and accounts granted `creator`. */
export async function mayCreateStudies(storage: Storage, user: ConsoleUser): Promise<boolean> {
  if (user.admin) return true;
  const row = await storage.db.selectFrom('users').select('creates_studies').where('id', '=', user.id).executeTakeFirst();
  return row?.creates_studies === 1;
}

export async function setCreatesStudies(storage: Storage, userId: number, allowed: boolean): Promise<void> {
  await storage.write((trx) => trx.updateTable('users').set({ creates_studies: allowed ? 1 : 0 }).where('id', '=', userId).execute(), { singleStatement: true });
}

/** Deletes an account: its sessions and roles go with it (foreign keys cascade). */
export async function removeUser(storage: Storage, userId: number): Promise<void> {
  await storage.write((trx) => trx.deleteFrom('users').where('id', '=', userId).execute(), { singleStatement: true });
}

/** Takes a user's role on a job away; false when they had none. */
export async function revokeRole(storage: Storage, jobId: string, userId: number): Promise<boolean> {
  const result = await storage.write((trx) => trx.deleteFrom('job_roles').where('job_id', '=', jobId).where('user_id', '=', userId).executeTakeFirst(), { singleStatement: true });
  return Number(result.numDeletedRows) > 0;
}

/** Ends every signed-in session of a user (their open live streams end at their next event); how many there were. */
export async function closeSessionsOfUser(storage: Storage, userId: number): Promise<number> {
  const result = await storage.write((trx) => trx.deleteFrom('console_sessions').where('user_id', '=', userId).executeTakeFirst(), { singleStatement: true });
  return Number(result.numDeletedRows);
}

export interface UserSummary {
  email: string;
  admin: boolean;
  createdAt: string;
  /** Live signed-in sessions. */
  sessions: number;
  roles: Array<{ jobId: string; role: JobRole }>;
}

/** Every account with its roles and live sessions (the administrators' users page). */
export async function userSummaries(storage: Storage): Promise<UserSummary[]> {
  const now = nowIso();
  const [users, roles, sessions] = await Promise.all([
    storage.db.selectFrom('users').select(['id', 'email', 'admin', 'created_at']).orderBy('email').execute(),
    storage.db.selectFrom('job_roles').select(['user_id', 'job_id', 'role']).orderBy('job_id').execute(),
    storage.db.selectFrom('console_sessions').select('user_id').where('expires_at', '>=', now).execute(),
  ]);
  return users.map((u) => ({
    email: u.email,
    admin: u.admin === 1,
    createdAt: u.created_at,
    sessions: sessions.filter((s) => s.user_id === u.id).length,
    roles: roles.filter((r) => r.user_id === u.id).map((r) => ({ jobId: r.job_id, role: r.role })),
  }));
}

/** How many console accounts exist (npm start says how to create the first). */
export async function userCount(storage: Storage): Promise<number> {
  return Number((await storage.db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}
