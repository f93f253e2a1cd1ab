import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach } from 'vitest';
import { runCli } from '../src/server/cli.js';
import type { ServerContext } from './server.js';

/** Runs the CLI in-process (against DATABASE_URL / MEDIA_DIR of process.env); returns exit code and what it printed. */
export async function cli(args: string[], input = ''): Promise<{ code: number; out: string; err: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks = { out: [] as Buffer[], err: [] as Buffer[] };
  out.on('data', (c: Buffer) => chunks.out.push(c));
  err.on('data', (c: Buffer) => chunks.err.push(c));
  const code = await runCli(args, { out, err, in: Readable.from([input]) });
  return { code, out: Buffer.concat(chunks.out).toString(), err: Buffer.concat(chunks.err).toString() };
}

/** Points the CLI at the test's database and media store (and a fixed PUBLIC_URL) for each test; restores the env after. */
export function useCliEnvironment(ctx: () => ServerContext): void {
  const saved = { ...process.env };
  beforeEach(() => {
    process.env.DATABASE_URL = ctx().database.url;
    process.env.MEDIA_DIR = ctx().mediaDir;
    process.env.PUBLIC_URL = 'https://glimpse.example.org';
  });
  afterEach(() => {
    process.env = { ...saved };
  });
}
