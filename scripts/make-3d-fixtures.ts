/**
 * Small procedural 3D objects for the tests (tests/fixtures/objects/): WebGL is software (SwiftShader) on the test
 * machines, so they stay tiny. Run: `npm run media:3d-fixtures`. Deterministic (no randomness, no download).
 * - cube.glb: a cube whose six faces carry a texture of six coloured quadrants (every view is different);
 * - cube-meshopt.glb: the same, quantized (KHR_mesh_quantization) and meshopt-compressed (EXT_meshopt_compression);
 * - cube.gltf + cube.bin + cube.png: the same as a .gltf with side files;
 * - cloud.ply (binary) and cloud-ascii.ply: a coloured point cloud on a sphere, colour by direction;
 * - broken.glb, broken.ply: not what they say they are.
 * The e2e studies (tests/e2e/studies/e2e-3d-*.json) get copies of the small ones in their media folder.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Document, NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { meshopt, quantize } from '@gltf-transform/functions';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import sharp from 'sharp';

const OUT = path.resolve('tests/fixtures/objects');
/** The e2e studies' copies (a study's media live in its own folder). */
const E2E_OUT = path.resolve('tests/e2e/studies/media/objects');
const E2E_FILES = ['cube.glb', 'cube-meshopt.glb', 'cloud.ply', 'cloud-ascii.ply', 'broken.glb'];

/** A 64×64 texture: four quadrants red, green, blue, yellow with a white cross (orientation is visible). */
async function texturePng(): Promise<Uint8Array> {
  const size = 64;
  const pixels = Buffer.alloc(size * size * 3);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 3;
      const quadrant = (y < size / 2 ? 0 : 2) + (x < size / 2 ? 0 : 1);
      const colours = [
        [220, 40, 40],
        [40, 200, 60],
        [40, 70, 220],
        [230, 210, 40],
      ][quadrant]!;
      const cross = Math.abs(x - size / 2) < 3 || Math.abs(y - size / 2) < 3;
      pixels.set(cross ? [255, 255, 255] : colours, i);
    }
  }
  return new Uint8Array(await sharp(pixels, { raw: { width: size, height: size, channels: 3 } }).png().toBuffer());
}

/** A unit cube, 4 vertices per face (own normals and UVs), each face tinted so that no two faces look alike. */
function cubeDocument(png: Uint8Array, uri: { bin: string; png: string } | null): Document {
  const doc = new Document();
  const buffer = doc.createBuffer().setURI(uri?.bin ?? '');
  const faces: Array<{ n: [number, number, number]; u: [number, number, number]; v: [number, number, number] }> = [
    { n: [0, 0, 1], u: [1, 0, 0], v: [0, 1, 0] },
    { n: [0, 0, -1], u: [-1, 0, 0], v: [0, 1, 0] },
    { n: [1, 0, 0], u: [0, 0, -1], v: [0, 1, 0] },
    { n: [-1, 0, 0], u: [0, 0, 1], v: [0, 1, 0] },
    { n: [0, 1, 0], u: [1, 0, 0], v: [0, 0, -1] },
    { n: [0, -1, 0], u: [1, 0, 0], v: [0, 0, 1] },
  ];
  const tints = [
    [1, 1, 1],
    [0.5, 0.5, 0.5],
    [1, 0.6, 0.6],
    [0.6, 1, 0.6],
    [0.6, 0.6, 1],
    [0.3, 0.3, 0.3],
  ];
  const positions: number[] = [];
  const normals: number[] = [];
  const uvs: number[] = [];
  const colours: number[] = [];
  const indices: number[] = [];
  faces.forEach((f, i) => {
    for (const [a, b] of [
      [-1, -1],
      [1, -1],
      [1, 1],
      [-1, 1],
    ] as const) {
      positions.push(...[0, 1, 2].map((k) => 0.5 * (f.n[k]! + a * f.u[k]! + b * f.v[k]!)));
      normals.push(...f.n);
      uvs.push((a + 1) / 2, 1 - (b + 1) / 2);
      colours.push(...tints[i]!, 1);
    }
    const o = i * 4;
    indices.push(o, o + 1, o + 2, o, o + 2, o + 3);
  });
  const accessor = (type: 'VEC2' | 'VEC3' | 'VEC4' | 'SCALAR', data: Float32Array | Uint16Array) => doc.createAccessor().setType(type).setArray(data).setBuffer(buffer);
  const texture = doc.createTexture('quadrants').setImage(png).setMimeType('image/png').setURI(uri?.png ?? '');
  const material = doc.createMaterial('cube').setBaseColorTexture(texture).setRoughnessFactor(0.9).setMetallicFactor(0);
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', new Float32Array(positions)))
    .setAttribute('NORMAL', accessor('VEC3', new Float32Array(normals)))
    .setAttribute('TEXCOORD_0', accessor('VEC2', new Float32Array(uvs)))
    .setAttribute('COLOR_0', accessor('VEC4', new Float32Array(colours)))
    .setIndices(accessor('SCALAR', new Uint16Array(indices)))
    .setMaterial(material);
  const mesh = doc.createMesh('cube').addPrimitive(primitive);
  doc.createScene('scene').addChild(doc.createNode('cube').setMesh(mesh));
  return doc;
}

/** `count` points on a unit sphere (a Fibonacci spiral), each coloured by its direction. */
function cloudPoints(count: number): Array<{ p: [number, number, number]; c: [number, number, number] }> {
  const golden = Math.PI * (3 - Math.sqrt(5));
  return Array.from({ length: count }, (_, i) => {
    const y = 1 - (2 * (i + 0.5)) / count;
    const r = Math.sqrt(1 - y * y);
    const p: [number, number, number] = [Math.cos(golden * i) * r, y, Math.sin(golden * i) * r];
    const c = p.map((v) => Math.round(((v + 1) / 2) * 255)) as [number, number, number];
    return { p, c };
  });
}

function plyBinary(points: ReturnType<typeof cloudPoints>): Buffer {
  const header = `ply\nformat binary_little_endian 1.0\nelement vertex ${points.length}\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n`;
  const body = Buffer.alloc(points.length * 15);
  points.forEach(({ p, c }, i) => {
    p.forEach((v, k) => body.writeFloatLE(v, i * 15 + k * 4));
    c.forEach((v, k) => body.writeUInt8(v, i * 15 + 12 + k));
  });
  return Buffer.concat([Buffer.from(header, 'ascii'), body]);
}

function plyAscii(points: ReturnType<typeof cloudPoints>): string {
  const header = `ply\nformat ascii 1.0\nelement vertex ${points.length}\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n`;
  return header + points.map(({ p, c }) => `${p.map((v) => v.toFixed(6)).join(' ')} ${c.join(' ')}`).join('\n') + '\n';
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  await MeshoptEncoder.ready;
  const io = new NodeIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({ 'meshopt.encoder': MeshoptEncoder, 'meshopt.decoder': MeshoptDecoder });
  const png = await texturePng();
  writeFileSync(path.join(OUT, 'cube.glb'), await io.writeBinary(cubeDocument(png, null)));
  const compressed = cubeDocument(png, null);
  await compressed.transform(quantize(), meshopt({ encoder: MeshoptEncoder, level: 'high' }));
  writeFileSync(path.join(OUT, 'cube-meshopt.glb'), await io.writeBinary(compressed));
  const { json, resources } = await io.writeJSON(cubeDocument(png, { bin: 'cube.bin', png: 'cube.png' }));
  writeFileSync(path.join(OUT, 'cube.gltf'), JSON.stringify(json, null, 1));
  for (const [uri, data] of Object.entries(resources)) writeFileSync(path.join(OUT, uri), data);
  const points = cloudPoints(3000);
  writeFileSync(path.join(OUT, 'cloud.ply'), plyBinary(points));
  writeFileSync(path.join(OUT, 'cloud-ascii.ply'), plyAscii(points.slice(0, 500)));
  writeFileSync(path.join(OUT, 'broken.glb'), Buffer.from('glTF this is not a binary glTF file'));
  writeFileSync(path.join(OUT, 'broken.ply'), 'ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nend_header\n1\n');
  mkdirSync(E2E_OUT, { recursive: true });
  for (const file of E2E_FILES) copyFileSync(path.join(OUT, file), path.join(E2E_OUT, file));
  console.log(`3D fixtures written to ${OUT} and ${E2E_OUT}`);
}

await main();
