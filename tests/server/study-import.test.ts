import { copyFile, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { StudyConflictError } from '../../src/server/study/import.js';
import { loadStudy, StudyValidationError } from '../../src/server/study/validate.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { COLOUR_FIXTURES } from '../../testkit/pixelFidelity.js';
import { countRows, getPlaylist, json, postJson, ratingBody, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { FIXTURE_MEDIA, jobFields, PAIR_STUDY, sampleStimulus, studyOf, writeStudy } from '../../testkit/studies.js';

/** The problems a study file gets, as "path: message" strings. */
/** The problems of a study (written by writeStudy), or of a study file already written. */
async function problemsOf(study: Record<string, unknown> | string, opts: { keepMedia?: boolean } = {}): Promise<Array<{ path: string; message: string }>> {
  const error = await loadStudy(typeof study === 'string' ? study : await writeStudy(study, opts)).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StudyValidationError);
  return (error as StudyValidationError).problems;
}

it('reports every problem of a study file with its JSON path', async () => {
  const { question: _q, ...job } = { ...jobFields('pair_comparison', { backgroundColor: 'grey' }), requestFullScreen: 2 };
  const problems = await problemsOf({
    id: 'several-errors',
    job,
    extra: true,
    playlists: [
      { stimuli: [{ sourceA: 'red.png' }, { sourceA: 'red.png', sourceB: 'green.png', sourceC: 'blue.png' }] },
      { stimuli: [{ sourceA: 'missing.png', sourceB: 'green.png' }, { sourceA: 'red.png', sourceB: 'green.png', foo: 1 }, { sourceA: '../secret.png', sourceB: 'red.png' }] },
    ],
  });
  const paths = problems.map((p) => p.path);
  expect(paths).toEqual(
    expect.arrayContaining([
      '$.extra',
      '$.job.question',
      '$.job.backgroundColor',
      '$.playlists[0].stimuli[0].sourceB',
      '$.playlists[0].stimuli[1].sourceC',
      '$.playlists[1].stimuli[0].sourceA',
      '$.playlists[1].stimuli[1].foo',
      '$.playlists[1].stimuli[2].sourceA',
    ]),
  );
  expect(problems.find((p) => p.path === '$.playlists[1].stimuli[0].sourceA')!.message).toContain('missing.png not found');
  expect(problems.find((p) => p.path === '$.playlists[0].stimuli[0].sourceB')!.message).toBe('required by pair_comparison');
  expect(problems.find((p) => p.path === '$.extra')!.message).toBe('unknown field');
  // A union reports one line, not one per branch.
  expect(problems.filter((p) => p.path === '$.job.requestFullScreen')).toEqual([{ path: '$.job.requestFullScreen', message: 'must be one of 0, 1' }]);
  // The message of the error lists them all too.
  const error = await loadStudy(await writeStudy({ id: 'x', job: jobFields('triplet'), playlists: [{ stimuli: [{ sourceA: 'red.png' }] }] })).catch((e: Error) => e);
  expect(String(error)).toMatch(/sourceB: required by triplet[\s\S]*sourceC: required by triplet/);
});

it('stops checking stimuli once a file has more than 100 problems, and says so (issue 34: 300,000 invalid stimuli were all checked)', async () => {
  const playlists = [0, 1, 2].map(() => ({ stimuli: Array.from({ length: 1000 }, () => ({ sourceA: 'red.png' })) }));
  const error = (await loadStudy(await writeStudy({ id: 'many-errors', job: jobFields('pair_comparison'), playlists })).catch((e: unknown) => e)) as StudyValidationError;
  expect(error).toBeInstanceOf(StudyValidationError);
  expect(error.problems).toHaveLength(100);
  expect(error.problems.at(-1)!.path).toBe('$.playlists[0].stimuli[99].sourceB');
  expect(error.checkedAll).toBe(false);
  expect(error.more).toBeLessThan(5);
  expect(error.message).toMatch(/: more than 100 problems \(the stimuli after the first 100 problems were not checked\)\n/);
});

it.each([
  ['maximum_likelihood_difference_scaling', { sourceA: 'red.png', sourceB: 'green.png', sourceC: 'blue.png' }, '$.playlists[0].stimuli[0].sourceD'],
  ['triplet', { sourceA: 'red.png', sourceB: 'green.png' }, '$.playlists[0].stimuli[0].sourceC'],
  ['absolute_category_rating', { source: 'red.png', sourceA: 'green.png' }, '$.playlists[0].stimuli[0]'],
  ['acceptability_annoyance', { sourceB: 'red.png' }, '$.playlists[0].stimuli[0]'],
  ['double_stimulus_impairment_scale', { source: 'red.png' }, '$.playlists[0].stimuli[0].sourceA'],
  ['bubble', { sourceA: { source: 'red.png', height: 18, width: 32, blur: 4 } }, '$.playlists[0].stimuli[0].sourceA.radius'],
  ['bubble', { sourceA: 'red.png' }, '$.playlists[0].stimuli[0].sourceA'],
  ['piiface', { source: 'red.png' }, '$.playlists[0].stimuli[0].type'],
  ['piiface', { sourceA: 'red.png', sourceB: 'green.png' }, '$.playlists[0].stimuli[0].sourceA'],
] as const)('checks the %s stimulus shape', async (protocol, stimulus, path) => {
  const problems = await problemsOf({ id: 'shape', job: jobFields(protocol), playlists: [{ stimuli: [stimulus] }] });
  expect(problems.map((p) => p.path)).toContain(path);
});

it('reports a file that is not JSON, a missing media folder and an empty playlist', async () => {
  const file = await writeStudy({});
  await writeFile(file, '{"id": "x",');
  const notJson = (await loadStudy(file).catch((e: unknown) => e)) as StudyValidationError;
  expect(notJson.problems[0].path).toBe('$');
  const problems = await problemsOf({ id: 'x', job: jobFields('pair_comparison'), media: 'no-such-folder', playlists: [{ stimuli: [] }] });
  expect(problems.map((p) => p.path)).toEqual(expect.arrayContaining(['$.media', '$.playlists[0].stimuli']));
});

it('accepts every protocol\'s sample study', async () => {
  for (const protocol of ['pair_comparison', 'bubble', 'piiface', 'triplet'] as const) {
    const file = await writeStudy(studyOf(protocol, { training: 1 }));
    const loaded = await loadStudy(file);
    expect(loaded.mediaRoot).toBe(join(await realpath(dirname(file)), 'media'));
  }
});

it('takes media only from inside the study file\'s folder, and only images, videos and 3D objects', async () => {
  const outside = await problemsOf({ id: 'etc', job: jobFields('pair_comparison'), media: '/etc', playlists: [{ stimuli: [{ sourceA: 'passwd', sourceB: 'hostname' }] }] }, { keepMedia: true });
  expect(outside).toEqual(
    expect.arrayContaining([
      { path: '$.media', message: expect.stringMatching(/^media folder \/etc is outside the study file's folder /) },
      { path: '$.playlists[0].stimuli[0].sourceA', message: expect.stringMatching(/^passwd is not an image, a video or a 3D object \(allowed: \.png, .*\.mp4/) },
    ]),
  );
  // A folder reached through a symlink, and a file linked from elsewhere, are outside too.
  const file = await writeStudy({ id: 'links', job: jobFields('pair_comparison'), playlists: [{ stimuli: [{ sourceA: 'red.png', sourceB: 'outside.png' }] }] });
  await symlink(join(FIXTURE_MEDIA, 'green.png'), join(dirname(file), 'media', 'outside.png'));
  expect((await problemsOf(file)).map((p) => p.message)).toEqual([expect.stringMatching(/outside\.png is outside the media folder/)]);
  const linkedFolder = await writeStudy({ id: 'linked', job: jobFields('pair_comparison'), media: 'linked', playlists: [{ stimuli: [{ sourceA: 'red.png', sourceB: 'green.png' }] }] }, { keepMedia: true });
  await symlink(FIXTURE_MEDIA, join(dirname(linkedFolder), 'linked'));
  expect((await problemsOf(linkedFolder)).map((p) => p.path)).toEqual(['$.media']);
  // A database beside the media is not a stimulus.
  const db = await problemsOf({ id: 'db', job: jobFields('absolute_category_rating'), playlists: [{ stimuli: [{ source: 'glimpse.db' }] }] });
  expect(db).toEqual([{ path: '$.playlists[0].stimuli[0].source', message: expect.stringContaining('glimpse.db is not an image, a video or a 3D object') }]);
});

it('reads each video\'s container and refuses, naming the file, a codec the player does not decode', async () => {
  const file = await writeStudy({ id: 'codecs', job: jobFields('absolute_category_rating', { category_id: 5 }), playlists: [{ stimuli: [{ source: 'clip.mp4' }, { source: 'clip-hevc.mp4' }, { source: 'fake.mp4' }, { source: 'clip-hevc.mp4' }] }] });
  await writeFile(join(dirname(file), 'media', 'fake.mp4'), 'this is not a video');
  expect(await problemsOf(file)).toEqual([
    { path: '$.playlists[0].stimuli[1].source', message: 'video clip-hevc.mp4 uses hevc, which the player does not support (H.264, VP8, VP9, AV1)' },
    { path: '$.playlists[0].stimuli[2].source', message: 'video fake.mp4 is not a readable video file (MP4, WebM, Matroska, QuickTime or Ogg)' },
    { path: '$.playlists[0].stimuli[3].source', message: 'video clip-hevc.mp4 uses hevc, which the player does not support (H.264, VP8, VP9, AV1)' },
  ]);
});

/** A PNG with one more chunk before its image data (its CRC computed: a well-formed file). */
function withChunk(png: Buffer, type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  body.copy(chunk, 4);
  chunk.writeUInt32BE(crc32(body), 8 + data.length);
  const ihdrEnd = 8 + 12 + png.readUInt32BE(8);
  return Buffer.concat([png.subarray(0, ihdrEnd), chunk, png.subarray(ihdrEnd)]);
}

it('reads each image\'s colour tags and bit depth: sRGB or untagged 8-bit is accepted, anything the stage would show converted is refused, naming the file', async () => {
  const file = await writeStudy({
    id: 'colours',
    job: jobFields('absolute_category_rating'),
    playlists: [{ stimuli: ['plain.png', 'srgb.jpg', 'p3.jpg', 'deep.png', 'linear.png', 'gamma-srgb.png'].map((source) => ({ source })) }],
  });
  const media = join(dirname(file), 'media');
  const pixels = sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 200, g: 60, b: 30 } } });
  await writeFile(join(media, 'plain.png'), await pixels.clone().png().toBuffer());
  await writeFile(join(media, 'srgb.jpg'), await pixels.clone().withIccProfile('srgb').jpeg().toBuffer());
  await writeFile(join(media, 'p3.jpg'), await pixels.clone().withIccProfile('p3').jpeg().toBuffer());
  await writeFile(join(media, 'deep.png'), await pixels.clone().toColourspace('rgb16').png().toBuffer());
  const gamma = (value: number) => Buffer.from([value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]);
  await writeFile(join(media, 'linear.png'), withChunk(await pixels.clone().png().toBuffer(), 'gAMA', gamma(100000)));
  await writeFile(join(media, 'gamma-srgb.png'), withChunk(await pixels.clone().png().toBuffer(), 'gAMA', gamma(45455)));
  const problems = await problemsOf(file);
  expect(problems.map((p) => p.path)).toEqual(['$.playlists[0].stimuli[2].source', '$.playlists[0].stimuli[3].source', '$.playlists[0].stimuli[4].source']);
  expect(problems[0]!.message).toMatch(/^image p3\.jpg carries the colour profile "sP3C": the stage shows stored values as sRGB, without conversion; convert it to sRGB/);
  expect(problems[1]!.message).toMatch(/^image deep\.png has 16 bits per channel: browsers show 8/);
  expect(problems[2]!.message).toBe(
    "image linear.png declares a gamma of 1/1.00 (PNG gAMA 100000), not sRGB's 1/2.2: browsers would re-encode it; convert it to sRGB and remove the chunk",
  );
});

it('refuses, naming the file, a clip the stage cannot show exactly: 10-bit, HDR (PQ, HLG) and BT.2020', async () => {
  const clips = ['bars-bt709-limited.mp4', 'high10.mp4', 'hdr-pq.webm', 'hdr-hlg.mp4'];
  const file = await writeStudy({ id: 'hdr', job: jobFields('absolute_category_rating', { category_id: 5 }), playlists: [{ stimuli: clips.map((source) => ({ source })) }] });
  for (const clip of clips) await copyFile(join(COLOUR_FIXTURES, clip), join(dirname(file), 'media', clip));
  expect(await problemsOf(file)).toEqual([
    {
      path: '$.playlists[0].stimuli[1].source',
      message: 'video high10.mp4 has 10 bits per sample: some browsers do not decode it (H.264 High 10 in Safari and hardware decoders), and the stage shows 8; encode it with 8 bits (yuv420p)',
    },
    { path: '$.playlists[0].stimuli[2].source', message: 'video hdr-pq.webm is HDR (PQ, SMPTE 2084): the stage shows SDR pictures as they are and does no tone mapping; grade it to SDR BT.709 first' },
    { path: '$.playlists[0].stimuli[3].source', message: 'video hdr-hlg.mp4 is HDR (HLG): the stage shows SDR pictures as they are and does no tone mapping; grade it to SDR BT.709 first' },
  ]);
});

describeEachDialect('study import', (dialect) => {
  const ctx = useServer(dialect);
  const snapshot = async () => ({
    playlists: await ctx().storage.db.selectFrom('playlists').select(['id', 'position']).orderBy('id').execute(),
    stimuli: await ctx().storage.db.selectFrom('stimuli').select(['id', 'playlist_id', 'is_training', 'position', 'spec']).orderBy('id').execute(),
  });

  it('stores nothing for an invalid study', async () => {
    await expect(ctx().importStudy(await writeStudy({ id: 'bad', job: jobFields('triplet'), playlists: [{ stimuli: [{ sourceA: 'red.png' }] }] }))).rejects.toBeInstanceOf(
      StudyValidationError,
    );
    expect(await ctx().storage.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
  });

  it('copies the media and is idempotent on re-import', async () => {
    const first = await ctx().importStudy(PAIR_STUDY);
    expect(first).toMatchObject({ jobId: 'fixture-pair', status: 'created', playlists: 2, stimuli: 4, mediaCopied: 4 });
    expect((await readFile(join(ctx().mediaDir, 'fixture-pair', 'red.png'))).equals(await readFile(join(FIXTURE_MEDIA, 'red.png')))).toBe(true);
    const before = await snapshot();
    const again = await ctx().importStudy(PAIR_STUDY);
    expect(again).toMatchObject({ status: 'unchanged', mediaCopied: 0 });
    expect(await snapshot()).toEqual(before);
    expect(before.stimuli.map((s) => JSON.parse(s.spec))).toEqual([
      { sourceA: 'red.png', sourceB: 'green.png' },
      { reversed: true, sourceA: 'blue.png', sourceB: 'yellow.png' },
      { sourceA: 'green.png', sourceB: 'red.png' },
      { sourceA: 'yellow.png', sourceB: 'blue.png' },
    ]);
  });

  it('updates job fields in place, even with stored ratings', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const p = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair'));
    await postJson(ctx().app, '/api/ratings/', ratingBody(p, p.stimulis[0].stimuliId));
    const study = JSON.parse(await readFile(PAIR_STUDY, 'utf8'));
    study.job.question = 'Which one looks better?';
    study.media = FIXTURE_MEDIA;
    const before = await snapshot();
    const edited = await writeStudy(study);
    // Another file reusing the id: refused unless --replace says so.
    expect(String(await ctx().importStudy(edited).catch((e: Error) => e))).toContain('use --replace if that is what you want');
    expect((await ctx().importStudy(edited, { replace: true })).status).toBe('updated');
    expect(json(await ctx().app.inject('/api/jobs/fixture-pair')).question).toBe('Which one looks better?');
    expect(await snapshot()).toEqual(before);
  });

  it('rewrites changed playlists when no answer is stored, keeping the ids it can', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const before = await snapshot();
    // An abandoned session on the playlist that goes away.
    // Two anonymous participants: the second one goes to the second playlist.
    await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair');
    expect(json(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair')).playlistId).toBe(before.playlists[1].id);
    const study = { ...JSON.parse(await readFile(PAIR_STUDY, 'utf8')), media: FIXTURE_MEDIA };
    study.playlists = [{ stimuli: [study.playlists[0].stimuli[0], { sourceA: 'yellow.png', sourceB: 'red.png' }, { sourceA: 'red.png', sourceB: 'blue.png' }] }];
    expect((await ctx().importStudy(await writeStudy(study), { replace: true })).status).toBe('updated');
    const after = await snapshot();
    expect(after.playlists).toEqual([before.playlists[0]]);
    expect(after.stimuli.map((s) => s.id).slice(0, 2)).toEqual(before.stimuli.slice(0, 2).map((s) => s.id));
    expect(after.stimuli.map((s) => JSON.parse(s.spec).sourceA)).toEqual(['red.png', 'yellow.png', 'red.png']);
    // The session of the removed playlist went with it; the other one stays.
    expect(await ctx().storage.db.selectFrom('sessions').select('playlist_id').execute()).toEqual([{ playlist_id: before.playlists[0].id }]);
  });

  it('refuses to change playlists that already have answers, changing nothing', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const p = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair'));
    await postJson(ctx().app, '/api/ratings/', ratingBody(p, p.stimulis[0].stimuliId));
    const before = await snapshot();
    const study = { ...JSON.parse(await readFile(PAIR_STUDY, 'utf8')), media: FIXTURE_MEDIA };
    study.playlists[0].stimuli.reverse();
    study.job.question = 'changed too';
    const file = await writeStudy(study);
    // The media of the refused file differ too: the served bytes must not change.
    await writeFile(join(dirname(file), 'media', 'red.png'), await readFile(join(FIXTURE_MEDIA, 'blue.png')));
    const served = await readFile(join(ctx().mediaDir, 'fixture-pair', 'red.png'));
    const error = await ctx().importStudy(file, { replace: true }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(StudyConflictError);
    expect(String(error)).toContain('already has 1 stored answers');
    expect(await snapshot()).toEqual(before);
    expect((await readFile(join(ctx().mediaDir, 'fixture-pair', 'red.png'))).equals(served)).toBe(true);
    expect(json(await ctx().app.inject('/api/jobs/fixture-pair')).question).toBe('Which image has the better quality?');
    expect(await countRows(ctx().storage, 'ratings')).toBe(1);
  });

  it('imports a large playlist in chunks', async () => {
    const study = { id: 'large', job: jobFields('absolute_category_rating'), playlists: [{ stimuli: Array.from({ length: 1300 }, (_, i) => sampleStimulus('absolute_category_rating', i)) }] };
    const file = await writeStudy(study);
    expect(await ctx().importStudy(file)).toMatchObject({ status: 'created', stimuli: 1300 });
    expect(await ctx().importStudy(file)).toMatchObject({ status: 'unchanged' });
    expect(json(await getPlaylist(ctx().app, '/api/getacr/large')).stimulis).toHaveLength(1300);
  });

  it('finds a change in the last page of a long playlist (read 2,000 stored stimuli at a time)', async () => {
    const stimuli = Array.from({ length: 4_500 }, (_, i) => sampleStimulus('absolute_category_rating', i));
    const file = await writeStudy({ id: 'paged', job: jobFields('absolute_category_rating'), playlists: [{ stimuli }] });
    expect(await ctx().importStudy(file)).toMatchObject({ status: 'created', stimuli: 4_500 });
    expect(await ctx().importStudy(file)).toMatchObject({ status: 'unchanged' });
    const study = JSON.parse(await readFile(file, 'utf8')) as { playlists: Array<{ stimuli: Array<{ source: string }> }> };
    const last = study.playlists[0]!.stimuli[4_499]!.source === 'red.png' ? 'green.png' : 'red.png';
    study.playlists[0]!.stimuli[4_499] = { source: last };
    await writeFile(file, JSON.stringify(study));
    expect(await ctx().importStudy(file)).toMatchObject({ status: 'updated' });
    const stored = await ctx().storage.db.selectFrom('stimuli').select('spec').where('position', '=', 4_499).where('is_training', '=', 0).execute();
    expect(stored.map((row) => JSON.parse(row.spec) as unknown)).toEqual([{ source: last }]);
  });
});
