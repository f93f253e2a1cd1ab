import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import yazl from 'yazl';
import { hashPassword } from '../src/server/console/passwords.js';
import type { Storage } from '../src/server/storage/types.js';
import { createUser, grantRole, type JobRole } from '../src/server/storage/users.js';

/** Console helpers for tests: accounts, a signed-in client of app.inject, and study zips. */

export const PASSWORD = 'correct horse battery';

export async function addUser(storage: Storage, email: string, role?: { jobId: string; role: JobRole }) {
  const user = await createUser(storage, email, await hashPassword(PASSWORD));
  if (role) await grantRole(storage, role.jobId, user.id, role.role);
  return user;
}

export interface ConsoleClient {
  cookie: string;
  csrf: string;
  get(url: string): Promise<LightMyRequestResponse>;
  post(url: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

/** Signs in through the API and returns a client that sends the cookie and the CSRF token. */
export async function signIn(app: FastifyInstance, email: string, password = PASSWORD): Promise<ConsoleClient> {
  const res = await app.inject({ method: 'POST', url: '/console/api/sign-in', payload: { email, password } });
  if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  const csrf = (JSON.parse(res.body) as { csrfToken: string }).csrfToken;
  return {
    cookie,
    csrf,
    get: (url) => app.inject({ method: 'GET', url, headers: { cookie } }),
    post: (url, body, headers = {}) =>
      app.inject({ method: 'POST', url, headers: { cookie, 'x-csrf-token': csrf, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, payload: body === undefined ? undefined : JSON.stringify(body) }),
  };
}

/** A zip of a folder (entries relative to it), plus any extra raw entries (e.g. a path leaving the folder). */
export async function zipFolder(folder: string, extra: Array<{ name: string; data: string }> = []): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir)) {
      const path = join(dir, entry);
      if ((await stat(path)).isDirectory()) await walk(path);
      else zip.addBuffer(await readFile(path), relative(folder, path));
    }
  };
  await walk(folder);
  for (const { name, data } of extra) zip.addBuffer(Buffer.from(data), name, { compress: false });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A multipart/form-data body with one file field (and optional text fields). */
export function multipartBody(file: Buffer, fields: Record<string, string> = {}): { payload: Buffer; contentType: string } {
  const boundary = `----glimpse${Date.now()}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="study"; filename="study.zip"\r\nContent-Type: application/zip\r\n\r\n`), file, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}
