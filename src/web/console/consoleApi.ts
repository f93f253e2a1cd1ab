/**
 * The console's calls to /console/api (same origin; the session cookie goes along by itself). Every change sends
 * the session's CSRF token. Errors carry the server's {error, message, details}.
 */

export class ConsoleApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Array<{ path: string; message: string }> = [],
    /** The server's Retry-After, in seconds, when it sent one. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

let csrfToken = '';
export const setCsrfToken = (token: string) => void (csrfToken = token);

async function failure(res: Response): Promise<ConsoleApiError> {
  const body = (await res.json().catch(() => ({}))) as { error?: string; message?: string; details?: Array<{ path: string; message: string }> };
  const retryAfter = Number(res.headers.get('retry-after') ?? Number.NaN);
  return new ConsoleApiError(res.status, body.error ?? 'ERROR', body.message ?? res.statusText, body.details ?? [], Number.isFinite(retryAfter) ? retryAfter : null);
}

export async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { credentials: 'same-origin', headers: { accept: 'application/json' } });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

export async function postJson<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'x-csrf-token': csrfToken, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

export async function postForm<T>(path: string, form: FormData): Promise<T> {
  const res = await fetch(path, { method: 'POST', credentials: 'same-origin', headers: { 'x-csrf-token': csrfToken }, body: form });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

/**
 * Downloads a file the server streams, reporting progress (rows when the server says how many, else bytes), then
 * hands it to the browser as a download under the server's file name.
 */
export async function download(path: string, onProgress: (done: number, total: number | null, unit: 'rows' | 'bytes') => void): Promise<void> {
  const res = await fetch(path, { credentials: 'same-origin' });
  if (!res.ok || !res.body) throw await failure(res);
  const totalRows = Number(res.headers.get('x-total-rows') ?? -1);
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'download';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let lines = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    bytes += value.length;
    for (const byte of value) if (byte === 10) lines++;
    if (totalRows >= 0) onProgress(Math.max(0, lines - 1), totalRows, 'rows');
    else onProgress(bytes, null, 'bytes');
  }
  const url = URL.createObjectURL(new Blob(chunks as BlobPart[], { type: res.headers.get('content-type') ?? 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
