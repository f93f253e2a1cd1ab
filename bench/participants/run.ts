/**
 * npm run bench:participants — issue 25's figures (docs/benchmarks.md): nothing anonymous, no sign-in flood and no
 * proxy slows or blocks a participant. Latency figures run against a separate server process (SQLite, DURABLE) and
 * are given as ratios to an idle run measured in the same script; the lock, revocation, first-administrator and
 * quota figures run in-process (they count password checks and rows). Not in CI. Writes bench/results/participants.json.
 *
 *   npm run bench:participants            # about 2 minutes; BENCH_FLOOD_S=32 spreads the 600 sign-ins as the probe did
 */
import { request as httpRequest } from 'node:http';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/server/app.js';
import { passwordPool } from '../../src/server/console/passwords.js';
import { openStorage } from '../../src/server/storage/open.js';
import type { Storage } from '../../src/server/storage/types.js';
import { createUser, removeUser } from '../../src/server/storage/users.js';
import { importStudy } from '../../src/server/study/import.js';
import { addUser, PASSWORD } from '../../testkit/console.js';
import { attackRows, attackTable } from './attacks.js';
import { count, deadline, PAIR_STUDY, participantWrites, round, sessionLogsOf, startNode, summary } from './node.js';
import { nginxBinary, startNginx } from '../../testkit/nginx.js';
import { createPgSchema } from '../../testkit/pg-schema.js';
import { countRows } from '../../testkit/rows.js';
import { quantile, send, sleep, type Answer } from '../shared/measure.js';
import { writeBenchResult } from '../shared/run-stamp.js';

const FLOOD_S = Number(process.env.BENCH_FLOOD_S ?? 20);
const IDLE_S = 6;

/** /meta.json every 10 ms until `until`. */
async function metaProbe(url: string, until: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  while (!until()) {
    latencies.push((await send(`${url}/meta.json`)).ms);
    await sleep(10);
  }
  return latencies;
}

async function signInFlood() {
  const node = await startNode({ RATE_LIMIT_SESSIONS_PER_MINUTE: '0', RATE_LIMIT_ANSWERS_PER_MINUTE: '0' });
  try {
    // The researcher's browser signed in before (its device cookie): their sign-ins alone, then during the flood.
    const researcher = async () => {
      const res = await send(`${node.url}/console/api/sign-in`, { method: 'POST', from: '127.0.2.1', headers: browser ? { cookie: browser } : {}, body: { email: 'lead@lab.example', password: PASSWORD } });
      if (res.status !== 200) throw new Error(`researcher sign-in: ${res.status} ${res.body}`);
      return res;
    };
    let browser = '';
    browser = (await researcher()).cookies.find((c) => c.startsWith('glimpse_browser='))!;
    const researcherAlone: number[] = [];
    for (let i = 0; i < 5; i++) researcherAlone.push((await researcher()).ms);
    const idle = await participantWrites(node.url, deadline(IDLE_S));
    // 600 sign-ins of unknown e-mails (each checked: nothing tells unknown from known), 30 addresses x 20 (within the
    // per-address limit), spread over FLOOD_S seconds.
    const answers: Promise<Answer>[] = [];
    const flood = (async () => {
      for (let i = 0; i < 600; i++) {
        answers.push(send(`${node.url}/console/api/sign-in`, { method: 'POST', from: `127.0.1.${1 + (i % 30)}`, body: { email: `nobody${i}@x.example`, password: `guess ${i}` } }));
        await sleep((FLOOD_S * 1000) / 600);
      }
    })();
    let floodDone = false;
    const during = participantWrites(node.url, () => floodDone);
    const researcherDuring: number[] = [];
    for (let i = 0; i < 5; i++) {
      await sleep((FLOOD_S * 1000) / 6);
      researcherDuring.push((await researcher()).ms);
    }
    await flood;
    const signIns = await Promise.all(answers);
    floodDone = true;
    const loaded = await during;
    return {
      idle: summary(idle),
      flood: summary(loaded),
      p99Ratio: round(quantile(loaded, 0.99) / quantile(idle, 0.99)),
      signIns: count(signIns),
      researcherSignInMs: { alone: summary(researcherAlone), duringFlood: summary(researcherDuring) },
    };
  } finally {
    await node.stop();
  }
}

async function junkBodies() {
  const node = await startNode({ RATE_LIMIT_SESSIONS_PER_MINUTE: '0', RATE_LIMIT_ANSWERS_PER_MINUTE: '0' });
  try {
    const junk: Record<string, unknown> = { stimuli_id: 1, session_id: 1, session_token: 'x'.repeat(32), value: 1, nbReplay: 0, logs: null };
    for (let i = 0; i < 45_000; i++) junk[`k${i}`] = 0;
    const body = JSON.stringify(junk);
    const idle = await metaProbe(node.url, deadline(3));
    let done = false;
    const probe = metaProbe(node.url, () => done);
    const answers: Answer[] = [];
    for (let r = 0; r < 3; r++) answers.push(...(await Promise.all(Array.from({ length: 20 }, () => send(`${node.url}/api/ratings/`, { method: 'POST', body })))));
    done = true;
    const loaded = await probe;
    return { bodyBytes: body.length, idle: summary(idle), during: summary(loaded), answers: count(answers) };
  } finally {
    await node.stop();
  }
}

async function throughNginx(trustProxy: boolean) {
  const node = await startNode(trustProxy ? { TRUST_PROXY: '127.0.0.1' } : {});
  const nginx = await startNginx([node.url.replace('http://', '')]);
  try {
    const started = Date.now();
    const flood: Answer[] = [];
    for (let i = 0; i < 20; i++) flood.push(await send(`${nginx.url}/console/api/sign-in`, { method: 'POST', from: '127.0.0.2', body: { email: 'lead@lab.example', password: `wrong ${i}` } }));
    const preview = `${nginx.url}/api/getrandomtasks/fixture-pair?platform=mturk&assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=H&workerId=W`;
    for (let i = 0; i < 10; i++) flood.push(...(await Promise.all(Array.from({ length: 30 }, () => send(preview, { from: '127.0.0.2', headers: { 'x-forwarded-for': '203.0.113.1' } })))));
    const researcher = await send(`${nginx.url}/console/api/sign-in`, { method: 'POST', from: '127.0.0.3', body: { email: 'lead@lab.example', password: PASSWORD } });
    const participant = await send(`${nginx.url}/api/getrandomtasks/fixture-pair?platform=prolific&PROLIFIC_PID=newcomer`, { from: '127.0.0.4' });
    return { floodRequests: flood.length, floodSeconds: round((Date.now() - started) / 1000), flood: count(flood), researcherSignIn: researcher.status, newParticipantPlaylist: participant.status };
  } finally {
    await nginx.stop();
    await node.stop();
  }
}

/** An app in this process on a fresh database (SQLite file or PostgreSQL schema). */
async function inProcess(dialect: 'sqlite' | 'postgres') {
  const dir = await mkdtemp(join(tmpdir(), 'glimpse-bench-participants-'));
  const pg = dialect === 'postgres' ? await createPgSchema('glimpse_bench') : null;
  const storage: Storage = await openStorage({ databaseUrl: pg?.url ?? join(dir, 'bench.sqlite') });
  await mkdir(join(dir, 'media'), { recursive: true });
  await importStudy(storage, PAIR_STUDY, join(dir, 'media'));
  const app = await buildApp({ storage, mediaDir: join(dir, 'media'), webDir: dir, rateLimits: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    url,
    storage,
    async close() {
      await app.close();
      await storage.close();
      await pg?.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function lockRace() {
  const s = await inProcess('sqlite');
  try {
    await addUser(s.storage, 'lead@lab.example');
    const before = passwordPool.derived;
    const passwords = [...Array.from({ length: 19 }, (_, i) => `wrong ${i}`), PASSWORD];
    const answers = await Promise.all(passwords.map((password) => send(`${s.url}/console/api/sign-in`, { method: 'POST', body: { email: 'lead@lab.example', password } })));
    return { attempts: 20, passwordChecks: passwordPool.derived - before, rightOne: answers[19]!.status, sameAnswerAsAWrongOne: answers[19]!.body === answers[0]!.body };
  } finally {
    await s.close();
  }
}

async function streamAfterSignOut() {
  const s = await inProcess('sqlite');
  try {
    await addUser(s.storage, 'lead@lab.example');
    const signIn = await send(`${s.url}/console/api/sign-in`, { method: 'POST', body: { email: 'lead@lab.example', password: PASSWORD } });
    const cookie = signIn.cookie!;
    const csrf = (JSON.parse(signIn.body) as { csrfToken: string }).csrfToken;
    return await new Promise<{ statsBeforeSignOut: number; statsAfterSignOut: number; ended: boolean }>((resolve) => {
      let before = 0;
      let after = 0;
      let signedOut = false;
      const stream = httpRequest(`${s.url}/console/api/jobs/fixture-pair/events`, { headers: { cookie } }, (events) => {
        events.setEncoding('utf8');
        events.on('data', (chunk: string) => {
          const n = (chunk.match(/^event: stats$/gm) ?? []).length;
          if (signedOut) after += n;
          else before += n;
          if (signedOut || before === 0) return;
          signedOut = true;
          void (async () => {
            await send(`${s.url}/console/api/sign-out`, { method: 'POST', headers: { cookie, 'x-csrf-token': csrf } });
            // The statistics change: a stream still open would send them.
            await send(`${s.url}/api/getrandomtasks/fixture-pair?platform=prolific&PROLIFIC_PID=after`);
          })();
        });
        events.on('end', () => resolve({ statsBeforeSignOut: before, statsAfterSignOut: after, ended: true }));
      });
      stream.setTimeout(10_000, () => {
        stream.destroy();
        resolve({ statsBeforeSignOut: before, statsAfterSignOut: after, ended: false });
      });
      stream.end();
    });
  } finally {
    await s.close();
  }
}

async function firstAdministrator() {
  const pg = await createPgSchema('glimpse_bench');
  const storage = await openStorage({ databaseUrl: pg.url });
  try {
    let exactlyOne = 0;
    for (let r = 0; r < 20; r++) {
      // Each round starts on an empty install.
      const made = await Promise.all([0, 1, 2, 3].map((i) => createUser(storage, `r${r}u${i}@lab.example`, 'scrypt$1$1$1$AA$AA')));
      if (made.filter((u) => u.admin).length === 1) exactlyOne++;
      for (const user of made) await removeUser(storage, user.id);
    }
    return { rounds: 20, concurrentCreations: 4, roundsWithExactlyOneAdministrator: exactlyOne };
  } finally {
    await storage.close();
    await pg.drop();
  }
}

async function logQuota(dialect: 'sqlite' | 'postgres') {
  const s = await inProcess(dialect);
  try {
    const p = JSON.parse((await send(`${s.url}/api/getrandomtasks/fixture-pair?platform=prolific&PROLIFIC_PID=quota`)).body) as { sessionToken: string };
    const answers = await Promise.all(Array.from({ length: 400 }, () => send(`${s.url}/api/sessionlogs/`, { method: 'POST', body: sessionLogsOf(p.sessionToken) })));
    // The only session of this database: every stored log is its.
    return { posts: 400, answers: count(answers), stored: await countRows(s.storage, 'session_logs') };
  } finally {
    await s.close();
  }
}

const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
  console.error(`bench:participants: ${name}...`);
  return run();
};
const results = {
  machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg().map(round), node: process.version },
  signInFlood: await step('600 sign-ins', signInFlood),
  junkRatingBodies: await step('junk rating bodies', junkBodies),
  behindNginx: nginxBinary() ? { trustProxy: await throughNginx(true), noTrustProxy: await throughNginx(false) } : 'SKIPPED: nginx not installed',
  lockRace: await step('lock race', lockRace),
  streamAfterSignOut: await step('stream after sign-out', streamAfterSignOut),
  firstAdministratorPostgres: await step('first administrator', firstAdministrator),
  logQuota: { sqlite: await logQuota('sqlite'), postgres: await logQuota('postgres') },
  ...(await attackRows(step)),
};
writeBenchResult('bench/results/participants.json', results);
console.log(JSON.stringify(results, null, 2));
const f = results;
console.log(`
| Figure | Result |
|---|---|
| 600 sign-ins from 30 addresses over ${FLOOD_S} s: participant rating p99 | ${f.signInFlood.flood.p99} ms vs ${f.signInFlood.idle.p99} ms idle (× ${f.signInFlood.p99Ratio}); p50 ${f.signInFlood.flood.p50} vs ${f.signInFlood.idle.p50} ms; sign-ins answered ${JSON.stringify(f.signInFlood.signIns)} |
| The researcher's sign-in from a known browser, during that flood | max ${f.signInFlood.researcherSignInMs.duringFlood.max} ms (alone: max ${f.signInFlood.researcherSignInMs.alone.max} ms) |
| 20 × ${Math.round(f.junkRatingBodies.bodyBytes / 1000)} KB rating bodies (45,000 unknown keys) at once, 3 rounds: /meta.json | p99 ${f.junkRatingBodies.during.p99} ms, max ${f.junkRatingBodies.during.max} ms (idle p99 ${f.junkRatingBodies.idle.p99} ms); answers ${JSON.stringify(f.junkRatingBodies.answers)} |
| Through nginx, another client's 320 requests: researcher's sign-in, new participant's playlist | ${typeof f.behindNginx === 'string' ? f.behindNginx : `TRUST_PROXY=127.0.0.1: ${f.behindNginx.trustProxy.researcherSignIn}, ${f.behindNginx.trustProxy.newParticipantPlaylist}; without: ${f.behindNginx.noTrustProxy.researcherSignIn}, ${f.behindNginx.noTrustProxy.newParticipantPlaylist}`} |
| 19 wrong passwords then the right one, at once | ${f.lockRace.passwordChecks} password checks; the right one: ${f.lockRace.rightOne}${f.lockRace.sameAnswerAsAWrongOne ? ', the same answer as a wrong one' : ''} |
| Live statistics after sign-out | ${f.streamAfterSignOut.statsAfterSignOut} stats events after sign-out; stream ended: ${f.streamAfterSignOut.ended} |
| First administrator, 4 at once, PostgreSQL | exactly one in ${f.firstAdministratorPostgres.roundsWithExactlyOneAdministrator} of ${f.firstAdministratorPostgres.rounds} rounds |
| 400 concurrent session-log posts (quota 100) | stored ${f.logQuota.sqlite.stored} (SQLite), ${f.logQuota.postgres.stored} (PostgreSQL) |
${attackTable(f)}
`);
process.exit(0);
