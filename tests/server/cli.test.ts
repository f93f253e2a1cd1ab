import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { BubblePlaylistStimulus, PlaylistResponse } from '../../src/contract/playlist.js';
import { nowIso } from '../../src/server/storage/types.js';
import { cli, useCliEnvironment } from '../../testkit/cli.js';
import { parseCsv } from '../../testkit/csv.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { sessionLogsOf } from '../../testkit/participants.js';
import { getPlaylist, json, postJson, ratingBody, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { jobFields, PAIR_STUDY, studyOf, writeStudy } from '../../testkit/studies.js';

describeEachDialect('CLI', (dialect) => {
  const ctx = useServer(dialect);
  useCliEnvironment(ctx);

  /** Two complete-ish sessions on the pair fixture, through the API. */
  async function rateSomething() {
    const a = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=mturk&workerId=W9&assignmentId=A9&hitId=H9'));
    const b = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=P7'));
    const logs = JSON.stringify([{ label: 'A', media: ['fixture-pair/red.png'], shownFrames: 60, onsetMs: 12.5, offsetMs: 1012.5 }]);
    await postJson(ctx().app, '/api/ratings/', ratingBody(a, a.stimulis[0].stimuliId, { value: 0, nbReplay: 1, logs }));
    await postJson(ctx().app, '/api/ratings/', ratingBody(a, a.stimulis[1].stimuliId, { value: 1, logs: 'a "quoted", text\nwith a newline' }));
    await postJson(ctx().app, '/api/ratings/', ratingBody(b, b.stimulis[0].stimuliId, { value: 1, logs: null }));
    return { a, b, logs };
  }

  it('imports a study, prints its participant link, and says unchanged the second time', async () => {
    const first = await cli(['import', PAIR_STUDY]);
    expect(first.code).toBe(0);
    expect(first.out).toContain('created job fixture-pair (pair_comparison): 2 playlists, 4 stimuli, 4 media files copied');
    expect(first.out).toContain('participant link: https://glimpse.example.org/pvid/fixture-pair');
    const second = await cli(['import', PAIR_STUDY]);
    expect(second.out).toContain('unchanged job fixture-pair');
    expect(await ctx().storage.db.selectFrom('stimuli').select('id').execute()).toHaveLength(4);
    expect(await readFile(join(ctx().mediaDir, 'fixture-pair', 'blue.png'))).toBeTruthy();
  });

  it('refuses a study with several errors, printing each with its path', async () => {
    const file = await writeStudy({ id: 'bad', job: { ...jobFields('triplet'), category_id: 'one' }, playlists: [{ stimuli: [{ sourceA: 'red.png', sourceB: 'nope.png' }] }] });
    const res = await cli(['import', file]);
    expect(res.code).toBe(1);
    expect(res.err).toContain('3 problem(s)');
    expect(res.err).toContain('$.job.category_id: must be integer');
    expect(res.err).toContain('$.playlists[0].stimuli[0].sourceC: required by triplet');
    expect(res.err).toMatch(/\$\.playlists\[0\]\.stimuli\[0\]\.sourceB: media file nope\.png not found/);
    expect(await ctx().storage.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
  });

  it('exports ratings as CSV, one row per rating with session, identity, stimulus and timing logs', async () => {
    await cli(['import', PAIR_STUDY]);
    const { a, b, logs } = await rateSomething();
    const res = await cli(['export', 'fixture-pair', '--format', 'csv']);
    expect(res.code).toBe(0);
    const rows = parseCsv(res.out);
    expect(rows).toHaveLength(3);
    const stored = await ctx().storage.db.selectFrom('ratings').selectAll().orderBy('id').execute();
    expect(rows.map((r) => Number(r.rating_id))).toEqual(stored.map((r) => r.id));
    expect(rows[0]).toMatchObject({
      job_id: 'fixture-pair',
      protocol: 'pair_comparison',
      playlist_id: String(a.playlistId),
      session_id: String(a.session_id),
      platform: 'mturk',
      worker_id: 'W9',
      assignment_id: 'A9',
      hit_id: 'H9',
      prolific_pid: '',
      stimulus_id: String(a.stimulis[0].stimuliId),
      stimulus_position: '0',
      is_training: '0',
      source_a: a.stimulis[0].sourceA!.replace('fixture-pair/', ''),
      source_b: a.stimulis[0].sourceB!.replace('fixture-pair/', ''),
      value: '0',
      nb_replay: '1',
      logs,
      created_at: stored[0].created_at,
      session_completed_at: '',
    });
    expect(rows[1].logs).toBe('a "quoted", text\nwith a newline');
    expect(rows[2]).toMatchObject({ platform: 'prolific', prolific_pid: 'P7', worker_id: '', session_id: String(b.session_id), logs: '' });
  });

  it('exports JSON Lines to a file with the logs nested', async () => {
    await cli(['import', PAIR_STUDY]);
    const { a, logs } = await rateSomething();
    const out = join(ctx().database.dir, 'ratings.jsonl');
    const res = await cli(['export', 'fixture-pair', '--format', 'json', '--out', out]);
    expect(res.code).toBe(0);
    expect(res.err).toContain(`3 ratings rows written to ${out}`);
    const lines = (await readFile(out, 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ session_id: a.session_id, value: 0, nb_replay: 1, is_training: false, reversed: expect.any(Boolean), logs: JSON.parse(logs), worker_id: 'W9' });
    expect(lines[0].stimulus_spec).toEqual({ sourceA: expect.any(String), sourceB: expect.any(String), ...(lines[0].reversed ? { reversed: true } : {}) });
    expect(lines[1].logs).toBe('a "quoted", text\nwith a newline');
    expect(lines[2].logs).toBeNull();
  });

  it('neutralises formula-leading text cells in CSV (OWASP CSV injection), numbers aside; --raw keeps them', async () => {
    await cli(['import', PAIR_STUDY]);
    const { a, b } = await rateSomething();
    const db = ctx().storage.db;
    // Ids are checked at the playlist call now: such values can only come from older rows, written here directly.
    await db.updateTable('session_identities').set({ worker_id: '=HYPERLINK("http://x","y")', assignment_id: '@SUM(1+1)*cmd|\' /C calc\'!A0' }).where('session_id', '=', a.session_id).execute();
    await db.updateTable('session_identities').set({ prolific_pid: '-2+3' }).where('session_id', '=', b.session_id).execute();
    const ratings = await db.selectFrom('ratings').select(['id']).orderBy('id').execute();
    await db.updateTable('ratings').set({ logs: '=1+1' }).where('id', '=', ratings[0]!.id).execute();
    await db.updateTable('ratings').set({ logs: '\t=1+1', value: -1 }).where('id', '=', ratings[1]!.id).execute();
    await db.updateTable('ratings').set({ logs: '+1' }).where('id', '=', ratings[2]!.id).execute();

    const rows = parseCsv((await cli(['export', 'fixture-pair', '--format', 'csv'])).out);
    expect(rows.map((r) => r.logs)).toEqual(["'=1+1", "'\t=1+1", '+1']); // "+1" is a plain number: no formula
    expect(rows[0]).toMatchObject({ worker_id: `'=HYPERLINK("http://x","y")`, assignment_id: "'@SUM(1+1)*cmd|' /C calc'!A0", hit_id: 'H9', value: '0' });
    expect(rows[1]!.value).toBe('-1'); // a number stays a number
    expect(rows[2]!.prolific_pid).toBe("'-2+3");

    const raw = parseCsv((await cli(['export', 'fixture-pair', '--format', 'csv', '--raw'])).out);
    expect(raw.map((r) => r.logs)).toEqual(['=1+1', '\t=1+1', '+1']);
    expect(raw[0]).toMatchObject({ worker_id: '=HYPERLINK("http://x","y")', assignment_id: "@SUM(1+1)*cmd|' /C calc'!A0" });
    expect(raw[2]!.prolific_pid).toBe('-2+3');
    // JSON Lines are for programs: never changed.
    const jsonl = (await cli(['export', 'fixture-pair', '--format', 'json'])).out.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(jsonl.map((r) => r.logs)).toEqual(['=1+1', '\t=1+1', '+1']);

    // The exports for other tools: media names from the study file.
    await db.updateTable('stimuli').set({ spec: sql<string>`replace(spec, 'red.png', '=red.png')` }).execute();
    const pairs = parseCsv((await cli(['export', 'fixture-pair', '--format', 'pairs'])).out);
    const names = pairs.flatMap((r) => [r.condition_A, r.condition_B]);
    expect(names).toContain("'=red.png");
    expect(names).not.toContain('=red.png');
    const rawPairs = parseCsv((await cli(['export', 'fixture-pair', '--format', 'pairs', '--raw'])).out);
    expect(rawPairs.flatMap((r) => [r.condition_A, r.condition_B])).toContain('=red.png');
  });

  it('pages through exports larger than one page without losing or repeating a row', async () => {
    await cli(['import', PAIR_STUDY]);
    const p = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair'));
    const rows = Array.from({ length: 1234 }, (_, i) => ({
      session_id: p.session_id!,
      stimulus_id: p.stimulis[i % 2].stimuliId,
      dedupe_key: `k:${i}`,
      value: i,
      nb_replay: 0,
      logs: null,
      created_at: nowIso(),
    }));
    for (let i = 0; i < rows.length; i += 200) await ctx().storage.db.insertInto('ratings').values(rows.slice(i, i + 200)).execute();
    const csv = parseCsv((await cli(['export', 'fixture-pair'])).out);
    expect(csv.map((r) => Number(r.value))).toEqual(rows.map((r) => r.value));
    const jsonl = (await cli(['export', 'fixture-pair', '--format', 'json'])).out.trimEnd().split('\n');
    expect(jsonl).toHaveLength(1234);
  });

  it('exports bubble mouse logs and session logs with --table', async () => {
    await cli(['import', await writeStudy(studyOf('bubble', { id: 'bub', playlists: 1, perPlaylist: 1 }))]);
    const p = json<PlaylistResponse<BubblePlaylistStimulus>>(await getPlaylist(ctx().app, '/api/getbubble/bub', 'ft=1'));
    const mouse = { mediaA: [{ x: 1, y: 2, t: 3, vt: 0 }, { x: 4, y: 5, t: 6, vt: 0 }], mediaB: [{ x: 7, y: 8, t: 9, vt: 0 }] };
    const id = p.stimulis[0].stimuli_id;
    await postJson(ctx().app, '/api/bubblescreenings/', { stimuli_id: id, session_id: p.session_id, session_token: p.sessionToken, mouse_logs: mouse, screening_no: 2, logs: null });
    const res = await cli(['export', 'bub', '--table', 'screenings', '--format', 'json']);
    expect(JSON.parse(res.out)).toMatchObject({ session_id: p.session_id, stimulus_id: id, screening_no: 2, samples_a: 2, samples_b: 1, mouse_logs: mouse, source_a: 'red.png', source_b: 'green.png' });
    const csv = parseCsv((await cli(['export', 'bub', '--table', 'screenings'])).out);
    expect(JSON.parse(csv[0].mouse_logs)).toEqual(mouse);

    const logs = sessionLogsOf(p.sessionToken!);
    await postJson(ctx().app, '/api/sessionlogs/', logs);
    const exported = JSON.parse((await cli(['export', 'bub', '--table', 'sessionlogs', '--format', 'json'])).out);
    expect(exported.body.logStates).toEqual(logs.logStates);
    expect(exported.session_id).toBe(p.session_id);
  });

  it('lists jobs with sessions started/completed and answers stored', async () => {
    await cli(['import', PAIR_STUDY]);
    const { a } = await rateSomething();
    await postJson(ctx().app, '/api/ratings/', ratingBody(a, a.stimulis[1].stimuliId, { value: 1, logs: 'a "quoted", text\nwith a newline' }));
    expect((await ctx().app.inject(`/api/sessions/token/${a.sessionToken}`)).statusCode).toBe(200);
    const res = await cli(['list']);
    expect(res.out.trim().split('\n')).toEqual(['job\tprotocol\tplaylists\tsessions_started\tsessions_completed\tratings\tscreenings', 'fixture-pair\tpair_comparison\t2\t2\t1\t3\t0']);
  });

  it('fails clearly on an unknown job, a bad option and an unknown command', async () => {
    expect(await cli(['export', 'nope'])).toMatchObject({ code: 1, err: 'no job nope\n' });
    await cli(['import', PAIR_STUDY]);
    expect((await cli(['export', 'fixture-pair', '--format', 'xml'])).err).toContain('--format must be csv, json, p910, pairs, mlds; got xml');
    expect((await cli(['export', 'fixture-pair', '--table', 'users'])).code).toBe(1);
    expect((await cli(['frobnicate'])).err).toContain('Usage: npm run cli');
  });
});

it("gives every thread of the CLI's process the lower priority, not only its main thread (Linux keeps one per thread)", async () => {
  const { execFile } = await import('node:child_process');
  const script = [
    "import { readdirSync, readFileSync } from 'node:fs';",
    "const { lowerPriority } = await import('./src/server/cli.ts');",
    "const niceness = () => readdirSync('/proc/self/task').map((t) => Number(readFileSync(`/proc/self/task/${t}/stat`, 'utf8').split(') ')[1].split(' ')[16]));",
    'lowerPriority(10);',
    'console.log(JSON.stringify(niceness()));',
  ].join('\n');
  const out = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], (error, stdout) => (error ? reject(error) : resolve(stdout))),
  );
  const threads = JSON.parse(out) as number[];
  // V8's and libuv's threads start before any code runs: there are always several.
  expect(threads.length).toBeGreaterThan(3);
  expect(new Set(threads)).toEqual(new Set([10]));
});
