import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { configFromEnv } from './config.js';
import { warmConsentPdf } from './consent-pdf.js';
import { openStorage } from './storage/open.js';
import type { Storage } from './storage/types.js';
import { importStudy, type ImportReport } from './study/import.js';
import { buildWebApp, webBuildIsStale } from './web-build.js';
import { participantLinks, reachableBase } from './playlist-links.js';
import { userCount } from './storage/users.js';

export interface StartOptions {
  host?: string;
  /** 0 = a random free port. */
  port?: number;
  databaseUrl?: string;
  mediaDir?: string;
  mediaBaseUrl?: string;
  webDir?: string;
  /** Study files imported (and their media copied) before listening. */
  studies?: string[];
  /** Developer answer of the acuity test (default: env ACUITY_BYPASS); null = no bypass even if the env sets one. */
  acuityBypass?: string | null;
  /** Key of signed playlist links (default: env LINK_SECRET). */
  linkSecret?: string | null;
  logger?: boolean;
  /** Send the web build's brotli/gzip copies (default true; bench:timing turns it off for its baseline). */
  precompressedWeb?: boolean;
}

export interface RunningServer {
  url: string;
  app: FastifyInstance;
  storage: Storage;
  /** Import reports of `studies`, in order. */
  imported: ImportReport[];
  close(): Promise<void>;
}

/** Opens (and migrates) the database, imports the given studies, and listens. Options override the environment. */
export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const env = configFromEnv();
  const host = opts.host ?? env.host;
  const mediaDir = resolve(opts.mediaDir ?? env.mediaDir);
  await mkdir(mediaDir, { recursive: true });
  const storage = await openStorage({ databaseUrl: opts.databaseUrl ?? env.databaseUrl, sqliteSynchronous: env.sqliteSynchronous });
  try {
    const imported: ImportReport[] = [];
    for (const study of opts.studies ?? []) imported.push(await importStudy(storage, study, mediaDir));
    const app = await buildApp({
      storage,
      mediaDir,
      mediaBaseUrl: (opts.mediaBaseUrl ?? env.mediaBaseUrl).replace(/\/+$/, ''),
      webDir: resolve(opts.webDir ?? env.webDir),
      sessionLeaseMinutes: env.sessionLeaseMinutes,
      acuityBypass: opts.acuityBypass === undefined ? env.acuityBypass : opts.acuityBypass,
      linkSecret: opts.linkSecret === undefined ? env.linkSecret : opts.linkSecret,
      rateLimits: env.rateLimits,
      publicUrl: process.env.PUBLIC_URL || null,
      requestTimeoutMs: env.requestTimeoutMs,
      trustProxy: env.trustProxy,
      logger: opts.logger ?? false,
      precompressedWeb: opts.precompressedWeb,
    });
    await warmConsentPdf();
    // The event loop's validators of small logs compile now (about 100 ms), not on a participant's first log.
    app.jsonPool.warm();
    await app.listen({ host, port: opts.port ?? env.port });
    const { port } = app.server.address() as { port: number };
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    return {
      url,
      app,
      storage,
      imported,
      async close() {
        await app.close();
        await storage.close();
      },
    };
  } catch (error) {
    await storage.close();
    throw error;
  }
}

/** The demo study written for the lab (studies/demo-lab-pvid.json: French texts), and the e-mail its link shows. */
export const LAB_DEMO_JOB = 'demo-lab-pvid';
export const EXAMPLE_LAB_EMAIL = 'participant@lab.example';

/**
 * What `npm start` prints: the address, the console's and how to create its first account (when there is none),
 * one participant link per study, and one lab (French) link, with an example e-mail, to try the lab's flow.
 */
export async function startupLines(server: RunningServer, publicUrl: string | null): Promise<string[]> {
  const { port } = server.app.server.address() as { port: number };
  const host = new URL(server.url).hostname.replace(/^\[|\]$/g, '');
  const base = (publicUrl || reachableBase(host, port)).replace(/\/+$/, '');
  const lines = [`Glimpse ${server.url} (database: ${server.storage.dialect})`, '', `Researcher console: ${base}/console`];
  if ((await userCount(server.storage)) === 0) {
    lines.push('  No account yet. Create the first (it administers every study; the password is asked for):', '    npm run cli -- user add you@example.org');
  }
  lines.push('', 'Participant links (Prolific wording; the console gives each platform\'s link):');
  for (const r of server.imported) lines.push(`  ${r.protocol.padEnd(40)} ${base}/${r.route}/${r.jobId}`);
  if (server.imported.length === 0) lines.push('  no study in studies/: import one with npm run cli -- import <study.json>');
  // The lab demo (French study texts) when imported, else the first study; with an e-mail, so the link shows the
  // lab's whole flow, its consent form included (SPEC §4: only a lab link with email= has it).
  const lab = server.imported.find((r) => r.jobId === LAB_DEMO_JOB) ?? server.imported[0];
  if (lab) {
    lines.push('', "Lab participant (French wording and consent form; each participant's own e-mail goes in email=):");
    lines.push(`  ${participantLinks(base, lab.route, lab.jobId).lab}${EXAMPLE_LAB_EMAIL}`);
  }
  return lines;
}

/** npm start: build the web app if stale, make the demo media, import studies/*.json, listen, print the links. */
async function main(): Promise<void> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const env = configFromEnv();
  if (await webBuildIsStale(root, env.webDir)) {
    console.log('Building the web app (vite build)...');
    await buildWebApp(root);
  }
  const studiesDir = join(root, 'studies');
  const demoModule = join(root, 'scripts/demo/index.ts');
  if (existsSync(demoModule) && existsSync(studiesDir)) {
    const { ensureDemoMedia } = (await import(pathToFileURL(demoModule).href)) as { ensureDemoMedia(dir: string): Promise<void> };
    await ensureDemoMedia(studiesDir);
  }
  const studies = existsSync(studiesDir)
    ? (await readdir(studiesDir)).filter((f) => f.endsWith('.json')).sort().map((f) => join(studiesDir, f))
    : [];
  const server = await startServer({ studies, logger: process.env.LOG_REQUESTS === '1' });
  for (const line of await startupLines(server, process.env.PUBLIC_URL || null)) console.log(line);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
