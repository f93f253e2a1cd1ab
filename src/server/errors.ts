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

/** One readable {path, message} per ajv error; unknown and missing fields point at the field itself. */
export function ajvErrorDetail(error: ErrorObject, root: string): ErrorDetail {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    return { path: pointerToPath(`${error.instancePath}/${String(params.additionalProperty)}`, root), message: 'unknown field' };
  }
  if (error.keyword === 'required') {
    return { path: pointerToPath(`${error.instancePath}/${String(params.missingProperty)}`, root), message: 'required field is missing' };
  }
  return { path: pointerToPath(error.instancePath, root), message: error.message ?? error.keyword };
}
