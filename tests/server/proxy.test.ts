import { request as httpRequest } from 'node:http';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { parseTrustProxy, type TrustProxy } from '../../src/server/config.js';
import { openStorage } from '../../src/server/storage/open.js';
import type { Storage } from '../../src/server/storage/types.js';
import { importStudy } from '../../src/server/study/import.js';
import { addUser, PASSWORD } from '../../testkit/console.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../../testkit/databases.js';
import { nginxBinary, startNginx, type Nginx } from '../../testkit/nginx.js';
import { PAIR_STUDY } from '../../testkit/studies.js';

/**
 * TRUST_PROXY through a real reverse proxy (Debian's nginx, started here on a loopback port, configured as the
 * deployment of docs/data-safety.md): per-address limits key on the real client, so one client's flood leaves
 * others alone, and a forged X-Forwarded-For names nobody. Clients are told apart by their loopback source address
 * (127.0.0.x).
 */

interface Answer {
  status: number;
  body: string;
}

function send(url: string, opts: { method?: string; from: string; body?: unknown; headers?: Record<string, string> }): Promise<Answer> {
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: opts.method ?? 'GET', localAddress: opts.from, headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...opts.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

describe('TRUST_PROXY setting', () => {
  it('reads a hop count or a list of proxy addresses, and refuses anything else', () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy('0')).toBe(false);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('127.0.0.1, 10.0.0.0/8,::1')).toEqual(['127.0.0.1', '10.0.0.0/8', '::1']);
    expect(parseTrustProxy('loopback')).toEqual(['loopback']);
    expect(() => parseTrustProxy('true')).toThrow(/TRUST_PROXY must be a hop count or a comma-separated list/);
  });
});

if (!nginxBinary() && process.env.CI) {
  // .ci/run installs nginx: in CI a missing nginx is a broken machine, not a reason to skip.
  it('behind nginx: nginx is installed (CI)', () => {
    expect(nginxBinary(), 'nginx is not installed: apt-get install -y nginx-light').toBeTruthy();
  });
} else if (!nginxBinary()) {
  console.warn('\n!!! nginx is NOT installed: the reverse-proxy tests are SKIPPED (apt-get install -y nginx-light) !!!\n');
  describe.skip('behind nginx SKIPPED (nginx not installed)', () => undefined);
} else {
  describeEachDialect('behind nginx', (dialect) => {
    let database: TestDatabase | undefined;
    let storage: Storage | undefined;
    let app: FastifyInstance | undefined;
    let nginx: Nginx | undefined;

    afterEach(async () => {
      await nginx?.stop();
      await app?.close();
      await storage?.close();
      await database?.drop();
      nginx = app = storage = database = undefined;
    });

    async function serve(trustProxy: TrustProxy): Promise<string> {
      database = await createTestDatabase(dialect);
      storage = await openStorage({ databaseUrl: database.url });
      const mediaDir = join(database.dir, 'media');
      await mkdir(mediaDir, { recursive: true });
      await importStudy(storage, PAIR_STUDY, mediaDir);
      await addUser(storage, 'lead@lab.example');
      app = await buildApp({ storage, mediaDir, webDir: join(database.dir, 'web'), trustProxy });
      await app.listen({ port: 0, host: '127.0.0.1' });
      nginx = await startNginx([`127.0.0.1:${(app.server.address() as AddressInfo).port}`]);
      return nginx.url;
    }

    /** Another client's minute: 20 wrong sign-ins on the researcher's account and 300 MTurk preview playlist calls (forging X-Forwarded-For). */
    async function flood(url: string): Promise<void> {
      const forged = { 'x-forwarded-for': '127.0.0.3' };
      for (let i = 0; i < 20; i++) await send(`${url}/console/api/sign-in`, { method: 'POST', from: '127.0.0.2', body: { email: 'lead@lab.example', password: `wrong ${i}` }, headers: forged });
      const preview = `${url}/api/getrandomtasks/fixture-pair?platform=mturk&assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=H&workerId=W`;
      for (let i = 0; i < 10; i++) await Promise.all(Array.from({ length: 30 }, () => send(preview, { from: '127.0.0.2', headers: forged })));
    }

    const researcherSignIn = (url: string) => send(`${url}/console/api/sign-in`, { method: 'POST', from: '127.0.0.3', body: { email: 'lead@lab.example', password: PASSWORD } });
    const newParticipant = (url: string) => send(`${url}/api/getrandomtasks/fixture-pair?platform=prolific&PROLIFIC_PID=newcomer`, { from: '127.0.0.4' });

    it('with TRUST_PROXY=127.0.0.1, another client\'s 320 requests leave a researcher\'s sign-in and a new participant at 200', async () => {
      const url = await serve(parseTrustProxy('127.0.0.1'));
      await flood(url);
      // The flooding client itself is limited (its forged header named nobody).
      expect((await send(`${url}/api/getrandomtasks/fixture-pair?platform=mturk&assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=H&workerId=W`, { from: '127.0.0.2' })).status).toBe(429);
      expect((await researcherSignIn(url)).status).toBe(200);
      expect((await newParticipant(url)).status).toBe(200);
    }, 120_000);

    it('without it, every client has the proxy\'s address: the same flood shuts both out (429)', async () => {
      const url = await serve(false);
      await flood(url);
      expect((await researcherSignIn(url)).status).toBe(429);
      expect((await newParticipant(url)).status).toBe(429);
    }, 120_000);
  });
}
