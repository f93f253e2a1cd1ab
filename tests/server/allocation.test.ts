import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { byNeed } from '../../src/server/quality/allocation.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { timingEnvelopeOf } from '../../testkit/participants.js';
import { getPlaylist, json, postJson, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { jobFields, writeStudy } from '../../testkit/studies.js';

/**
 * Adaptive allocation for rating protocols (issue 38 item 4, docs/quality.md): with `allocation: "widest-intervals"`
 * a new participant gets the playlist whose stimuli's intervals are widest, within the target of accepted observers;
 * the default, balanced by load, is unchanged. Two playlists: p1 (s1, s2) is rated alike by everyone, p2 (s3, s4) is
 * rated 5 by some and 1 by others, so its intervals stay wide.
 */

const SOURCES = ['s1.png', 's2.png', 's3.png', 's4.png'];
let mediaDir = '';
beforeAll(async () => {
  mediaDir = await mkdtemp(join(tmpdir(), 'glimpse-allocation-media-'));
  for (const [i, file] of SOURCES.entries()) {
    await sharp({ create: { width: 8, height: 6, channels: 3, background: { r: 50 * i, g: 40, b: 90 } } }).png().toFile(join(mediaDir, file));
  }
});

const study = (id: string, quality: Record<string, unknown>) => ({
  id,
  media: mediaDir,
  job: jobFields('absolute_category_rating'),
  playlists: [{ stimuli: [{ source: 's1.png' }, { source: 's2.png' }] }, { stimuli: [{ source: 's3.png' }, { source: 's4.png' }] }],
  quality: { rules: { minVariance: false, minCorrelation: false }, ...quality },
});

describe('the need of a playlist', () => {
  it('puts stimuli without an interval first, then the widest intervals, then the lower load and id', () => {
    const need = (id: number, load: number, withoutInterval: number, halfWidths: number) => ({ id, load, withoutInterval, halfWidths });
    expect([need(1, 0, 0, 9), need(2, 5, 1, 0)].sort(byNeed)[0]!.id).toBe(2);
    expect([need(1, 0, 0, 1), need(2, 5, 0, 2)].sort(byNeed)[0]!.id).toBe(2);
    expect([need(1, 3, 0, 2), need(2, 1, 0, 2)].sort(byNeed)[0]!.id).toBe(2);
    expect([need(2, 1, 0, 2), need(1, 1, 0, 2)].sort(byNeed)[0]!.id).toBe(1);
  });
});

describeEachDialect('adaptive allocation of rating playlists', (dialect) => {
  const ctx = useServer(dialect);

  const arrive = async (jobId: string, pid: string) => json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getacr/' + jobId, `platform=prolific&PROLIFIC_PID=${pid}`));
  /** Rates the playlist: p1's stimuli 4 (Good) always, p2's 5 for participant 1 and 1 for the others; then the code. */
  async function finish(playlist: GenericPlaylist, k: number) {
    for (const s of playlist.stimulis) {
      const wide = /s[34]\.png/.test(s.source!);
      const score = wide ? (k === 1 ? 5 : 1) : 4;
      const body = { stimuli_id: s.stimuliId, session_id: playlist.session_id, session_token: playlist.sessionToken, value: 5 - score, nbReplay: 0, logs: null, timing: timingEnvelopeOf({ media: s.source }) };
      expect((await postJson(ctx().app, '/api/ratings/', body)).statusCode).toBe(201);
    }
    expect((await ctx().app.inject(`/api/sessions/token/${playlist.sessionToken}`)).statusCode).toBe(200);
  }
  const playlistIds = async (jobId: string) =>
    (await ctx().storage.db.selectFrom('playlists').select('id').where('job_id', '=', jobId).orderBy('position').execute()).map((p) => p.id);

  /** Four participants, two per playlist (each playlist has every stimulus at n = 2), then who the next two get. */
  async function afterFour(jobId: string) {
    const [p1, p2] = await playlistIds(jobId);
    for (let k = 0; k < 4; k++) {
      const playlist = await arrive(jobId, `${jobId}-${k}`);
      // Until every stimulus has an interval both ways agree: no interval anywhere, then the lower load.
      expect(playlist.playlistId).toBe(k % 2 === 0 ? p1 : p2);
      await finish(playlist, k);
    }
    const fifth = await arrive(jobId, `${jobId}-5`);
    const sixth = await arrive(jobId, `${jobId}-6`);
    return { p1, p2, fifth: fifth.playlistId, sixth: sixth.playlistId };
  }

  it('by default balances by load: equal loads go to the lower id, then the other', async () => {
    await ctx().importStudy(await writeStudy(study('balanced', {})));
    const { p1, p2, fifth, sixth } = await afterFour('balanced');
    expect([fifth, sixth]).toEqual([p1, p2]);
  });

  it('with widest-intervals sends the next participants to the playlist whose intervals are widest, running sessions counted', async () => {
    await ctx().importStudy(await writeStudy(study('widest', { allocation: 'widest-intervals' })));
    const { p2, fifth, sixth } = await afterFour('widest');
    // p1's intervals are 0 (every score 4); p2's are wide even with one more session running on it.
    expect([fifth, sixth]).toEqual([p2, p2]);
  });

  it('never past the target of accepted observers: a full playlist takes no one, however wide its intervals', async () => {
    await ctx().importStudy(await writeStudy(study('widest-target', { allocation: 'widest-intervals', targetAcceptedPerPlaylist: 3 })));
    const { p1, p2, fifth, sixth } = await afterFour('widest-target');
    // p2 reaches its 3 (two completed, one running) with the fifth participant.
    expect([fifth, sixth]).toEqual([p2, p1]);
  });

  it('is refused for a protocol that is not a rating scale', async () => {
    const file = await writeStudy({ ...study('pairs-allocation', { allocation: 'widest-intervals' }), job: jobFields('pair_comparison'), playlists: [{ stimuli: [{ sourceA: 's1.png', sourceB: 's2.png' }] }] });
    await expect(ctx().importStudy(file)).rejects.toThrow(/allocation.*rating/);
  });
});
