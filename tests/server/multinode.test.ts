import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRandom } from '../../src/analysis/random.js';
import { openStorage } from '../../src/server/storage/open.js';
import type { Storage } from '../../src/server/storage/types.js';
import { importStudy } from '../../src/server/study/import.js';
import { DIALECTS } from '../../testkit/databases.js';
import { sessionLogsOf, timingEnvelopeOf } from '../../testkit/participants.js';
import { createPgSchema } from '../../testkit/pg-schema.js';
import { studyOf, writeStudy } from '../../testkit/studies.js';

/**
 * Several stateless server processes on one PostgreSQL database (docs/data-safety.md "Deployment on several nodes"):
 * 300 simulated participants (HTTP only) take full sessions, every request to a node picked at random, with reloads,
 * duplicate tabs and retried posts mixed in. Nothing may depend on a single process: one session per platform id,
 * balanced playlists, no duplicate answer, every acknowledged answer stored once, every code issued only after all
 * answers, every session judged once (its code and its logs arrive together, on two nodes) and balancing counts that
 * match.
 */

const NODES = 3;
const PARTICIPANTS = 300;
const CONCURRENCY = 30;
const PLAYLISTS = 3;
const PER_PLAYLIST = 4;

interface Node {
  url: string;
  child: ChildProcessWithoutNullStreams;
}

function startNode(env: NodeJS.ProcessEnv): Promise<Node> {
  const child = spawn('npx', ['tsx', 'testkit/node-server.ts'], { env: { ...process.env, ...env }, stdio: 'pipe' });
  child.stderr.pipe(process.stderr);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ url: (JSON.parse(line) as { url: string }).url, child }));
    child.once('exit', (code) => reject(new Error(`node exited (${code}) before listening`)));
  });
}

describe.skipIf(!DIALECTS.includes('postgres'))('three server processes on one PostgreSQL database', () => {
  let schema: { url: string; drop(): Promise<void> };
  let storage: Storage;
  let mediaDir: string;
  const nodes: Node[] = [];

  beforeAll(async () => {
    schema = await createPgSchema('glimpse_multinode');
    mediaDir = await mkdtemp(join(tmpdir(), 'glimpse-multinode-'));
    storage = await openStorage({ databaseUrl: schema.url });
    await importStudy(storage, await writeStudy(studyOf('pair_comparison', { id: 'multinode', playlists: PLAYLISTS, perPlaylist: PER_PLAYLIST })), mediaDir);
    nodes.push(...(await Promise.all(Array.from({ length: NODES }, () => startNode({ DATABASE_URL: schema.url, MEDIA_DIR: mediaDir })))));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(nodes.map((n) => new Promise((resolve) => (n.child.once('exit', resolve), n.child.stdin.end()))));
    await storage?.close();
    await schema?.drop();
    await rm(mediaDir, { recursive: true, force: true });
  });

  it('keeps one session per participant, balanced playlists, one answer per stimulus and codes after all answers', async () => {
    const random = createRandom(13);
    const node = () => nodes[random.int(nodes.length)]!.url;
    const call = async (path: string, init: RequestInit = {}) => {
      const res = await fetch(`${node()}${path}`, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const acknowledged: number[] = [];
    const codes = new Map<string, string>();

    async function participant(i: number) {
      const pid = `mn-${i}`;
      const open = () => call(`/api/getrandomtasks/multinode?platform=prolific&PROLIFIC_PID=${pid}`);
      // Some open the link in two tabs at once.
      const first = i % 5 === 0 ? (await Promise.all([open(), open()]))[0]! : await open();
      expect(first.status).toBe(200);
      let playlist = first.body;
      for (const [k, stimulus] of (playlist.stimulis as Array<{ stimuliId: number }>).entries()) {
        // Some reload halfway: the same session comes back, with what is already answered.
        if (i % 7 === 0 && k === 2) {
          const again = await open();
          expect([again.body.sessionToken, again.body.answered_stimuli.length]).toEqual([playlist.sessionToken, 2]);
          playlist = again.body;
        }
        // With its timing envelope, as the page posts it (quality control accepts the session).
        const body = JSON.stringify({ stimuli_id: stimulus.stimuliId, session_id: playlist.session_id, session_token: playlist.sessionToken, value: (i + k) % 2, nbReplay: 0, logs: null, timing: timingEnvelopeOf() });
        const key = { 'idempotency-key': `${pid}-${k}` };
        // Some posts are retried at once (a lost acknowledgement), on another node.
        const posts = await Promise.all(Array.from({ length: i % 3 === 0 ? 2 : 1 }, () => call('/api/ratings/', { method: 'POST', body, headers: key })));
        for (const post of posts) {
          expect([200, 201]).toContain(post.status);
          acknowledged.push(post.body.id);
        }
      }
      // The page posts its logs as it asks for the code: both final requests at once, on nodes picked at random.
      const [code, logs] = await Promise.all([call(`/api/sessions/token/${playlist.sessionToken}`), call('/api/sessionlogs/', { method: 'POST', body: JSON.stringify(sessionLogsOf(playlist.sessionToken)) })]);
      expect([code.status, logs.status]).toEqual([200, 201]);
      codes.set(pid, code.body.verification_code);
    }

    for (let start = 0; start < PARTICIPANTS; start += CONCURRENCY) {
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, PARTICIPANTS - start) }, (_, j) => participant(start + j)));
    }

    const db = storage.db;
    const sessions = await db.selectFrom('sessions').selectAll().where('job_id', '=', 'multinode').execute();
    // One session per platform id.
    expect(sessions).toHaveLength(PARTICIPANTS);
    const identities = await db.selectFrom('session_identities').select(['prolific_pid']).execute();
    expect(new Set(identities.map((r) => r.prolific_pid)).size).toBe(PARTICIPANTS);
    // Every session accepted by quality control, so every one counts toward its playlist; balanced within one.
    expect(await db.selectFrom('session_verdicts').select('accepted').where('accepted', '=', 0).execute()).toEqual([]);
    const perPlaylist = new Map<number, number>();
    for (const s of sessions) perPlaylist.set(s.playlist_id, (perPlaylist.get(s.playlist_id) ?? 0) + 1);
    expect(perPlaylist.size).toBe(PLAYLISTS);
    expect(Math.max(...perPlaylist.values()) - Math.min(...perPlaylist.values())).toBeLessThanOrEqual(1);
    // Judged once each, whichever final request came first; the balancing counts kept on the way equal a recount.
    expect(await db.selectFrom('session_verdicts').select('session_id').where('job_id', '=', 'multinode').execute()).toHaveLength(PARTICIPANTS);
    const loads = await db.selectFrom('playlist_loads').select(['playlist_id', 'sessions', 'included', 'running']).where('job_id', '=', 'multinode').execute();
    expect(loads.map((l) => [l.playlist_id, l.sessions, l.included, l.running]).sort()).toEqual([...perPlaylist].map(([id, n]) => [id, n, n, 0]).sort());
    // No duplicate answers, and every acknowledged one stored (once).
    const ratings = await db.selectFrom('ratings').select(['id', 'session_id', 'stimulus_id', 'created_at']).execute();
    expect(ratings).toHaveLength(PARTICIPANTS * PER_PLAYLIST);
    expect(new Set(ratings.map((r) => `${r.session_id}:${r.stimulus_id}`)).size).toBe(ratings.length);
    const stored = new Set(ratings.map((r) => r.id));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    // Every code issued, to the session it belongs to, after all of its answers.
    expect(codes.size).toBe(PARTICIPANTS);
    const lastAnswer = new Map<number, string>();
    for (const r of ratings) if ((lastAnswer.get(r.session_id) ?? '') < r.created_at) lastAnswer.set(r.session_id, r.created_at);
    for (const s of sessions) {
      expect(s.verification_code).not.toBeNull();
      expect(s.completed_at! >= lastAnswer.get(s.id)!).toBe(true);
    }
  }, 300_000);
});
