/**
 * Procedural bench content (no download): a textured UV sphere of `triangles` triangles as a .glb (positions,
 * normals, UVs, 32-bit indices, a 1024² PNG texture of coloured noise), a point cloud of `points` coloured points as
 * a binary PLY, and the same texture as the image the baseline draws.
 */
import { crc32, deflateSync } from 'node:zlib';
import { Document, NodeIO } from '@gltf-transform/core';
import { addTexturedMesh } from '../../scripts/demo/textured-mesh';

/** An RGB PNG from raw pixels (node:zlib only: the GPU kit carries no native module such as sharp). */
function encodePng(pixels: Buffer, width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'ascii');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
    return Buffer.concat([head, data, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter method, no interlace
  const rows = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++) pixels.copy(rows, y * (1 + width * 3) + 1, y * width * 3, (y + 1) * width * 3);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

export async function texturePng(size = 1024): Promise<Buffer> {
  const pixels = Buffer.alloc(size * size * 3);
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 3;
      const cell = ((x >> 6) + (y >> 6)) % 3;
      pixels[i] = cell === 0 ? 200 : 60 + random() * 40;
      pixels[i + 1] = cell === 1 ? 180 : 60 + random() * 40;
      pixels[i + 2] = cell === 2 ? 210 : 60 + random() * 40;
    }
  }
  return encodePng(pixels, size, size);
}

export async function sphereGlb(triangles: number, png: Buffer): Promise<Uint8Array> {
  // lon × lat quads, two triangles each, lon = 2 lat.
  const lat = Math.round(Math.sqrt(triangles / 4));
  const lon = 2 * lat;
  const vertices = (lon + 1) * (lat + 1);
  const position = new Float32Array(vertices * 3);
  const normal = new Float32Array(vertices * 3);
  const uv = new Float32Array(vertices * 2);
  for (let j = 0; j <= lat; j++) {
    const theta = (j / lat) * Math.PI;
    for (let i = 0; i <= lon; i++) {
      const phi = (i / lon) * 2 * Math.PI;
      const v = j * (lon + 1) + i;
      const n = [Math.sin(theta) * Math.cos(phi), Math.cos(theta), Math.sin(theta) * Math.sin(phi)];
      // A bumpy surface, so that the silhouette and the shading depend on the view.
      const r = 1 + 0.05 * Math.sin(12 * phi) * Math.sin(9 * theta);
      position.set(n.map((c) => c * r), v * 3);
      normal.set(n, v * 3);
      uv.set([i / lon, j / lat], v * 2);
    }
  }
  const index = new Uint32Array(lon * lat * 6);
  let k = 0;
  for (let j = 0; j < lat; j++) {
    for (let i = 0; i < lon; i++) {
      const a = j * (lon + 1) + i;
      const b = a + lon + 1;
      index.set([a, b, a + 1, b, b + 1, a + 1], k);
      k += 6;
    }
  }
  const doc = new Document();
  addTexturedMesh(doc, { name: 'sphere', positions: position, normals: normal, uvs: uv, indices: index, texture: { name: 'noise', png: new Uint8Array(png) } });
  return new NodeIO().writeBinary(doc);
}

export function cloudPly(points: number): Buffer {
  const header = `ply\nformat binary_little_endian 1.0\nelement vertex ${points}\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n`;
  const body = Buffer.alloc(points * 15);
  let seed = 777;
  const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  for (let i = 0; i < points; i++) {
    // A noisy shell: points of a torus knot-like band around a sphere.
    const u = random() * 2 * Math.PI;
    const v = Math.acos(2 * random() - 1);
    const r = 1 + 0.1 * Math.sin(5 * u) * Math.sin(4 * v) + 0.02 * random();
    const o = i * 15;
    body.writeFloatLE(r * Math.sin(v) * Math.cos(u), o);
    body.writeFloatLE(r * Math.cos(v), o + 4);
    body.writeFloatLE(r * Math.sin(v) * Math.sin(u), o + 8);
    body.writeUInt8(Math.round(127 + 127 * Math.cos(u)), o + 12);
    body.writeUInt8(Math.round(127 + 127 * Math.cos(v)), o + 13);
    body.writeUInt8(Math.round(127 + 127 * Math.sin(u + v)), o + 14);
  }
  return Buffer.concat([Buffer.from(header, 'ascii'), body]);
}
