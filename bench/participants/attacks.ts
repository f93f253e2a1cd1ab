/**
 * bench:participants rows of issue 34 (security round 4): what the fourth probe did to participants, run against a
 * node in its own process, each compared with an idle run of the same node in the same script:
 * - 50 anonymous 12 MiB rating bodies at once, in LARGE_BODY_WAVES waves;
 * - 200 slow senders of 8 MiB session logs (each with its own session's token);
 * - `cli import` of a large study beside the running server, then the same study again (unchanged);
 * - the same study uploaded in the console, twice.
 * Each row gives participants' rating and session-log p99 against idle, and the server's resident memory (RSS)
 * before, at its peak and after.
 */
import { spawn } from 'node:child_process';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { quantile, send, sleep } from '../shared/measure.js';
import { multipartBody, PASSWORD, zipFolder } from '../../testkit/console.js';
import { count, deadline, PAIR_STUDY, participantWrites, round, startNode, summary, type BenchNode } from './node.js';

const IDLE_S = 6;
const MiB = 1024 * 1024;
/** Stimuli of the imported study (the probe's was 1,000,000: BENCH_IMPORT_STIMULI=1000000). */
const IMPORT_STIMULI = Number(process.env.BENCH_IMPORT_STIMULI ?? 300_000);

/** The server's resident memory, MB (Linux). */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
}

/** Samples the server's RSS every 100 ms until stopped: its peak. */
function rssPeak(pid: number): { stop(): Promise<number> } {
  let peak = 0;
  let running = true;
  const sampling = (async () => {
    while (running) {
      peak = Math.max(peak, await rssMb(pid));
      await sleep(100);
    }
  })();
  return {
    async stop() {
      running = false;
      await sampling;
      return peak;
    },
  };
}

/** Participants' writes while `attack` runs, against an idle run first; with the server's memory around it. */
async function underAttack<T>(node: BenchNode, attack: () => Promise<T>) {
  const idle = await participantWrites(node.url, deadline(IDLE_S));
  const rssBefore = await rssMb(node.pid);
  const peak = rssPeak(node.pid);
  let attackDone = false;
  const during = participantWrites(node.url, () => attackDone);
  const outcome = await attack().finally(() => (attackDone = true));
  const loaded = await during;
  const rssPeakMb = await peak.stop();
  // Memory given back: a few seconds after, the collectors have run.
  await sleep(5000);
  const ratio = (a: number[], b: number[]) => round(quantile(a, 0.99) / quantile(b, 0.99));
  return {
    idle: { ratings: summary(idle), logs: summary(idle.logs) },
    during: { ratings: summary(loaded), logs: summary(loaded.logs) },
    p99Ratio: { ratings: ratio(loaded, idle), logs: ratio(loaded.logs, idle.logs) },
    rssMb: { before: rssBefore, peak: rssPeakMb, after: await rssMb(node.pid) },
    outcome,
  };
}

/** Runs the attacking clients in their own process (attacker.mjs); resolves with the statuses they got. */
function attackers(args: Array<string | number>): Promise<number[]> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['bench/participants/attacker.mjs', ...args.map(String)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.once('exit', (code) => (code === 0 ? done(JSON.parse(out) as number[]) : fail(new Error(`attackers exited with ${code}`))));
  });
}

const answersOf = (statuses: number[]) => count(statuses.map((status) => ({ status })));

/**
 * Waves of 50 anonymous 12 MiB bodies. 3 waves took about 2 s: participants' p99 over that time (72 ratings) was
 * their maximum; 10 give a p99 of a few hundred.
 */
const LARGE_BODY_WAVES = 10;

/** LARGE_BODY_WAVES waves of 50 anonymous 12 MiB rating bodies at once (no session token). */
async function anonymousLargeBodies() {
  const node = await startNode({ RATE_LIMIT_SESSIONS_PER_MINUTE: '0', RATE_LIMIT_ANSWERS_PER_MINUTE: '0' });
  try {
    return await underAttack(node, async () => {
      const statuses = await attackers([node.url, '/api/ratings/', 12 * MiB - 1024, 'fast', LARGE_BODY_WAVES, 50, 0]);
      // 0: the connection was closed before the answer was read (the server refused the body unread).
      return { bodies: statuses.length, answers: answersOf(statuses) };
    });
  } finally {
    await node.stop();
  }
}

/** 200 sessions each sending an 8 MiB session log slowly, for 15 s. */
async function slowSenders() {
  const node = await startNode({ RATE_LIMIT_SESSIONS_PER_MINUTE: '0', RATE_LIMIT_ANSWERS_PER_MINUTE: '0' });
  try {
    const tokens: string[] = [];
    for (let i = 0; i < 200; i++) {
      const playlist = await send(`${node.url}/api/getrandomtasks/fixture-pair?platform=prolific&PROLIFIC_PID=slow${i}`);
      tokens.push((JSON.parse(playlist.body) as { sessionToken: string }).sessionToken);
    }
    return await underAttack(node, async () => {
      const statuses = await attackers([node.url, '/api/sessionlogs/', 8 * MiB, 'slow', 1, 0, 15, ...tokens]);
      // -1: still sending when stopped (admitted to the budget); 503: refused at once.
      return { senders: statuses.length, answers: answersOf(statuses) };
    });
  } finally {
    await node.stop();
  }
}

/** A study of IMPORT_STIMULI pair stimuli, with its media, in `folder` (study.json and study-media/). */
async function largeStudy(folder: string, id: string): Promise<string> {
  const images = ['red.png', 'green.png', 'blue.png', 'yellow.png'];
  const perPlaylist = 10_000;
  const playlists = Array.from({ length: Math.ceil(IMPORT_STIMULI / perPlaylist) }, (_, n) => ({
    stimuli: Array.from({ length: Math.min(perPlaylist, IMPORT_STIMULI - n * perPlaylist) }, (_, i) => ({ sourceA: images[(i + n) % 4]!, sourceB: images[(i + n + 1) % 4]! })),
  }));
  const pair = JSON.parse(await readFile(PAIR_STUDY, 'utf8')) as { job: unknown };
  await mkdir(folder, { recursive: true });
  await cp(resolve(dirname(PAIR_STUDY), 'media'), join(folder, 'study-media'), { recursive: true });
  const file = join(folder, 'study.json');
  await writeFile(file, JSON.stringify({ id, job: pair.job, media: 'study-media', playlists }));
  return file;
}

/** `cli import` of a study of IMPORT_STIMULI stimuli beside the running server, then the same file again. */
async function cliImport() {
  const node = await startNode({ RATE_LIMIT_SESSIONS_PER_MINUTE: '0', RATE_LIMIT_ANSWERS_PER_MINUTE: '0' });
  try {
    const file = await largeStudy(join(node.dir, 'large'), 'large');
    const runImport = () =>
      new Promise<{ code: number | null; seconds: number }>((done) => {
        const started = performance.now();
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/cli.ts', 'import', file], { env: { ...process.env, DATABASE_URL: node.databaseUrl, MEDIA_DIR: node.mediaDir }, stdio: ['ignore', 'ignore', 'inherit'] });
        child.once('exit', (code) => done({ code, seconds: round((performance.now() - started) / 1000) }));
      });
    const first = await underAttack(node, runImport);
    const again = await underAttack(node, runImport);
    return { stimuli: IMPORT_STIMULI, created: first, unchanged: again };
  } finally {
    await node.stop();
  }
}

/** The same study uploaded as a zip in the console, into the running server (its study.json parsed off the loop). */
async function consoleUpload() {
  const node = await startNode({ RATE_LIMIT_SESSIONS_PER_MINUTE: '0', RATE_LIMIT_ANSWERS_PER_MINUTE: '0' });
  try {
    const folder = join(node.dir, 'upload');
    await largeStudy(folder, 'uploaded');
    const zip = await zipFolder(folder);
    const signIn = await send(`${node.url}/console/api/sign-in`, { method: 'POST', body: { email: 'lead@lab.example', password: PASSWORD } });
    if (signIn.status !== 200) throw new Error(`sign-in: ${signIn.status} ${signIn.body}`);
    const headers = { cookie: signIn.cookies.join('; '), 'x-csrf-token': (JSON.parse(signIn.body) as { csrfToken: string }).csrfToken };
    const upload = async () => {
      const { payload, contentType } = multipartBody(zip);
      const answer = await send(`${node.url}/console/api/import`, { method: 'POST', body: payload, headers: { ...headers, 'content-type': contentType } });
      if (answer.status !== 200) throw new Error(`upload: ${answer.status} ${answer.body.slice(0, 300)}`);
      return { status: answer.status, seconds: round(answer.ms / 1000), zipMb: round(zip.length / MiB) };
    };
    return { stimuli: IMPORT_STIMULI, created: await underAttack(node, upload), unchanged: await underAttack(node, upload) };
  } finally {
    await node.stop();
  }
}

/** The rows, each printed as a table line too. */
export async function attackRows(step: <T>(name: string, run: () => Promise<T>) => Promise<T>) {
  return {
    anonymousLargeBodies: await step(`50 anonymous 12 MiB bodies x ${LARGE_BODY_WAVES}`, anonymousLargeBodies),
    slowSenders: await step('200 slow senders', slowSenders),
    cliImport: await step(`cli import of ${IMPORT_STIMULI} stimuli`, cliImport),
    consoleUpload: await step(`console upload of ${IMPORT_STIMULI} stimuli`, consoleUpload),
  };
}

type Row = Awaited<ReturnType<typeof underAttack>>;
const describe = (row: Row) =>
  `ratings p99 ${row.during.ratings.p99} ms vs ${row.idle.ratings.p99} idle (× ${row.p99Ratio.ratings}); logs p99 ${row.during.logs.p99} vs ${row.idle.logs.p99} (× ${row.p99Ratio.logs}); RSS ${row.rssMb.before} → peak ${row.rssMb.peak} → ${row.rssMb.after} MB`;

export function attackTable(rows: Awaited<ReturnType<typeof attackRows>>): string {
  const { anonymousLargeBodies: a, slowSenders: s, cliImport: c, consoleUpload: u } = rows;
  return [
    `| ${LARGE_BODY_WAVES} × 50 anonymous 12 MiB rating bodies at once | ${describe(a)}; answers ${JSON.stringify(a.outcome.answers)} |`,
    `| 200 slow senders of 8 MiB session logs, 15 s | ${describe(s)}; answers ${JSON.stringify(s.outcome.answers)} (-1: admitted, still sending) |`,
    `| \`cli import\` of ${c.stimuli} stimuli beside the server (${c.created.outcome.seconds} s) | ${describe(c.created)} |`,
    `| the same import again, unchanged (${c.unchanged.outcome.seconds} s) | ${describe(c.unchanged)} |`,
    `| the same study uploaded in the console, a ${u.created.outcome.zipMb} MiB zip (${u.created.outcome.seconds} s) | ${describe(u.created)} |`,
    `| the same upload again, unchanged (${u.unchanged.outcome.seconds} s) | ${describe(u.unchanged)} |`,
  ].join('\n');
}
