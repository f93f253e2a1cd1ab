import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Document, Logger, NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS, EXTMeshoptCompression } from '@gltf-transform/extensions';
import { quantize, simplify, textureCompress, weld } from '@gltf-transform/functions';
import { MeshoptDecoder, MeshoptEncoder, MeshoptSimplifier } from 'meshoptimizer';
import sharp from 'sharp';
import { encodePly, type ColouredPoint } from '../../src/server/study/ply.js';
import { seededRandom } from './scenes/svg.js';
import { addTexturedMesh } from './textured-mesh.js';

/**
 * Procedural 3D demo content (no downloads): textured meshes written as glTF with glTF-Transform, and coloured
 * point clouds written as PLY. Impairments are the ones the field studies: meshoptimizer simplification, position
 * quantization, texture quality (meshes); decimation and geometry noise (point clouds). Seeded, so a regenerated
 * file has the same bytes.
 */

export const MESH_CONTENTS = ['knot', 'shell'] as const;
export type MeshContent = (typeof MESH_CONTENTS)[number];
export const CLOUD_CONTENTS = ['dome', 'spiral'] as const;
export type CloudContent = (typeof CLOUD_CONTENTS)[number];

export type MeshStep = { op: 'simplify'; ratio: number } | { op: 'quantize'; bits: number } | { op: 'texture'; quality: number } | { op: 'meshopt' };
export type CloudStep = { op: 'decimate'; keep: number } | { op: 'noise'; sigma: number };

let ready: Promise<NodeIO> | null = null;
export function modelIO(): Promise<NodeIO> {
  ready ??= Promise.all([MeshoptDecoder.ready, MeshoptEncoder.ready, MeshoptSimplifier.ready]).then(() =>
    new NodeIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({ 'meshopt.decoder': MeshoptDecoder, 'meshopt.encoder': MeshoptEncoder }),
  );
  return ready;
}

/** A surface sampled on a (u, v) grid: position and normal of each grid point. */
type Surface = (u: number, v: number) => [number, number, number];

const SURFACES: Record<MeshContent, Surface> = {
  // A (2,3) torus knot tube.
  knot: (u, v) => {
    const t = u * 2 * Math.PI;
    const centre = (s: number): [number, number, number] => [(2 + Math.cos(3 * s)) * Math.cos(2 * s), (2 + Math.cos(3 * s)) * Math.sin(2 * s), Math.sin(3 * s)];
    const c = centre(t);
    const ahead = centre(t + 1e-3);
    const tangent = normalise(sub(ahead, c));
    const side = normalise(cross(tangent, [0, 0, 1]));
    const up = cross(side, tangent);
    const a = v * 2 * Math.PI;
    const r = 0.45;
    return [c[0] + r * (Math.cos(a) * side[0] + Math.sin(a) * up[0]), c[1] + r * (Math.cos(a) * side[1] + Math.sin(a) * up[1]), c[2] + r * (Math.cos(a) * side[2] + Math.sin(a) * up[2])];
  },
  // A ribbed sea shell: a sphere whose radius waves with latitude and longitude.
  shell: (u, v) => {
    const phi = u * 2 * Math.PI;
    const theta = v * Math.PI;
    const r = 2 * (1 + 0.12 * Math.sin(12 * phi) * Math.sin(theta) + 0.08 * Math.cos(5 * theta));
    return [r * Math.sin(theta) * Math.cos(phi), r * Math.cos(theta), r * Math.sin(theta) * Math.sin(phi)];
  },
};

const sub = (a: number[], b: number[]): [number, number, number] => [a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!];
const cross = (a: number[], b: number[]): [number, number, number] => [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
function normalise(a: number[]): [number, number, number] {
  const n = Math.hypot(a[0]!, a[1]!, a[2]!) || 1;
  return [a[0]! / n, a[1]! / n, a[2]! / n];
}

/** A square texture: coloured checks with a diagonal band, so blur, blocking and quantization show. */
export async function checkerTexture(side: number, hue: number): Promise<Uint8Array> {
  const pixels = Buffer.alloc(side * side * 3);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const check = ((x >> 4) + (y >> 4)) % 2;
      const band = Math.abs(((x + y) % 64) - 32) < 4;
      const o = (y * side + x) * 3;
      pixels[o] = band ? 250 : check ? 60 + hue : 200;
      pixels[o + 1] = band ? 230 : check ? 90 : 180 - hue / 2;
      pixels[o + 2] = band ? 40 : check ? 160 - hue / 2 : 120;
    }
  }
  return new Uint8Array(await sharp(pixels, { raw: { width: side, height: side, channels: 3 } }).png().toBuffer());
}

/** The pristine textured mesh of a content: `segments` × `rings` grid, one PNG texture of `textureSide` pixels. */
export async function texturedMesh(content: MeshContent, opts: { segments?: number; rings?: number; textureSide?: number } = {}): Promise<Document> {
  const segments = opts.segments ?? 240;
  const rings = opts.rings ?? 32;
  const surface = SURFACES[content];
  const positions: number[] = [];
  const normals: number[] = [];
  const uvs: number[] = [];
  for (let i = 0; i <= segments; i++) {
    for (let j = 0; j <= rings; j++) {
      const u = i / segments;
      const v = j / rings;
      const p = surface(u, v);
      const du = sub(surface(u + 1e-4, v), p);
      const dv = sub(surface(u, v + 1e-4), p);
      let n = normalise(cross(dv, du));
      if (!Number.isFinite(n[0])) n = normalise(p);
      positions.push(...p);
      normals.push(...n);
      uvs.push(u, v);
    }
  }
  const indices: number[] = [];
  for (let i = 0; i < segments; i++) {
    for (let j = 0; j < rings; j++) {
      const a = i * (rings + 1) + j;
      const b = a + rings + 1;
      indices.push(a, b, a + 1, a + 1, b, b + 1);
    }
  }
  const doc = new Document().setLogger(new Logger(Logger.Verbosity.WARN));
  addTexturedMesh(doc, {
    name: content,
    sceneName: content,
    positions: new Float32Array(positions),
    normals: new Float32Array(normals),
    uvs: new Float32Array(uvs),
    indices: positions.length / 3 < 65536 ? new Uint16Array(indices) : new Uint32Array(indices),
    texture: { name: 'surface', png: await checkerTexture(opts.textureSide ?? 256, content === 'knot' ? 0 : 80), uri: `${content}.png` },
  });
  return doc;
}

/** Applies the impairments in order (glTF-Transform functions), in place. */
export async function impairMesh(doc: Document, steps: MeshStep[]): Promise<void> {
  for (const step of steps) {
    if (step.op === 'simplify') await doc.transform(weld(), simplify({ simplifier: MeshoptSimplifier, ratio: step.ratio, error: 1 }));
    else if (step.op === 'quantize') await doc.transform(quantize({ quantizePosition: step.bits, quantizeNormal: 8, quantizeTexcoord: 12 }));
    else if (step.op === 'texture') await doc.transform(textureCompress({ encoder: sharp, targetFormat: 'jpeg', quality: step.quality }));
    else doc.createExtension(EXTMeshoptCompression).setRequired(true).setEncoderOptions({ method: EXTMeshoptCompression.EncoderMethod.QUANTIZE });
  }
}

/** Writes a mesh: `.glb` holds everything; `.gltf` writes its buffer and textures beside it. */
export async function writeMesh(doc: Document, path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const io = await modelIO();
  if (path.endsWith('.glb')) await writeFile(path, await io.writeBinary(doc));
  else await io.write(path, doc);
}

/** A coloured point cloud of `count` points on a content's surface, seeded. */
export function pointCloud(content: CloudContent, count: number, seed = 1): ColouredPoint[] {
  const random = seededRandom(seed);
  const points: ColouredPoint[] = [];
  for (let i = 0; i < count; i++) {
    let x: number;
    let y: number;
    let z: number;
    if (content === 'dome') {
      // A hemisphere with a rippled surface, coloured by height.
      const phi = random() * 2 * Math.PI;
      const cosTheta = random();
      const sinTheta = Math.sqrt(1 - cosTheta * cosTheta);
      const r = 1 + 0.05 * Math.sin(8 * phi) * sinTheta;
      [x, y, z] = [r * sinTheta * Math.cos(phi), r * cosTheta, r * sinTheta * Math.sin(phi)];
    } else {
      // A flat spiral galaxy with thickness.
      const t = random() * 6 * Math.PI;
      const arm = random() < 0.5 ? 0 : Math.PI;
      const spread = 0.08 + 0.02 * t;
      [x, y, z] = [(t / 6) * Math.cos(t + arm) + spread * (random() - 0.5), 0.15 * (random() - 0.5), (t / 6) * Math.sin(t + arm) + spread * (random() - 0.5)];
    }
    const h = (y + 1) / 2;
    points.push({ x, y, z, r: Math.round(255 * h), g: Math.round(120 + 100 * Math.sin(5 * x)), b: Math.round(255 * (1 - h)) });
  }
  return points;
}

/** Applies decimation (keep a seeded fraction) and gaussian geometry noise (sigma in object units), in order. */
export function impairCloud(points: ColouredPoint[], steps: CloudStep[], seed = 2): ColouredPoint[] {
  const random = seededRandom(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  let out = points;
  for (const step of steps) {
    if (step.op === 'decimate') out = out.filter(() => random() < step.keep);
    else out = out.map((p) => ({ ...p, x: p.x + step.sigma * gaussian(), y: p.y + step.sigma * gaussian(), z: p.z + step.sigma * gaussian() }));
  }
  return out;
}

export async function writeCloud(points: ColouredPoint[], path: string, format: 'ascii' | 'binary_little_endian' | 'binary_big_endian' = 'binary_little_endian'): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, encodePly(points, format));
}
