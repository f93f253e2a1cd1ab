import { readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MeshoptDecoder } from 'meshoptimizer';
import { expect, it, vi } from 'vitest';
import { impairMesh, pointCloud, texturedMesh, writeCloud, writeMesh } from '../../scripts/demo/render-model.js';
import { MODEL_LIMITS } from '../../src/server/study/model-limits.js';
import { encodePly } from '../../src/server/study/ply.js';
import { loadStudy, StudyValidationError } from '../../src/server/study/validate.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { getPlaylist, json, useServer } from '../../testkit/server.js';
import { jobFields, writeStudy } from '../../testkit/studies.js';

/** An ACR study of these sources, its media folder holding the fixture images; returns the study file and folder. */
async function acrStudy(id: string, sources: string[]): Promise<{ file: string; media: string }> {
  const file = await writeStudy({ id, job: jobFields('absolute_category_rating', { category_id: 5 }), playlists: [{ stimuli: sources.map((source) => ({ source })) }] });
  return { file, media: join(dirname(file), 'media') };
}

async function problemsOf(file: string): Promise<Array<{ path: string; message: string }>> {
  const error = await loadStudy(file).then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(StudyValidationError);
  return (error as StudyValidationError).problems;
}

const cloud = pointCloud('dome', 500);

it('accepts textured glb, gltf with side files, meshopt-compressed and quantized meshes, and binary and ASCII PLY', async () => {
  const sources = ['knot.glb', 'g/shell.gltf', 'knot-meshopt.glb', 'knot-q10.glb', 'le.ply', 'be.ply', 'ascii.ply'];
  const { file, media } = await acrStudy('models-ok', sources);
  await writeMesh(await texturedMesh('knot', { segments: 40, rings: 8 }), join(media, 'knot.glb'));
  await writeMesh(await texturedMesh('shell', { segments: 40, rings: 8 }), join(media, 'g', 'shell.gltf'));
  const compressed = await texturedMesh('knot', { segments: 40, rings: 8 });
  await impairMesh(compressed, [{ op: 'quantize', bits: 14 }, { op: 'meshopt' }]);
  await writeMesh(compressed, join(media, 'knot-meshopt.glb'));
  const quantized = await texturedMesh('knot', { segments: 40, rings: 8 });
  await impairMesh(quantized, [{ op: 'quantize', bits: 10 }]);
  await writeMesh(quantized, join(media, 'knot-q10.glb'));
  await writeCloud(cloud, join(media, 'le.ply'), 'binary_little_endian');
  await writeCloud(cloud, join(media, 'be.ply'), 'binary_big_endian');
  await writeCloud(cloud, join(media, 'ascii.ply'), 'ascii');
  expect((await readFile(join(media, 'knot-meshopt.glb'), 'latin1')).includes('EXT_meshopt_compression')).toBe(true);
  expect((await readFile(join(media, 'knot-q10.glb'), 'latin1')).includes('KHR_mesh_quantization')).toBe(true);

  const loaded = await loadStudy(file);
  const gltfBytes = (await Promise.all(['shell.gltf', 'shell.bin', 'shell.png'].map((f) => stat(join(media, 'g', f))))).reduce((n, s) => n + s.size, 0);
  expect(loaded.models.get('g/shell.gltf')).toEqual({ sideFiles: ['g/shell.bin', 'g/shell.png'], loadBytes: gltfBytes });
  expect(loaded.models.get('knot.glb')).toEqual({ sideFiles: [], loadBytes: (await stat(join(media, 'knot.glb'))).size });
  expect([...loaded.models.keys()].sort()).toEqual([...sources].sort());
});

it('refuses a malformed glb or gltf, naming the file, the reason and the stimulus', async () => {
  const { file, media } = await acrStudy('models-bad', ['truncated.glb', 'badjson.glb', 'g/notexture.gltf', 'g/escape.gltf', 'g/remote.gltf', 'junk.glb']);
  const glb = new Uint8Array(await (async () => {
    await writeMesh(await texturedMesh('knot', { segments: 20, rings: 6 }), join(media, 'whole.glb'));
    return readFile(join(media, 'whole.glb'));
  })());
  await writeFile(join(media, 'truncated.glb'), glb.subarray(0, glb.length - 1000));
  const badJson = Buffer.from(glb);
  badJson.write('#', 20, 'latin1'); // the first byte of the JSON chunk's text
  await writeFile(join(media, 'badjson.glb'), badJson);
  await writeFile(join(media, 'junk.glb'), 'not a model at all');
  await writeMesh(await texturedMesh('shell', { segments: 20, rings: 6 }), join(media, 'g', 'notexture.gltf'));
  const gltf = JSON.parse(await readFile(join(media, 'g', 'notexture.gltf'), 'utf8')) as { images: Array<{ uri: string }>; buffers: Array<{ uri: string }> };
  await writeFile(join(media, 'g', 'notexture.gltf'), JSON.stringify({ ...gltf, images: [{ uri: 'textures/missing.png' }] }));
  await writeFile(join(media, 'g', 'escape.gltf'), JSON.stringify({ ...gltf, buffers: [{ ...gltf.buffers[0], uri: '../whole.glb' }] }));
  await writeFile(join(media, 'g', 'remote.gltf'), JSON.stringify({ ...gltf, images: [{ uri: 'https://example.org/t.png' }] }));

  const at = (i: number) => `$.playlists[0].stimuli[${i}].source`;
  expect(await problemsOf(file)).toEqual([
    { path: at(0), message: expect.stringMatching(/^model truncated\.glb is not a readable glTF binary \(\.glb\): /) },
    { path: at(1), message: expect.stringMatching(/^model badjson\.glb is not a readable glTF binary \(\.glb\): /) },
    { path: at(2), message: 'model g/notexture.gltf: texture g/textures/missing.png (images[0]) not found in the media folder' },
    { path: at(3), message: 'model g/escape.gltf: buffers[0].uri "../whole.glb" must be a relative path to a file beside it (plain names, no "..", no absolute or remote address)' },
    { path: at(4), message: 'model g/remote.gltf: images[0].uri "https://example.org/t.png" must be a relative path to a file beside it (plain names, no "..", no absolute or remote address)' },
    { path: at(5), message: expect.stringMatching(/^model junk\.glb is not a readable glTF binary \(\.glb\): Invalid glTF 2\.0 binary/) },
  ]);
});

it('refuses an accessor that reaches past its buffer, and indices past the vertices', async () => {
  const { file, media } = await acrStudy('models-bounds', ['overrun.gltf', 'indices.gltf']);
  const positions = Buffer.alloc(36).toString('base64');
  const base = { asset: { version: '2.0' }, scenes: [{ nodes: [0] }], nodes: [{ mesh: 0 }] };
  await writeFile(join(media, 'overrun.gltf'), JSON.stringify({
    ...base,
    buffers: [{ byteLength: 12, uri: `data:application/octet-stream;base64,${Buffer.alloc(12).toString('base64')}` }],
    bufferViews: [{ buffer: 0, byteLength: 12 }],
    accessors: [{ bufferView: 0, componentType: 5126, count: 3, type: 'VEC3' }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] }],
  }));
  const indices = Buffer.from(new Uint16Array([0, 1, 7]).buffer);
  await writeFile(join(media, 'indices.gltf'), JSON.stringify({
    ...base,
    buffers: [{ byteLength: 44, uri: `data:application/octet-stream;base64,${Buffer.concat([Buffer.from(positions, 'base64'), indices, Buffer.alloc(2)]).toString('base64')}` }],
    bufferViews: [{ buffer: 0, byteLength: 36 }, { buffer: 0, byteOffset: 36, byteLength: 6 }],
    accessors: [{ bufferView: 0, componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [0, 0, 0] }, { bufferView: 1, componentType: 5123, count: 3, type: 'SCALAR' }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 }, indices: 1 }] }],
  }));
  expect(await problemsOf(file)).toEqual([
    { path: '$.playlists[0].stimuli[0].source', message: 'model overrun.gltf is malformed: accessors[0] (3 × VEC3) reaches byte 36 of bufferViews[0], which has 12' },
    { path: '$.playlists[0].stimuli[1].source', message: 'model indices.gltf is malformed: mesh "" has index 7 but 3 vertices' },
  ]);
});

it('refuses a PLY whose body does not hold what its header declares, and one over the point limit', async () => {
  const { file, media } = await acrStudy('ply-bad', ['short.ply', 'long.ply', 'ascii-short.ply', 'ascii-extra.ply', 'huge.ply', 'noply.ply', 'nox.ply']);
  const three = pointCloud('spiral', 3);
  const binary = encodePly(three, 'binary_little_endian');
  await writeFile(join(media, 'short.ply'), binary.subarray(0, binary.length - 5));
  await writeFile(join(media, 'long.ply'), Buffer.concat([binary, Buffer.alloc(15)]));
  const ascii = Buffer.from(encodePly(three, 'ascii')).toString('latin1');
  await writeFile(join(media, 'ascii-short.ply'), ascii.replace('element vertex 3', 'element vertex 4'));
  await writeFile(join(media, 'ascii-extra.ply'), ascii.replace('element vertex 3', 'element vertex 2'));
  await writeFile(join(media, 'huge.ply'), `ply\nformat binary_little_endian 1.0\nelement vertex ${MODEL_LIMITS.maxPoints + 1}\nproperty float x\nproperty float y\nproperty float z\nend_header\n`);
  await writeFile(join(media, 'noply.ply'), 'solid cube\nendsolid\n');
  await writeFile(join(media, 'nox.ply'), 'ply\nformat ascii 1.0\nelement vertex 1\nproperty float y\nproperty float z\nend_header\n1 2\n');
  const messages = (await problemsOf(file)).map((p) => `${p.path.replace('$.playlists[0].stimuli', '')} ${p.message}`);
  expect(messages).toEqual([
    '[0].source point cloud short.ply is truncated: its 3 vertex elements need 45 bytes of body, the file has 40',
    '[1].source point cloud long.ply has 15 bytes after its last element (the header\'s counts are wrong)',
    '[2].source point cloud ascii-short.ply has 3 body lines, fewer than its header declares (vertex 3 of 4 is missing)',
    '[3].source point cloud ascii-extra.ply has 1 more body line(s) than its header declares',
    `[4].source point cloud huge.ply has 2,000,001 points, over the limit of 2,000,000`,
    '[5].source point cloud noply.ply is not a PLY file (its first line must be "ply")',
    '[6].source point cloud nox.ply has no float vertex property x',
  ]);
});

it('refuses, before decoding, a model over the size limit, too many objects, or too many triangles by instancing', async () => {
  const { file, media } = await acrStudy('models-limits', ['big.glb', 'instanced.gltf', 'nodes.gltf']);
  // A sparse file: its size is over the limit without the bytes being written.
  await writeFile(join(media, 'big.glb'), '');
  await truncate(join(media, 'big.glb'), MODEL_LIMITS.maxBytes + 1);
  // One mesh of 1,000 triangles drawn by 2,001 nodes: 2,001,000 triangles in a 50 KB file.
  const vertices = Buffer.from(new Float32Array(9000).map((_, i) => i % 7).buffer);
  const gltf = (nodes: number) => ({
    asset: { version: '2.0' },
    scenes: [{ nodes: [0] }],
    nodes: Array.from({ length: nodes }, () => ({ mesh: 0 })),
    buffers: [{ byteLength: vertices.length, uri: `data:application/octet-stream;base64,${vertices.toString('base64')}` }],
    bufferViews: [{ buffer: 0, byteLength: vertices.length }],
    accessors: [{ bufferView: 0, componentType: 5126, count: 3000, type: 'VEC3', min: [0, 0, 0], max: [6, 6, 6] }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] }],
  });
  await writeFile(join(media, 'instanced.gltf'), JSON.stringify(gltf(2001)));
  await writeFile(join(media, 'nodes.gltf'), JSON.stringify(gltf(MODEL_LIMITS.maxObjects + 1)));
  expect(await problemsOf(file)).toEqual([
    { path: '$.playlists[0].stimuli[0].source', message: 'model big.glb is 268,435,457 bytes, over the limit of 268,435,456' },
    { path: '$.playlists[0].stimuli[1].source', message: 'model instanced.gltf draws 2,001,000 triangles, over the limit of 2,000,000' },
    { path: '$.playlists[0].stimuli[2].source', message: 'model nodes.gltf has 100,001 nodes, over the limit of 100,000 of a kind' },
  ]);
  // Under the limit, the same mesh drawn by 2,000 nodes is accepted.
  await writeFile(join(media, 'instanced.gltf'), JSON.stringify(gltf(2000)));
  expect((await problemsOf(file)).map((p) => p.path)).toEqual(['$.playlists[0].stimuli[0].source', '$.playlists[0].stimuli[2].source']);
});

/** A GLB of its JSON and binary chunk, each padded to 4 bytes. */
function glb(json: object, bin: Buffer): Buffer {
  const text = Buffer.from(JSON.stringify(json));
  const chunks = [Buffer.concat([text, Buffer.alloc(-text.length & 3, 0x20)]), Buffer.concat([bin, Buffer.alloc(-bin.length & 3)])];
  const header = Buffer.alloc(12);
  header.write('glTF', 0, 'latin1');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + 16 + chunks[0]!.length + chunks[1]!.length, 8);
  const chunkHeader = (chunk: Buffer, type: number) => Buffer.from(new Uint32Array([chunk.length, type]).buffer);
  return Buffer.concat([header, chunkHeader(chunks[0]!, 0x4e4f534a), chunks[0]!, chunkHeader(chunks[1]!, 0x004e4942), chunks[1]!]);
}

/**
 * One triangle whose `views` meshopt-compressed buffer views (16-byte vertices) each decode to `count` vertices, all
 * from one stream: zero vertices cost the codec 4 bits each (version byte 0xa0, then 4 zero bytes per byte of stride
 * for each block of 256 vertices, then a zero tail), so 1 MB of stream decodes to 64 MB, as often as views name it.
 */
function meshoptViews(views: number, count: number): Buffer {
  const stride = 16;
  const stream = Buffer.alloc(1 + Math.ceil(count / 256) * stride * 4 + 32);
  stream[0] = 0xa0;
  const meshopt = { buffer: 0, byteLength: stream.length, byteStride: stride, count, mode: 'ATTRIBUTES' };
  return glb({
    asset: { version: '2.0' },
    extensionsUsed: ['EXT_meshopt_compression'],
    extensionsRequired: ['EXT_meshopt_compression'],
    buffers: [{ byteLength: stream.length }, { byteLength: count * stride, extensions: { EXT_meshopt_compression: { fallback: true } } }],
    bufferViews: Array.from({ length: views }, () => ({ buffer: 1, byteLength: count * stride, byteStride: stride, extensions: { EXT_meshopt_compression: meshopt } })),
    accessors: [{ bufferView: 0, componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [0, 0, 0] }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] }],
    nodes: [{ mesh: 0 }],
    scenes: [{ nodes: [0] }],
  }, stream);
}

it('refuses, before decoding, a meshopt file whose compressed views decode to more than the limit, however few triangles it draws', async () => {
  const { file, media } = await acrStudy('models-decoded', ['bomb.glb', 'small.glb', 'aliased.gltf', 'draco.gltf']);
  // 8 views of 4 M vertices sharing one 1 MB stream: 512 MiB decoded (the probe of issue 34: 2.5 GB from 4.2 MB).
  const bomb = meshoptViews(8, 4 << 20);
  expect(bomb.length).toBeLessThan(1.1e6);
  await writeFile(join(media, 'bomb.glb'), bomb);
  // The same file decoding to 8 × 16 KiB is a legitimate meshopt object.
  await writeFile(join(media, 'small.glb'), meshoptViews(8, 1024));
  // Accessors copy what they read: 3,000 of them over one 1.6 MB view read 4.8 GB.
  const vertices = Buffer.alloc(12 * 140_000);
  await writeFile(join(media, 'aliased.gltf'), JSON.stringify({
    asset: { version: '2.0' },
    buffers: [{ byteLength: vertices.length, uri: `data:application/octet-stream;base64,${vertices.toString('base64')}` }],
    bufferViews: [{ buffer: 0, byteLength: vertices.length }],
    accessors: Array.from({ length: 3000 }, () => ({ bufferView: 0, componentType: 5126, count: 140_000, type: 'VEC3', min: [0, 0, 0], max: [0, 0, 0] })),
    meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] }],
    nodes: [{ mesh: 0 }],
    scenes: [{ nodes: [0] }],
  }));
  // Draco is another compression, which neither the importer nor the stage decodes.
  await writeFile(join(media, 'draco.gltf'), JSON.stringify({ asset: { version: '2.0' }, extensionsUsed: ['KHR_draco_mesh_compression'] }));
  const decode = vi.spyOn(MeshoptDecoder, 'decodeGltfBuffer');
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  try {
    expect(await problemsOf(file)).toEqual([
      { path: '$.playlists[0].stimuli[0].source', message: 'model bomb.glb has compressed buffer views (EXT_meshopt_compression) that decode to 536,870,912 bytes, over the limit of 268,435,456' },
      { path: '$.playlists[0].stimuli[2].source', message: 'model aliased.gltf has accessors that read 5,040,000,000 bytes, over the limit of 268,435,456' },
      { path: '$.playlists[0].stimuli[3].source', message: 'model draco.gltf uses Draco compression (KHR_draco_mesh_compression), which the stage does not decode; compress it with meshopt (EXT_meshopt_compression)' },
    ]);
    // Only the small file's 8 views reached the decoder (the real one, watched), and the process's peak memory
    // grew by far less than the 512 MiB the refused file declares.
    expect(decode).toHaveBeenCalledTimes(8);
    expect(process.resourceUsage().maxRSS * 1024 - peakBefore).toBeLessThan(128 * 1024 * 1024);
  } finally {
    decode.mockRestore();
  }
});

it('checks the job\'s 3D options as a stimulus\'s: bounds out of order, a zoom range without the fitted view', async () => {
  const file = await writeStudy({
    id: 'objects-options-bad',
    job: { ...jobFields('absolute_category_rating'), objects: { mode: 'inspect', zoom: [1.5, 3], elevationRange: [40, -40] } },
    playlists: [{ stimuli: [{ source: 'red.png' }, { source: 'green.png', object: { zoom: [0.2, 0.8] } }] }],
  });
  expect(await problemsOf(file)).toEqual([
    { path: '$.playlists[0].stimuli[1].object.zoom', message: 'must be [min, max] with min ≤ 1 ≤ max (1 = the fitted distance)' },
    { path: '$.job.objects.zoom', message: 'must be [min, max] with min ≤ 1 ≤ max (1 = the fitted distance)' },
    { path: '$.job.objects.elevationRange', message: 'must be [min, max] with min ≤ max' },
  ]);
  // A wrong type is the schema's to tell, once, not also a bounds problem.
  const mistyped = await writeStudy({ id: 'objects-options-type', job: { ...jobFields('absolute_category_rating'), objects: { zoom: 'wide' } }, playlists: [{ stimuli: [{ source: 'red.png' }] }] });
  expect((await problemsOf(mistyped)).map((p) => p.path)).toEqual(['$.job.objects.zoom']);
});

it('refuses a 3D object in a protocol or categoryTest whose page cannot draw one, naming the file and the protocol', async () => {
  const bubbleSide = (source: string) => ({ source, height: 18, width: 32, blur: 4, radius: 6 });
  const bubble = await writeStudy({ id: 'bubble-model', job: jobFields('bubble'), playlists: [{ stimuli: [{ sourceA: bubbleSide('le.ply'), sourceB: bubbleSide('red.png') }] }] });
  await writeCloud(cloud, join(dirname(bubble), 'media', 'le.ply'));
  const shownBy =
    'pair_comparison with categoryTest 1 or 2, absolute_category_rating, double_stimulus_impairment_scale with categoryTest 1 or 2, acceptability_annoyance, mlds_pair with categoryTest 1 or 2';
  expect(await problemsOf(bubble)).toEqual([
    { path: '$.playlists[0].stimuli[0].sourceA.source', message: `le.ply is a 3D object, which bubble cannot show (3D objects are shown by ${shownBy})` },
  ]);
  const triplet = await writeStudy({ id: 'triplet-model', job: jobFields('triplet'), playlists: [{ stimuli: [{ sourceA: 'red.png', sourceB: 'knot.glb', sourceC: 'blue.png' }] }] });
  expect(await problemsOf(triplet)).toEqual([
    { path: '$.playlists[0].stimuli[0].sourceB', message: `knot.glb is a 3D object, which triplet cannot show (3D objects are shown by ${shownBy})` },
  ]);
  // A pair on a video page (categoryTest 3: videos side by side) would play the model file as a video.
  const videoPair = await writeStudy({ id: 'video-pair-model', job: jobFields('pair_comparison', { category_id: 3 }), playlists: [{ stimuli: [{ sourceA: 'knot.glb', sourceB: 'le.ply' }] }] });
  expect((await problemsOf(videoPair)).map((p) => `${p.path} ${p.message}`)).toEqual(
    ['sourceA knot.glb', 'sourceB le.ply'].map((s) => `$.playlists[0].stimuli[0].${s.split(' ')[0]} ${s.split(' ')[1]} is a 3D object, which pair_comparison with categoryTest 3 cannot show (3D objects are shown by ${shownBy})`),
  );
});

describeEachDialect('3D object import', (dialect) => {
  const ctx = useServer(dialect);

  it('stores nothing when the job\'s 3D options are refused', async () => {
    const file = await writeStudy({ id: 'objects-refused', job: { ...jobFields('absolute_category_rating'), objects: { zoom: [2, 4] } }, playlists: [{ stimuli: [{ source: 'red.png' }] }] });
    const error = await ctx().importStudy(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudyValidationError);
    expect(String(error)).toContain('$.job.objects.zoom: must be [min, max] with min ≤ 1 ≤ max');
    for (const table of ['jobs', 'playlists', 'stimuli'] as const) expect(await ctx().storage.db.selectFrom(table).selectAll().execute()).toEqual([]);
  });

  it('copies a .gltf with its side files, serves them beside it, and counts them in the loading size', async () => {
    const { file, media } = await acrStudy('models-served', ['g/shell.gltf', 'le.ply', 'red.png']);
    await writeMesh(await texturedMesh('shell', { segments: 30, rings: 6 }), join(media, 'g', 'shell.gltf'));
    await writeCloud(cloud, join(media, 'le.ply'));
    expect(await ctx().importStudy(file)).toMatchObject({ status: 'created', mediaCopied: 5 });
    const size = async (f: string) => (await stat(join(media, f))).size;
    const playlist = json<{ mediaRessources: string[]; mediaSizes: number[] }>(await getPlaylist(ctx().app, '/api/getacr/models-served'));
    const sizes = Object.fromEntries(playlist.mediaRessources.map((name, i) => [name, playlist.mediaSizes[i]]));
    expect(sizes).toEqual({
      'models-served/g/shell.gltf': (await size('g/shell.gltf')) + (await size('g/shell.bin')) + (await size('g/shell.png')),
      'models-served/le.ply': await size('le.ply'),
      'models-served/red.png': await size('red.png'),
    });
    const served = await ctx().app.inject('/resmedias/models-served/g/shell.png');
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(await readFile(join(media, 'g', 'shell.png')))).toBe(true);
    expect((await ctx().app.inject('/resmedias/models-served/g/shell.bin')).rawPayload.length).toBe(await size('g/shell.bin'));
    // A second import changes nothing; the side files are linked, not copied.
    expect(await ctx().importStudy(file)).toMatchObject({ status: 'unchanged', mediaCopied: 0 });
  });
});
