/**
 * A benchmark target, run as its own process so the load generator (run.ts) never shares its event loop:
 *   tsx bench/api/target.ts bare                         a bare node:http server answering 200
 *   tsx bench/api/target.ts glimpse <databaseUrl>        the Glimpse server with a prepared rating study
 *   tsx bench/api/target.ts join <databaseUrl> <node>    another node on the same database (the study is there)
 * Prints one JSON line {url, sessions, stimuli} when ready: SESSIONS sessions of STIMULI stimuli each, so that
 * every request of a run can answer a presentation not answered yet (one answer per presentation). Reads commands on stdin: "count" prints
 * {ratings, cpuUs} (rows committed in the database, CPU time used by this process so far); end of stdin closes
 * the server and exits.
 */
import { createServer } from 'node:http';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { startServer } from '../../src/server/start.js';
import { jobFields } from '../../testkit/job-fields.js';
import { countRows } from '../../testkit/rows.js';

export const SESSIONS = 2000;
export const STIMULI = 300;
const FIXTURE_MEDIA = resolve('tests/server/fixtures/media');

async function bare(): Promise<void> {
  const server = createServer((req, res) => {
    // Read the body like a real endpoint would, then answer.
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}`, sessions: [], stimuli: [] }));
  await commands({ count: async () => ({ ratings: 0 }), close: async () => void server.close() });
}

async function glimpse(databaseUrl: string, node: number | null): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'glimpse-bench-'));
  const study = join(dir, 'bench-study.json');
  // The first node imports the study; the others join the database where it already is.
  if (node === null) {
    // The importer takes media only from inside the study's folder: the fixture images are copied next to it.
    await cp(FIXTURE_MEDIA, join(dir, 'study-media'), { recursive: true });
    await writeFile(
      study,
      JSON.stringify({
        id: 'bench',
        media: 'study-media',
        job: jobFields('pair_comparison'),
        playlists: [{ stimuli: Array.from({ length: STIMULI }, (_, i) => ({ sourceA: 'red.png', sourceB: 'green.png', reversed: i % 2 === 1 })) }],
      }),
    );
  }
  const server = await startServer({ host: '127.0.0.1', port: 0, databaseUrl, mediaDir: join(dir, 'media'), webDir: join(dir, 'web'), studies: node === null ? [study] : [] });
  const sessions: Array<{ id: number; token: string }> = [];
  let stimuli: number[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const p = (await (await fetch(`${server.url}/api/getrandomtasks/bench?platform=prolific&PROLIFIC_PID=bench${node ?? 0}x${i}`)).json()) as {
      session_id: number;
      sessionToken: string;
      stimulis: Array<{ stimuliId: number }>;
    };
    sessions.push({ id: p.session_id, token: p.sessionToken });
    stimuli = p.stimulis.map((s) => s.stimuliId);
  }
  console.log(JSON.stringify({ url: server.url, dialect: server.storage.dialect, sessions, stimuli }));
  await commands({
    count: async () => {
      return { ratings: await countRows(server.storage, 'ratings') };
    },
    close: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  });
}

async function commands(handlers: { count(): Promise<object>; close(): Promise<void> }): Promise<void> {
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() !== 'count') continue;
    const { user, system } = process.cpuUsage();
    console.log(JSON.stringify({ ...(await handlers.count()), cpuUs: user + system }));
  }
  await handlers.close();
  process.exit(0);
}

const [mode, databaseUrl, node] = process.argv.slice(2);
(mode === 'bare' ? bare() : glimpse(databaseUrl, mode === 'join' ? Number(node) : null)).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
