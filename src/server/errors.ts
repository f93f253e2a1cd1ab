import type { ErrorObject } from 'ajv';
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
