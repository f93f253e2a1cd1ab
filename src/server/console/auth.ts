import cookie from '@fastify/cookie';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { forbidden, HttpError, notFound } from '../errors.js';
import type { RateLimits } from '../plugins/security.js';
import {
  closeConsoleSession,
  consoleSessionOf,
  findUserByEmail,
  openConsoleSession,
  roleOn,
  CONSOLE_SESSION_MS,
  type ConsoleUser,
  type JobRole,
  userSummaries,
} from '../storage/users.js';
import { findJob } from '../storage/jobs.js';
import { admitSignIn, KNOWN_BROWSER_MS, LOCKOUT, signedIn } from '../storage/sign-in-attempts.js';
import { verifyPassword } from './passwords.js';

/**
 * Console sign-in (docs/console.md): a session cookie (random token; HttpOnly, SameSite=Strict, Secure over
 * HTTPS, path /console), a CSRF token per session required in the `x-csrf-token` header of every change, and a
 * lock after 5 sign-in attempts per e-mail and address (15 minutes; storage/sign-in-attempts.ts), on top of a
 * per-address rate limit. Every route of the
 * console's scope but sign-in refuses without a live session (401); a job the user has no role on is answered 404.
 */

export const CONSOLE_COOKIE = 'glimpse_console';
/** The device cookie of a browser that signed in before (storage/sign-in-attempts.ts), sent to the sign-in route only. */
export const BROWSER_COOKIE = 'glimpse_browser';
const SIGN_IN_PATH = '/console/api/sign-in';
export const CSRF_HEADER = 'x-csrf-token';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The one console route open without a session (sign-in); every other route of the console scope is gated. */
    consoleSignedOut?: boolean;
  }
  interface FastifyRequest {
    consoleUser: ConsoleUser | null;
    consoleCsrf: string | null;
  }
}

const SignIn = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 320 }), password: Type.String({ minLength: 1, maxLength: 1000 }) },
  { additionalProperties: false },
);

/** The one answer of a refused sign-in: wrong password, unknown e-mail and a locked pair alike. */
const signInFailed = () =>
  new HttpError(401, 'SIGN_IN_FAILED', `wrong e-mail or password, or too many attempts: after ${LOCKOUT.attempts} failed sign-ins, this address waits ${LOCKOUT.ms / 60_000} minutes`);

/** An unknown browser's sign-in while the account is under attack from elsewhere: told to wait, and for how long. */
const signInSlowed = (waitMs: number) => {
  const seconds = Math.ceil(waitMs / 1000);
  return new HttpError(
    429,
    'SIGN_IN_SLOWED',
    `too many failed sign-ins to this account from other addresses: a browser that has not signed in here before may try once every ${seconds} seconds; try again in ${seconds} seconds, or from a browser you signed in with before`,
    { retryAfterSeconds: seconds },
  );
};

/**
 * How long a password check takes here (a moving average): a locked attempt is answered after as long, without
 * spending a check, so its answer's timing tells nothing either.
 */
class CheckTime {
  private averageMs = 100;
  observe(ms: number): void {
    this.averageMs += (ms - this.averageMs) * 0.2;
  }
  wait(): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, this.averageMs * (0.9 + Math.random() * 0.2)));
  }
}

/** A fixed hash to compare against when the account does not exist: the answer takes as long either way. */
const NO_ACCOUNT = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

export async function registerConsoleAuth(app: FastifyInstance, opts: { rateLimits: RateLimits | false }): Promise<void> {
  await app.register(cookie);
  app.decorateRequest('consoleUser', null);
  app.decorateRequest('consoleCsrf', null);

  // The gate: a hook of this scope, so it runs for every route registered in it, whatever spelling of the path the
  // router matched (%61, %2F...), and for no other. It is decided on the matched route (its config), never on the
  // raw URL: the router decodes the URL before matching, so a prefix test on request.url could be walked around.
  // Who is signed in, and the CSRF token of every change, checked before the body is read or validated.
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.consoleSignedOut === true) return;
    const token = request.cookies[CONSOLE_COOKIE];
    const session = token ? await consoleSessionOf(app.storage, token) : null;
    if (!session) throw new HttpError(401, 'SIGN_IN_REQUIRED', 'sign in to the console first');
    request.consoleUser = session.user;
    request.consoleCsrf = session.csrfToken;
    if (request.method !== 'GET' && request.method !== 'HEAD' && !sameSecret(request.headers[CSRF_HEADER], session.csrfToken)) {
      throw new HttpError(403, 'CSRF', `a change needs the session's ${CSRF_HEADER} header`);
    }
  });
  // Every route of the console lives under /console/api/ (the web app's fallback answers nothing there): one that
  // did not would be a programming error, refused at start.
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/console/api/')) throw new Error(`console route ${route.url} outside /console/api/`);
  });

  // Sign-in attempts per address, beside the lock per e-mail and address (which alone would let one address try every account).
  const signInConfig = { consoleSignedOut: true, ...(opts.rateLimits === false ? {} : { rateLimit: { max: 20, timeWindow: '1 minute' } }) };
  const checkTime = new CheckTime();
  app.post<{ Body: { email: string; password: string } }>(SIGN_IN_PATH, { schema: { body: SignIn }, bodyLimit: 4096, config: signInConfig }, async (request, reply) => {
    const { email, password } = request.body;
    const browserToken = request.cookies[BROWSER_COOKIE];
    // Counted before the check: attempts sent together are checked at most as often as the locks allow. A locked
    // network, an unknown e-mail and a wrong password get the same answer after the same time (nothing tells who has
    // an account); an account slowed by attacks from elsewhere says so, with when to try again.
    const admission = await admitSignIn(app.storage, email, request.ip, browserToken);
    if (!admission.check) {
      if (admission.slowedMs !== undefined) throw signInSlowed(admission.slowedMs);
      await checkTime.wait();
      throw signInFailed();
    }
    const user = await findUserByEmail(app.storage, email);
    const started = performance.now();
    const ok = await verifyPassword(password, user?.password_hash ?? NO_ACCOUNT, admission.knownBrowser);
    checkTime.observe(performance.now() - started);
    if (!user || !ok) throw signInFailed();
    const browser = await signedIn(app.storage, user.id, email, request.ip, browserToken, admission.knownBrowser);
    const session = await openConsoleSession(app.storage, user.id);
    setSessionCookie(request, reply, session.token);
    reply.setCookie(BROWSER_COOKIE, browser, { path: SIGN_IN_PATH, httpOnly: true, sameSite: 'strict', secure: isHttps(request), maxAge: KNOWN_BROWSER_MS / 1000 });
    return { user: { id: user.id, email: user.email, admin: user.admin === 1 }, csrfToken: session.csrfToken, lockout: LOCKOUT };
  });

  app.get('/console/api/me', async (request) => ({ user: request.consoleUser, csrfToken: request.consoleCsrf }));

  // Administrators see every account and its roles (the console's users page; `cli user` changes them).
  app.get('/console/api/users', async (request) => {
    if (!request.consoleUser!.admin) throw forbidden('only administrators see the accounts');
    return { users: await userSummaries(app.storage) };
  });

  app.post('/console/api/sign-out', async (request, reply) => {
    const token = request.cookies[CONSOLE_COOKIE];
    if (token) await closeConsoleSession(app.storage, token);
    reply.clearCookie(CONSOLE_COOKIE, { path: '/console' });
    return { signedOut: true };
  });
}

const isHttps = (request: FastifyRequest) => request.protocol === 'https' || request.headers['x-forwarded-proto'] === 'https';

function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(CONSOLE_COOKIE, token, { path: '/console', httpOnly: true, sameSite: 'strict', secure: isHttps(request), maxAge: CONSOLE_SESSION_MS / 1000 });
}

function sameSecret(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The signed-in user's role on a job; 404 without one (nothing said about jobs they cannot see), 403 when a viewer asks to act. */
export async function requireRole(app: FastifyInstance, request: FastifyRequest, jobId: string, needed: JobRole): Promise<JobRole> {
  const user = request.consoleUser!;
  const role = await roleOn(app.storage, user, jobId);
  // An administrator is owner of every job, even one that does not exist: that one is a 404 too.
  if (!role || (user.admin && !(await findJob(app.storage, jobId)))) throw notFound(`no job ${jobId}`);
  if (needed === 'owner' && role !== 'owner') throw forbidden('only the job\'s owners may do this');
  return role;
}

/**
 * Whether a live stream may send its next event: its session cookie still opens a session of the same user, who
 * still has a role on the job (checked before every event, live-stats.ts).
 */
export async function streamStillAllowed(app: FastifyInstance, token: string | undefined, userId: number, jobId: string): Promise<boolean> {
  const session = token ? await consoleSessionOf(app.storage, token) : null;
  return session !== null && session.user.id === userId && (await roleOn(app.storage, session.user, jobId)) !== null;
}
