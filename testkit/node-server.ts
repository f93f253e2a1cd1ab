/**
 * One Glimpse server process for multi-node tests and benchmarks: `tsx testkit/node-server.ts` with DATABASE_URL
 * and MEDIA_DIR set listens on a free port, prints {"url": ...} on one stdout line, and stops when stdin closes.
 * Several of them on one PostgreSQL database are the "N stateless nodes" deployment (docs/data-safety.md "Deployment on
 * several nodes"). WEB_DIR serves a built web app (bench:launch); by default an empty folder.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../src/server/start.js';

const server = await startServer({ host: '127.0.0.1', port: 0, webDir: process.env.WEB_DIR || (await mkdtemp(join(tmpdir(), 'glimpse-node-web-'))), logger: false });
process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`);
process.stdin.resume();
process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
