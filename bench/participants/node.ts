/**
 * What bench:participants' rows share: a Glimpse node in its own process on an SQLite file holding the pair study
 * and one researcher, and participants rating through it (their latencies are what every row compares to idle).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openStorage } from '../../src/server/storage/open.js';
import { importStudy } from '../../src/server/study/import.js';
import { addUser } from '../../testkit/console.js';
import { countByStatus, round1, send, summary as summarise } from '../shared/measure.js';

/** The server tests' pair study (testkit/studies.ts holds the same path, but imports vitest). */
export const PAIR_STUDY = 'tests/server/fixtures/pair-study.json';
export const sessionLogsOf = (sessionToken: string) => ({ sessionToken, logStates: [{ state: 'Result', status: 'ok', time: 5 }], logMouseMovement: [], logMouseClick: [], logScroll: [], logKeyboard: [], logFocus: [], logDomSize: [] });

export const summary = (values: number[]) => {
  const { n, p50, p99, max } = summarise(values);
  return { n, p50, p99, max };
};
export const count = countByStatus;
export const round = round1;

export interface BenchNode {
  url: string;
  /** The server process (its memory is read from /proc). */
  pid: number;
  databaseUrl: string;
  mediaDir: string;
  dir: string;
  stop(): Promise<void>;
}

/** A Glimpse node in its own process (testkit/node-server.ts) on an SQLite file holding the pair study and one researcher. */
export async function startNode(env: Record<string, string>): Promise<BenchNode> {
  const dir = await mkdtemp(join(tmpdir(), 'glimpse-bench-participants-'));
  const databaseUrl = join(dir, 'bench.sqlite');
  const mediaDir = join(dir, 'media');
  await mkdir(mediaDir, { recursive: true });
  const storage = await openStorage({ databaseUrl });
  await importStudy(storage, PAIR_STUDY, mediaDir);
  await addUser(storage, 'lead@lab.example');
  await storage.close();
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', 'testkit/node-server.ts'], { env: { ...process.env, DATABASE_URL: databaseUrl, MEDIA_DIR: mediaDir, ...env }, stdio: 'pipe' });
  child.stderr.pipe(process.stderr);
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`node exited (${code})`)));
  });
  const started = JSON.parse(line) as { url: string; pid: number };
  return {
    url: started.url,
    pid: started.pid,
    databaseUrl,
    mediaDir,
    dir,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end();
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Participants rating one after another (4 at a time) until `until`, each posting a small session log after their
 * ratings, as the page does: the latency of every acknowledged rating and log.
 */
export async function participantWrites(url: string, until: () => boolean): Promise<number[] & { logs: number[] }> {
  const latencies = Object.assign([] as number[], { logs: [] as number[] });
  const one = async (lane: number) => {
    for (let n = 0; !until(); n++) {
      const playlist = await send(`${url}/api/getrandomtasks/fixture-pair?platform=prolific&PROLIFIC_PID=bench${lane}x${n}x${randomBytes(4).toString('hex')}`);
      if (playlist.status !== 200) throw new Error(`playlist: ${playlist.status} ${playlist.body}`);
      const p = JSON.parse(playlist.body) as { session_id: number; sessionToken: string; stimulis: Array<{ stimuliId: number }> };
      for (const s of p.stimulis) {
        if (until()) return;
        const answer = await send(`${url}/api/ratings/`, { method: 'POST', body: { stimuli_id: s.stimuliId, session_id: p.session_id, session_token: p.sessionToken, value: 1, nbReplay: 0, logs: null } });
        if (answer.status !== 201) throw new Error(`rating: ${answer.status} ${answer.body}`);
        latencies.push(answer.ms);
      }
      const log = await send(`${url}/api/sessionlogs/`, { method: 'POST', body: sessionLogsOf(p.sessionToken), headers: { 'glimpse-session-token': p.sessionToken } });
      if (log.status !== 201) throw new Error(`session log: ${log.status} ${log.body}`);
      latencies.logs.push(log.ms);
    }
  };
  await Promise.all([0, 1, 2, 3].map(one));
  return latencies;
}

export const deadline = (seconds: number) => {
  const end = Date.now() + seconds * 1000;
  return () => Date.now() >= end;
};
