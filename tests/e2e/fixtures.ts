/**
 * Playwright fixtures for Glimpse journeys: one real server per worker (SQLite file + media folder in a fresh
 * temporary directory, the e2e studies of tests/e2e/studies imported, dist/web served), and a unique participant
 * per test so tests sharing that database never see each other's sessions (nor ALREADY_COMPLETED).
 *
 *   import { test, expect, E2E_JOBS } from './fixtures';
 *   test('...', async ({ page, glimpse, participant }) => {
 *     await page.goto(participant.linkTo(E2E_JOBS.pair_comparison));
 *     ...
 *     const session = await participant.session(E2E_JOBS.pair_comparison);
 *     const ratings = await glimpse.db.selectFrom('ratings').selectAll().where('session_id', '=', session!.id).execute();
 *   });
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test as base, expect } from '@playwright/test';
import { PROTOCOLS, type Protocol } from '../../src/protocols/registry.js';
import type { StudyFile } from '../../src/contract/study.js';
import { ensureDemoMedia } from '../../scripts/demo/index.js';
import { startServer, type RunningServer } from '../../src/server/start.js';
import type { Db, SessionRow, Storage } from '../../src/server/storage/types.js';

export { expect };

export const E2E_STUDIES_DIR = resolve('tests/e2e/studies');
const WEB_DIR = resolve('dist/web');

/** The study files of a folder, parsed: job id -> protocol. */
function studiesIn(dir: string): ReadonlyArray<{ file: string; id: string; protocol: Protocol }> {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => {
      const study = JSON.parse(readFileSync(join(dir, name), 'utf8')) as StudyFile;
      return { file: join(dir, name), id: study.id, protocol: study.job.subjectiveProtocol as Protocol };
    });
}

/** The e2e study files, parsed: job id -> protocol. */
export const E2E_STUDIES = studiesIn(E2E_STUDIES_DIR);

/** The demo studies that `npm start` imports (studies/), for journeys on them (demo-studies-3d.spec.ts). */
export const DEMO_STUDIES_DIR = resolve('studies');
export const DEMO_STUDIES = studiesIn(DEMO_STUDIES_DIR);

/** The image-based e2e job of each protocol (pair_comparison: the side-by-side image pair study). */
export const E2E_JOBS = {
  pair_comparison: 'e2e-pvid',
  absolute_category_rating: 'e2e-acr',
  double_stimulus_impairment_scale: 'e2e-dsis',
  acceptability_annoyance: 'e2e-accann',
  maximum_likelihood_difference_scaling: 'e2e-mlds',
  triplet: 'e2e-triplet',
  mlds_pair: 'e2e-mlds-pair',
  bubble: 'e2e-bubble',
  piiface: 'e2e-piiface',
} as const satisfies Record<Protocol, string>;
/** Extra e2e jobs: pair comparison of two 1-second videos side by side (categoryTest 3). */
export const E2E_VIDEO_PAIR_JOB = 'e2e-pvid-video';

/** Console lines that are defects: PixiJS's own warnings ("[BindGroup] ...", "PixiJS Warning: ...") and CSP refusals. */
export function isPageDefect(text: string): boolean {
  return /PixiJS|\[BindGroup\]|\[Pixi|Content Security Policy|Refused to (load|execute|apply|connect|frame)/i.test(text);
}

export interface GlimpseServer {
  /** http://127.0.0.1:{port}; also the tests' baseURL, so page.goto('/pvid/e2e-pvid') works. */
  url: string;
  /** The server's SQLite file (the CLI's DATABASE_URL). */
  databaseUrl: string;
  /** Kysely over the server's SQLite file: assert what was stored. */
  db: Db;
  storage: Storage;
  server: RunningServer;
  /** Where the server copied the imported media ({mediaDir}/{jobId}/...). */
  mediaDir: string;
}

export interface Participant {
  /** PROLIFIC_PID of this test (unique per test). */
  pid: string;
  /** Participant link of a job: /{route}/{jobId}?platform=prolific&PROLIFIC_PID=..&STUDY_ID=..&SESSION_ID=.. + `query`. */
  linkTo(jobId: string, query?: Record<string, string>): string;
  /** The session this participant opened on the job (matched by PROLIFIC_PID), or undefined when none. */
  session(jobId: string): Promise<SessionRow | undefined>;
}

function protocolOf(jobId: string): Protocol {
  const study = E2E_STUDIES.find((s) => s.id === jobId) ?? DEMO_STUDIES.find((s) => s.id === jobId);
  if (!study) throw new Error(`no e2e study with id ${jobId} in ${E2E_STUDIES_DIR} nor ${DEMO_STUDIES_DIR}`);
  return study.protocol;
}

/**
 * A real server for one worker: a fresh SQLite file and media folder in a temporary directory, the demo media of
 * `studiesDir` made (only those of `studies`), `studies` imported, dist/web served; closed and removed after `use`.
 */
export async function runGlimpseServer(studiesDir: string, studies: readonly string[], use: (server: GlimpseServer) => Promise<void>): Promise<void> {
  if (!existsSync(join(WEB_DIR, 'index.html'))) {
    throw new Error(`${WEB_DIR}/index.html is missing: build the web app first (npm run build, or npm run test:e2e which does it)`);
  }
  const tempDir = mkdtempSync(join(tmpdir(), 'glimpse-e2e-'));
  const mediaDir = join(tempDir, 'media');
  await ensureDemoMedia(studiesDir, { studies });
  const databaseUrl = join(tempDir, 'glimpse-e2e.db');
  const server = await startServer({ host: '127.0.0.1', port: 0, databaseUrl, mediaDir, mediaBaseUrl: '', webDir: WEB_DIR, studies: [...studies], logger: false });
  try {
    await use({ url: server.url, databaseUrl, db: server.storage.db, storage: server.storage, server, mediaDir });
  } finally {
    await server.close();
    rmSync(tempDir, { recursive: true, force: true });
  }
}

export const test = base.extend<{ participant: Participant }, { glimpse: GlimpseServer }>({
  glimpse: [
    async ({}, use) => {
      await runGlimpseServer(E2E_STUDIES_DIR, E2E_STUDIES.map((s) => s.file), use);
    },
    { scope: 'worker', timeout: 120_000 },
  ],

  baseURL: async ({ glimpse }, use) => {
    await use(glimpse.url);
  },

  // Every journey fails when the page logs a PixiJS warning or a Content-Security-Policy violation: both are
  // defects a participant never sees and a researcher would never hear about.
  page: async ({ page }, use) => {
    const defects: string[] = [];
    page.on('console', (message) => {
      const text = message.text();
      if (isPageDefect(text)) defects.push(`${message.type()}: ${text}`);
    });
    // An uncaught exception is a defect too (a blocked eval once left every stage on "Loading stimuli").
    page.on('pageerror', (error) => defects.push(`uncaught: ${error.message}`));
    await use(page);
    expect(defects, 'PixiJS warnings, CSP violations or uncaught exceptions of the page').toEqual([]);
  },

  participant: async ({ glimpse }, use) => {
    const pid = `e2e${randomUUID().replace(/-/g, '').slice(0, 21)}`;
    await use({
      pid,
      linkTo(jobId, query = {}) {
        const params = new URLSearchParams({ platform: 'prolific', PROLIFIC_PID: pid, STUDY_ID: 'e2e-study', SESSION_ID: `s-${pid}`, ...query });
        return `/${PROTOCOLS[protocolOf(jobId)].route}/${jobId}?${params}`;
      },
      async session(jobId) {
        return glimpse.db
          .selectFrom('sessions')
          .innerJoin('session_identities', 'session_identities.session_id', 'sessions.id')
          .selectAll('sessions')
          .where('sessions.job_id', '=', jobId)
          .where('session_identities.prolific_pid', '=', pid)
          .orderBy('sessions.id', 'desc')
          .executeTakeFirst();
      },
    });
  },
});
