import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, expect, it } from 'vitest';
import { asapPosterior } from '../../src/analysis/asap/asap.js';
import { contentCounts } from '../../src/server/adaptive/arrival.js';
import { designContents } from '../../src/server/adaptive/design.js';
import { PROTOCOLS } from '../../src/protocols/registry.js';
import { pairCounts } from '../../src/server/storage/adaptive.js';
import { findJob } from '../../src/server/storage/jobs.js';
import { jobMedia } from '../../src/server/storage/studies.js';
import { buildApp } from '../../src/server/app.js';
import { openStorage } from '../../src/server/storage/open.js';
import { addUser, signIn } from '../../testkit/console.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { timingEnvelopeOf } from '../../testkit/participants.js';
import { getPlaylist, json, postJson, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { jobFields, writeStudy } from '../../testkit/studies.js';

/**
 * The adaptive pair-comparison job (issue 38, docs/adaptive.md): each new participant gets a playlist of their own,
 * chosen at arrival by ASAP from the comparisons judged so far and those handed out; a resumed participant keeps
 * theirs; the study's checks and training come with every playlist; the posterior the arrivals use equals the one
 * recomputed from the stored answers.
 */

const CONTENTS = { city: ['city_q1.png', 'city_q2.png', 'city_q3.png', 'city_q4.png'], park: ['park_q1.png', 'park_q2.png', 'park_q3.png', 'park_q4.png'] };
const ALL = Object.values(CONTENTS).flat();
let mediaDir = '';
beforeAll(async () => {
  mediaDir = await mkdtemp(join(tmpdir(), 'glimpse-adaptive-media-'));
  for (const [i, file] of ALL.entries()) {
    await sharp({ create: { width: 8, height: 6, channels: 3, background: { r: 30 * i, g: 90, b: 30 } } }).png().toFile(join(mediaDir, file));
  }
});

const BUDGET = 6;
const study = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  media: mediaDir,
  job: jobFields('pair_comparison'),
  design: { mode: 'asap', comparisonsPerParticipant: BUDGET, contents: Object.values(CONTENTS).map((conditions) => ({ conditions: [...conditions] })) },
  mediaAttributes: Object.fromEntries(Object.entries(CONTENTS).flatMap(([content, files]) => files.map((file, k) => [file, { content, condition: `q${k + 1}` }]))),
  // A gold pair (the first condition is the better) and a training pair.
  playlists: [{ stimuli: [{ sourceA: 'city_q1.png', sourceB: 'city_q4.png', check: { kind: 'gold', answer: 'A' } }], training: [{ sourceA: 'park_q1.png', sourceB: 'park_q2.png' }] }],
  ...extra,
});

/** Rank of a condition in the truth: q1 is the best of its content, q4 the worst. */
const rank = (file: string) => Number(/_q(\d)\.png$/.exec(file)![1]);
/** A served source is the job's media name, `{jobId}/{path}`: its path in the study. */
const pathOf = (source: string | undefined) => source!.slice(source!.indexOf('/') + 1);
const GOLD = ['city_q1.png', 'city_q4.png'];
const isGold = (s: { sourceA?: string; sourceB?: string }) => pathOf(s.sourceA) === GOLD[0] && pathOf(s.sourceB) === GOLD[1];

describeEachDialect('adaptive pair-comparison design', (dialect) => {
  const ctx = useServer(dialect);
  const arrive = (jobId: string, pid: string, extra = '') => getPlaylist(ctx().app, '/api/getrandomtasks/' + jobId, `platform=prolific&PROLIFIC_PID=${pid}${extra}`);

  /** Answers every pair as the truth says (the better-ranked side wins) and asks for the code. */
  async function answerAndFinish(playlist: GenericPlaylist) {
    for (const s of playlist.stimulis) {
      const value = rank(s.sourceA!) < rank(s.sourceB!) ? 0 : 1;
      const body = { stimuli_id: s.stimuliId, session_id: playlist.session_id, session_token: playlist.sessionToken, value, nbReplay: 0, logs: null, timing: timingEnvelopeOf({ media: s.sourceA }) };
      expect((await postJson(ctx().app, '/api/ratings/', body)).statusCode).toBe(201);
    }
    expect((await ctx().app.inject(`/api/sessions/token/${playlist.sessionToken}`)).statusCode).toBe(200);
  }

  const pending = async (jobId: string) => {
    const rows = await ctx().storage.db.selectFrom('adaptive_pending').select(['assigned', 'judged']).where('job_id', '=', jobId).execute();
    return { assigned: rows.reduce((n, r) => n + Number(r.assigned), 0), judged: rows.reduce((n, r) => n + Number(r.judged), 0) };
  };

  it('gives each new participant a playlist of their own, from the design, with the checks and training; a resumed one keeps it', async () => {
    await ctx().importStudy(await writeStudy(study('adaptive')));
    const first = json<GenericPlaylist>(await arrive('adaptive', 'P1'));
    expect(first.session_id).not.toBeNull();
    expect(first.stimulis).toHaveLength(BUDGET + 1);
    expect(first.stimulis_training.map((s) => [pathOf(s.sourceA), pathOf(s.sourceB)])).toEqual([['park_q1.png', 'park_q2.png']]);
    // The gold pair once, where the playlist's stored stimulus says so (ASAP may also choose the same pair).
    const checks = await ctx().storage.db.selectFrom('stimuli').select(['id', 'spec']).where('playlist_id', '=', first.playlistId).execute();
    const goldIds = checks.filter((r) => (JSON.parse(r.spec) as { check?: unknown }).check !== undefined).map((r) => r.id);
    expect(goldIds).toHaveLength(1);
    expect(isGold(first.stimulis.find((s) => s.stimuliId === goldIds[0])!)).toBe(true);
    for (const s of first.stimulis) {
      // Two conditions of one content.
      expect(s.sourceA).not.toBe(s.sourceB);
      expect(pathOf(s.sourceA).slice(0, 4)).toBe(pathOf(s.sourceB).slice(0, 4));
    }
    // The first participant of a content with fewer than n − 1 comparisons gets a (random) spanning tree: 3 pairs
    // that connect the 4 conditions of each of two contents.
    for (const content of ['city', 'park']) {
      const ofContent = first.stimulis.filter((s) => pathOf(s.sourceA).startsWith(content) && s.stimuliId !== goldIds[0]);
      const linked = new Set(ofContent.flatMap((s) => [s.sourceA, s.sourceB]));
      expect(ofContent).toHaveLength(3);
      expect(linked.size).toBe(4);
    }
    expect(await pending('adaptive')).toEqual({ assigned: BUDGET, judged: 0 });
    // Every condition's file was imported with the study, though its playlist names none of most of them.
    for (const name of first.mediaRessources) expect((await ctx().app.inject(`/resmedias/${name}`)).statusCode).toBe(200);
    for (const file of ALL) expect((await ctx().app.inject(`/resmedias/adaptive/${file}`)).statusCode).toBe(200);

    // The same participant again: the same session and playlist, nothing handed out again.
    const again = json<GenericPlaylist>(await arrive('adaptive', 'P1'));
    expect(again).toMatchObject({ session_id: first.session_id, playlistId: first.playlistId, resumed: true });
    expect(again.stimulis.map((s) => s.stimuliId)).toEqual(first.stimulis.map((s) => s.stimuliId));
    expect(await pending('adaptive')).toEqual({ assigned: BUDGET, judged: 0 });

    // Another participant: another playlist.
    const second = json<GenericPlaylist>(await arrive('adaptive', 'P2'));
    expect(second.playlistId).not.toBe(first.playlistId);
    expect(await pending('adaptive')).toEqual({ assigned: 2 * BUDGET, judged: 0 });

    // A link cannot name a playlist of an adaptive job (another participant's).
    const named = await arrive('adaptive', 'P3', `&playlist_id=${first.playlistId}`);
    expect(named.statusCode).toBe(403);
    expect(json<{ error: string }>(named).error).toBe('PLAYLIST_CHOICE_NOT_ALLOWED');

    await answerAndFinish(first);
    expect(await pending('adaptive')).toEqual({ assigned: 2 * BUDGET, judged: BUDGET });

    // The console shows the participants' own playlists as one row.
    await addUser(ctx().storage, 'lead@lab.example', { jobId: 'adaptive', role: 'owner' });
    const owner = await signIn(ctx().app, 'lead@lab.example');
    const stats = json<{ stats: { playlists: Array<Record<string, number>>; design: unknown } }>(await owner.get('/console/api/jobs/adaptive')).stats;
    expect(stats.playlists).toEqual([{ id: 0, position: -1, started: 2, running: 1, completed: 1, accepted: 1, rejected: 0 }]);
    expect(stats.design).toEqual({ mode: 'asap', comparisonsPerParticipant: BUDGET, contents: 2, conditions: { min: 4, max: 4 } });
    // The report states the design.
    const { report } = json<{ report: { design: unknown; methods: string[] } }>(await owner.get('/console/api/jobs/adaptive/report.json'));
    expect(report.design).toEqual({ mode: 'asap', comparisonsPerParticipant: BUDGET, contents: 2, conditions: { min: 4, max: 4 } });
    expect(report.methods).toContain(
      `Design: adaptive pair comparison (ASAP batch mode, Mikhailiuk et al. 2020): each participant's ${BUDGET} comparisons were chosen when they arrived, from the included answers so far, among 2 contents of 4 conditions; pairs are therefore not equally often compared, and the scale is fitted as for any pair comparison.`,
    );
  });

  it('chooses from what is known: the posterior of the arrivals equals the one recomputed from the stored answers', async () => {
    await ctx().importStudy(await writeStudy(study('adaptive-known')));
    for (let k = 0; k < 8; k++) await answerAndFinish(json<GenericPlaylist>(await arrive('adaptive-known', `K${k}`)));
    const job = (await findJob(ctx().storage, 'adaptive-known'))!;
    const media = await jobMedia(ctx().storage, job.id);
    const contents = designContents(PROTOCOLS.pair_comparison, job.design!, (path) => media.get(path)?.attributes ?? {});
    const running = contentCounts(contents, await pairCounts(ctx().storage.db, job.id));

    // Recomputed: every stored answer of the job, the gold pair apart.
    const rows = await ctx()
      .storage.db.selectFrom('ratings as r')
      .innerJoin('stimuli as st', 'st.id', 'r.stimulus_id')
      .innerJoin('sessions as s', 's.id', 'r.session_id')
      .select(['st.spec', 'r.value'])
      .where('s.job_id', '=', job.id)
      .where('st.is_training', '=', 0)
      .execute();
    for (const [c, content] of contents.entries()) {
      const n = content.conditions.length;
      const wins = new Float64Array(n * n);
      for (const row of rows) {
        const spec = JSON.parse(row.spec) as { sourceA: string; sourceB: string; check?: unknown };
        if (spec.check || !content.conditions.includes(spec.sourceA)) continue;
        const [winner, loser] = row.value === 0 ? [spec.sourceA, spec.sourceB] : [spec.sourceB, spec.sourceA];
        wins[content.conditions.indexOf(winner) * n + content.conditions.indexOf(loser)] += 1;
      }
      expect({ c, wins: Array.from(running[c]!.wins) }).toEqual({ c, wins: [...wins] });
      expect(Array.from(running[c]!.pending)).toEqual(new Array(n * n).fill(0));
      const posterior = asapPosterior(running[c]!.wins as Float64Array);
      // The truth's order: q1 > q2 > q3 > q4.
      expect([...posterior.mean].map((m, k) => [m, k]).sort((a, b) => b[0]! - a[0]!).map(([, k]) => k)).toEqual([0, 1, 2, 3]);
    }
    expect(await pending('adaptive-known')).toEqual({ assigned: 8 * BUDGET, judged: 8 * BUDGET });
  });

  it('hands concurrent arrivals different comparisons: what is handed out counts until it is judged', async () => {
    await ctx().importStudy(await writeStudy(study('adaptive-crowd')));
    const playlists = (await Promise.all(Array.from({ length: 8 }, (_, k) => arrive('adaptive-crowd', `C${k}`)))).map((r) => json<GenericPlaylist>(r));
    expect(new Set(playlists.map((p) => p.session_id)).size).toBe(8);
    expect(new Set(playlists.map((p) => p.playlistId)).size).toBe(8);
    expect(await pending('adaptive-crowd')).toEqual({ assigned: 8 * BUDGET, judged: 0 });
    // What is handed out is counted per pair, under the arrival's lock: exactly the pairs of the 8 playlists.
    const handedOut = new Map<string, number>();
    for (const p of playlists) {
      // The gold pair once (ASAP may choose the same pair too).
      const gold = p.stimulis.findIndex(isGold);
      for (const s of p.stimulis.filter((_, k) => k !== gold)) {
        const key = [pathOf(s.sourceA), pathOf(s.sourceB)].sort().join('|');
        handedOut.set(key, (handedOut.get(key) ?? 0) + 1);
      }
    }
    const stored = await ctx().storage.db.selectFrom('adaptive_pending').select(['pair', 'assigned']).where('job_id', '=', 'adaptive-crowd').execute();
    const counted = new Map(stored.map((r) => [(JSON.parse(r.pair) as string[]).slice(1).join('|'), Number(r.assigned)]));
    expect(counted).toEqual(handedOut);
  });

  it.skipIf(dialect !== 'postgres')('runs on two nodes of one PostgreSQL: one session and one playlist per participant, whichever node they reach', async () => {
    await ctx().importStudy(await writeStudy(study('adaptive-nodes')));
    const storage = await openStorage({ databaseUrl: ctx().database.url });
    const other = await buildApp({ storage, mediaDir: ctx().mediaDir, webDir: ctx().webDir, mediaBaseUrl: '', rateLimits: false });
    try {
      // Each participant's link opened on both nodes at once (two tabs, a double click through a load balancer).
      const query = (k: number) => `platform=prolific&PROLIFIC_PID=N${k}`;
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, k) => [getPlaylist(ctx().app, '/api/getrandomtasks/adaptive-nodes', query(k)), getPlaylist(other, '/api/getrandomtasks/adaptive-nodes', query(k))]).flat(),
      );
      const playlists = answers.map((r) => json<GenericPlaylist>(r));
      for (let k = 0; k < 12; k++) {
        const [a, b] = [playlists[2 * k]!, playlists[2 * k + 1]!];
        expect(b.session_id).toBe(a.session_id);
        expect(b.playlistId).toBe(a.playlistId);
        expect(b.stimulis.map((s) => s.stimuliId)).toEqual(a.stimulis.map((s) => s.stimuliId));
      }
      expect(new Set(playlists.map((p) => p.playlistId)).size).toBe(12);
      const sessions = await ctx().storage.db.selectFrom('sessions').select('playlist_id').where('job_id', '=', 'adaptive-nodes').execute();
      expect(sessions).toHaveLength(12);
      // No playlist was made for an arrival that resumed instead.
      const own = await ctx().storage.db.selectFrom('playlists').select('id').where('job_id', '=', 'adaptive-nodes').where('adaptive', '=', 1).execute();
      expect(own).toHaveLength(12);
      expect(await pending('adaptive-nodes')).toEqual({ assigned: 12 * BUDGET, judged: 0 });
    } finally {
      await other.close();
      await storage.close();
    }
  });

  it('refuses a design the protocol cannot run, and a playlist that is not training and checks', async () => {
    await expect(ctx().importStudy(await writeStudy({ ...study('adaptive-acr'), job: jobFields('absolute_category_rating') }))).rejects.toThrow(/"asap" chooses pairs of a pair comparison/);
    const withPair = study('adaptive-extra');
    withPair.playlists[0]!.stimuli.push({ sourceA: 'park_q1.png', sourceB: 'park_q3.png' } as never);
    await expect(ctx().importStudy(await writeStudy(withPair))).rejects.toThrow(/holds only gold, trap and attention checks/);
    await expect(ctx().importStudy(await writeStudy(study('adaptive-target', { quality: { targetAcceptedPerPlaylist: 5 } })))).rejects.toThrow(/targetAcceptedPerPlaylist/);
    const mixed = study('adaptive-mixed');
    mixed.design.contents[0]!.conditions[1] = 'park_q2.png';
    await expect(ctx().importStudy(await writeStudy(mixed))).rejects.toThrow(/must declare the same mediaAttributes content/);
  });
});
