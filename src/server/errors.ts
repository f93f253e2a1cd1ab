import type { ErrorObject } from 'ajv';
import pg from 'pg';
import type { ApiError } from '../contract/payloads.js';

export type ErrorDetail = NonNullable<ApiError['details']>[number];

/**
 * An error that becomes a JSON answer `{error, message, details?, ...extra}` with its status code
 * (the error body of every API answer, see contract/payloads.ts ApiError).
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }

  body(): ApiError & Record<string, unknown> {
    return { ...this.extra, error: this.code, message: this.message };
  }
}

export const notFound = (message: string) => new HttpError(404, 'NOT_FOUND', message);
export const forbidden = (message: string) => new HttpError(403, 'FORBIDDEN', message);
export const conflict = (code: string, message: string, extra?: Record<string, unknown>) => new HttpError(409, code, message, extra);

/** Seconds a client is told to wait (Retry-After) before it sends again what the storage could not take. */
export const STORAGE_RETRY_SECONDS = 5;

/**
 * 503 STORAGE_UNAVAILABLE: the request was not stored (or its commit not made durable) and the same request sent
 * again later may be (answers carry an Idempotency-Key, so a retry never stores one twice). The error handler adds
 * the Retry-After header from `retryAfterSeconds`.
 */
export const storageUnavailable = (message: string) => new HttpError(503, 'STORAGE_UNAVAILABLE', message, { retryAfterSeconds: STORAGE_RETRY_SECONDS });

/** The storage errors a retry may not meet, by SQLite code or PostgreSQL SQLSTATE prefix, in words. */
const SQLITE_TRANSIENT: ReadonlyArray<[prefix: string, reason: string]> = [
  ['SQLITE_FULL', "the server's disk is full"],
  ['SQLITE_IOERR', "the server's disk failed a read or write"],
  ['SQLITE_BUSY', 'the database is busy'],
  ['SQLITE_NOMEM', 'the server is out of memory'],
];
const POSTGRES_TRANSIENT: ReadonlyArray<[prefix: string, reason: string]> = [
  ['53100', "the database server's disk is full"],
  ['53200', 'the database server is out of memory'],
  ['53300', 'the database server has too many connections'],
  ['58030', "the database server's disk failed a read or write"],
  ['40001', 'the database met a concurrent change'],
  ['40P01', 'the database met a concurrent change'],
  ['55P03', 'the database is busy'],
  ['57P0', 'the database server is restarting'],
  ['08', 'the connection to the database failed'],
];
/**
 * Without an SQLSTATE: a socket's system errors (with a `syscall`: a client that aborts its upload gives ECONNRESET
 * without one; the server opens no other connection than the database's) and node-postgres's own words for a lost
 * or refused connection.
 */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const POSTGRES_CONNECTION_MESSAGE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/**
 * The 503 answer of a storage error that a retry may not meet (a full disk, an I/O error, a busy or restarting
 * database, a deadlock or serialization failure, a lost connection); null for any other error (a bug: 500).
 */
export function transientStorageError(error: unknown): HttpError | null {
  const { code: rawCode, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  const code = typeof rawCode === 'string' ? rawCode : '';
  const message = error instanceof Error ? error.message : '';
  let reason: string | undefined;
  if (code.startsWith('SQLITE_')) reason = SQLITE_TRANSIENT.find(([prefix]) => code.startsWith(prefix))?.[1];
  else if (error instanceof pg.DatabaseError) reason = POSTGRES_TRANSIENT.find(([prefix]) => code.startsWith(prefix))?.[1];
  else if (code === 'ENOSPC' || code === 'EDQUOT') reason = "the server's disk is full";
  else if ((CONNECTION_CODES.has(code) && typeof syscall === 'string') || POSTGRES_CONNECTION_MESSAGE.test(message)) {
    // The connection may have gone after a COMMIT was sent: then what was stored is unknown, not absent.
    return storageUnavailable('not confirmed: the connection to the database failed; send the same request again in a few seconds');
  }
  return reason === undefined ? null : storageUnavailable(`not stored: ${reason}; send the same request again in a few seconds`);
}

/** "/playlists/0/stimuli/3" -> "playlists[0].stimuli[3]" (JSON pointer to a readable JSON path). */
export function pointerToPath(pointer: string, root: string): string {
  let path = root;
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(part) ? `[${part}]` : /^[A-Za-z_$][\w$]*$/.test(part) ? `.${part}` : `[${JSON.stringify(part)}]`;
  }
  return path;
}

/**
 * Readable {path, message} list of ajv errors (ajv run with verbose: true). An anyOf (TypeBox union) reports one
 * line instead of one per branch: "must be one of ..." when the branches are constants. Unknown and missing
 * fields point at the field itself. Identical lines are merged.
 */
export function ajvErrorDetails(errors: readonly ErrorObject[], root: string): ErrorDetail[] {
  const unions = errors.filter((e) => e.keyword === 'anyOf');
  const insideUnion = (e: ErrorObject) => unions.some((u) => e !== u && e.schemaPath.startsWith(`${u.schemaPath}/`));
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const error of errors) {
    if (insideUnion(error)) continue;
    const detail = error.keyword === 'anyOf' ? unionDetail(error, root) : ajvErrorDetail(error, root);
    const key = `${detail.path}\0${detail.message}`;
    if (!seen.has(key)) details.push(detail), seen.add(key);
  }
  return details;
}

function unionDetail(error: ErrorObject, root: string): ErrorDetail {
  const branches = Array.isArray(error.schema) ? (error.schema as Array<{ const?: unknown }>) : [];
  const constants = branches.every((b) => b && 'const' in b) ? branches.map((b) => JSON.stringify(b.const)) : null;
  return {
    path: pointerToPath(error.instancePath, root),
    message: constants ? `must be one of ${constants.join(', ')}` : 'does not match any of the allowed shapes',
  };
}

/** One readable {path, message} per ajv error; unknown and missing fields point at the field itself. */
function ajvErrorDetail(error: ErrorObject, root: string): ErrorDetail {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    return { path: pointerToPath(`${error.instancePath}/${String(params.additionalProperty)}`, root), message: 'unknown field' };
  }
  if (error.keyword === 'required') {
    return { path: pointerToPath(`${error.instancePath}/${String(params.missingProperty)}`, root), message: 'required field is missing' };
  }
  return { path: pointerToPath(error.instancePath, root), message: error.message ?? error.keyword };
}
