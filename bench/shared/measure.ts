import { request as httpRequest, type Agent, type IncomingHttpHeaders } from 'node:http';

/**
 * What the load benchmarks share (bench/participants, bench/launch): one HTTP request as a participant's browser
 * sends it, timed; and the quantile and summary every benchmark prints (defined in ./statistics.ts).
 */

export interface Answer {
  status: number;
  /** The answer's text; for an encoded or binary answer (a compressed script, an image) only its size. */
  body: string;
  ms: number;
  /** The first cookie the answer set (name=value). */
  cookie?: string;
  /** Every cookie the answer set (name=value). */
  cookies: string[];
}

export interface SendOptions {
  method?: string;
  /** Local address to send from (a participant behind their own address). */
  from?: string;
  /** JSON (an object), or the body as it is (a string, or a Buffer such as a multipart upload). */
  body?: string | Buffer | object;
  headers?: Record<string, string>;
  /**
   * The connections to send on, as a browser keeps them (bench:launch: one keep-alive agent per participant).
   * Without one, each request opens a connection of its own.
   */
  agent?: Agent;
}

/** Decoding an image or a compressed script as text is most of a load generator's CPU, and nothing reads it. */
const isReadable = (headers: IncomingHttpHeaders) => !headers['content-encoding'] && /json|text/.test(headers['content-type'] ?? 'text');

/**
 * One request, timed from its start to the end of the answer's body; status 0 when it failed to connect. On a kept
 * connection the server closed meanwhile (idle past its keep-alive timeout: ECONNRESET or EPIPE before any answer),
 * it is sent once more, as browsers do; the server never read it (answers carry idempotency keys anyway).
 */
export function send(url: string, opts: SendOptions = {}): Promise<Answer> {
  const payload = opts.body === undefined ? undefined : typeof opts.body === 'string' || Buffer.isBuffer(opts.body) ? opts.body : JSON.stringify(opts.body);
  const started = performance.now();
  const attempt = (retry: boolean): Promise<Answer> =>
    new Promise((resolve) => {
      // Without an agent, a connection per request (no shared pool: a pooled socket the server already closed would fail the request).
      const req = httpRequest(url, { method: opts.method ?? 'GET', agent: opts.agent ?? false, localAddress: opts.from, headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...opts.headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const body = isReadable(res.headers) ? bytes.toString('utf8') : `(${bytes.length} bytes)`;
          const cookies = (res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]!);
          resolve({ status: res.statusCode!, body, ms: performance.now() - started, cookie: cookies[0], cookies });
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (retry && req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) return resolve(attempt(false));
        console.error(`request failed: ${opts.method ?? 'GET'} ${url}: ${error.message}`);
        resolve({ status: 0, body: error.message, ms: performance.now() - started, cookies: [] });
      });
      req.end(payload);
    });
  return attempt(true);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The one quantile (type 7: linear interpolation, R's and NumPy's default) and the one summary {n, mean, sd, min,
 * p50, p95, p99, max} of every benchmark. Defined in ./statistics.ts, which has no Node imports, so that bench:bubble's
 * page can use them too; every benchmark in Node imports them from here.
 */
export { quantile, quantileOfSorted, round1, summary, type Summary } from './statistics.js';

/** How many answers had each status. */
export const countByStatus = (answers: ReadonlyArray<{ status: number }>) =>
  Object.fromEntries([...new Set(answers.map((a) => a.status))].sort().map((s) => [s, answers.filter((a) => a.status === s).length]));
