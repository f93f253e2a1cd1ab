import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { formatCount, MODEL_LIMITS, ModelProblem } from './model-limits.js';
import type { CheckedModel } from './gltf-check.js';

/**
 * PLY (Stanford polygon file) point clouds, strictly: the header is read line by line, and the body must hold
 * exactly what the header declares: every element's count, every property, nothing after the last element. ASCII,
 * binary little-endian and binary big-endian. A point cloud needs `element vertex` with float x, y, z; colour
 * (red, green, blue[, alpha]: uchar, or float in [0, 1]) and normals are optional; faces are allowed (the stage
 * draws vertices as points). No npm library reads PLY strictly (three.js's loader is lenient by design: it shows
 * what it can of a short file), and the format is small.
 */

const TYPES = {
  char: 1, int8: 1, uchar: 1, uint8: 1, short: 2, int16: 2, ushort: 2, uint16: 2,
  int: 4, int32: 4, uint: 4, uint32: 4, float: 4, float32: 4, double: 8, float64: 8,
} as const;
type PlyType = keyof typeof TYPES;
const isType = (t: string | undefined): t is PlyType => t !== undefined && Object.hasOwn(TYPES, t);
const INTEGER_TYPES = new Set<PlyType>(['char', 'int8', 'uchar', 'uint8', 'short', 'int16', 'ushort', 'uint16', 'int', 'int32', 'uint', 'uint32']);

export type PlyFormat = 'ascii' | 'binary_little_endian' | 'binary_big_endian';

interface PlyProperty {
  name: string;
  type: PlyType;
  /** The count's type of a list property (`property list uchar int vertex_indices`). */
  countType?: PlyType;
}
interface PlyElement {
  name: string;
  count: number;
  properties: PlyProperty[];
}
export interface PlyHeader {
  format: PlyFormat;
  elements: PlyElement[];
  /** Byte offset of the body. */
  bodyStart: number;
}

/** The header, or a ModelProblem saying which line is wrong. */
export function parsePlyHeader(bytes: Uint8Array): PlyHeader {
  if (!/^ply\r?\n/.test(new TextDecoder('latin1').decode(bytes.subarray(0, 5)))) throw new ModelProblem('is not a PLY file (its first line must be "ply")');
  const end = findHeaderEnd(bytes);
  if (end < 0) throw new ModelProblem('has no PLY header ending in "end_header"');
  const lines = new TextDecoder('latin1').decode(bytes.subarray(0, end)).split(/\r?\n/);
  let format: PlyFormat | null = null;
  const elements: PlyElement[] = [];
  for (const [i, line] of lines.slice(1).entries()) {
    const words = line.trim().split(/\s+/);
    const at = `header line ${i + 2}`;
    switch (words[0]) {
      case 'format':
        if (!['ascii', 'binary_little_endian', 'binary_big_endian'].includes(words[1] ?? '') || words[2] !== '1.0') throw new ModelProblem(`${at}: unknown format "${line}"`);
        format = words[1] as PlyFormat;
        break;
      case 'element': {
        const count = Number(words[2]);
        if (words.length !== 3 || !/^\d+$/.test(words[2] ?? '') || !Number.isSafeInteger(count)) throw new ModelProblem(`${at}: "${line}" is not "element <name> <count>"`);
        elements.push({ name: words[1]!, count, properties: [] });
        break;
      }
      case 'property': {
        const element = elements.at(-1);
        if (!element) throw new ModelProblem(`${at}: a property before any element`);
        if (words[1] === 'list' && words.length === 5 && isType(words[2]) && INTEGER_TYPES.has(words[2]) && isType(words[3])) element.properties.push({ name: words[4]!, type: words[3], countType: words[2] });
        else if (words.length === 3 && isType(words[1])) element.properties.push({ name: words[2]!, type: words[1] });
        else throw new ModelProblem(`${at}: "${line}" is not a property of a known type`);
        break;
      }
      case 'comment':
      case 'obj_info':
      case '':
        break;
      default:
        throw new ModelProblem(`${at}: unknown keyword "${words[0]}"`);
    }
  }
  if (!format) throw new ModelProblem('has no "format" line in its header');
  return { format, elements, bodyStart: end + bytes.subarray(end).indexOf(0x0a) + 1 };
}

/** Byte offset of the "end_header" line, or -1. */
function findHeaderEnd(bytes: Uint8Array): number {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 64 * 1024));
  const match = /(^|\n)end_header\r?\n/.exec(head);
  return match ? match.index + match[1]!.length : -1;
}

/** Checks that the body holds exactly what the header declares, no more, no less. */
function checkBody(header: PlyHeader, bytes: Uint8Array): void {
  if (header.format === 'ascii') return checkAsciiBody(header, bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const little = header.format === 'binary_little_endian';
  let offset = header.bodyStart;
  for (const element of header.elements) {
    const fixed = element.properties.every((p) => !p.countType);
    if (fixed) {
      const size = element.properties.reduce((n, p) => n + TYPES[p.type], 0);
      offset += size * element.count;
      if (offset > bytes.length) throw new ModelProblem(`is truncated: its ${formatCount(element.count)} ${element.name} elements need ${formatCount(offset - header.bodyStart)} bytes of body, the file has ${formatCount(bytes.length - header.bodyStart)}`);
      continue;
    }
    for (let i = 0; i < element.count; i++) {
      for (const p of element.properties) {
        if (!p.countType) {
          offset += TYPES[p.type];
          continue;
        }
        if (offset + TYPES[p.countType] > bytes.length) throw new ModelProblem(`is truncated in ${element.name} ${i} of ${formatCount(element.count)}`);
        const n = readCount(view, offset, p.countType, little);
        offset += TYPES[p.countType] + n * TYPES[p.type];
      }
      if (offset > bytes.length) throw new ModelProblem(`is truncated in ${element.name} ${i} of ${formatCount(element.count)}`);
    }
  }
  if (offset !== bytes.length) throw new ModelProblem(`has ${formatCount(bytes.length - offset)} bytes after its last element (the header's counts are wrong)`);
}

function readCount(view: DataView, offset: number, type: PlyType, little: boolean): number {
  switch (TYPES[type]) {
    case 1:
      return type === 'char' || type === 'int8' ? Math.max(0, view.getInt8(offset)) : view.getUint8(offset);
    case 2:
      return view.getUint16(offset, little);
    default:
      return view.getUint32(offset, little);
  }
}

function checkAsciiBody(header: PlyHeader, bytes: Uint8Array): void {
  const lines = new TextDecoder('latin1').decode(bytes.subarray(header.bodyStart)).split(/\r?\n/);
  while (lines.length > 0 && lines.at(-1)!.trim() === '') lines.pop();
  let line = 0;
  for (const element of header.elements) {
    for (let i = 0; i < element.count; i++, line++) {
      if (line >= lines.length) throw new ModelProblem(`has ${formatCount(lines.length)} body lines, fewer than its header declares (${element.name} ${i} of ${formatCount(element.count)} is missing)`);
      const words = lines[line]!.trim().split(/\s+/);
      let w = 0;
      for (const p of element.properties) {
        const count = p.countType ? Number(words[w++]) : 1;
        if (!Number.isInteger(count) || count < 0) throw new ModelProblem(`body line ${line + 1}: the ${p.name} list has no valid count`);
        for (let k = 0; k < count; k++, w++) {
          if (words[w] === undefined || !Number.isFinite(Number(words[w]))) throw new ModelProblem(`body line ${line + 1}: ${element.name} ${i} has no valid number for ${p.name}`);
        }
      }
      if (w !== words.length) throw new ModelProblem(`body line ${line + 1}: ${element.name} ${i} has ${words.length} values, its properties take ${w}`);
    }
  }
  if (line !== lines.length) throw new ModelProblem(`has ${formatCount(lines.length - line)} more body line(s) than its header declares`);
}

/** Reads and checks a PLY point cloud of the media folder; throws ModelProblem saying what is wrong. */
export async function checkPly(mediaRoot: string, source: string): Promise<CheckedModel> {
  const path = resolve(mediaRoot, source);
  const { size } = await stat(path);
  if (size > MODEL_LIMITS.maxBytes) throw new ModelProblem(`point cloud ${source} is ${formatCount(size)} bytes, over the limit of ${formatCount(MODEL_LIMITS.maxBytes)}`);
  const bytes = new Uint8Array(await readFile(path));
  try {
    const header = parsePlyHeader(bytes);
    const vertex = header.elements.find((e) => e.name === 'vertex');
    if (!vertex || vertex.count === 0) throw new ModelProblem('has no vertices (element vertex)');
    for (const axis of ['x', 'y', 'z']) {
      const p = vertex.properties.find((q) => q.name === axis);
      if (!p || p.countType || !['float', 'float32', 'double', 'float64'].includes(p.type)) throw new ModelProblem(`has no float vertex property ${axis}`);
    }
    if (vertex.count > MODEL_LIMITS.maxPoints) throw new ModelProblem(`has ${formatCount(vertex.count)} points, over the limit of ${formatCount(MODEL_LIMITS.maxPoints)}`);
    checkBody(header, bytes);
  } catch (error) {
    if (error instanceof ModelProblem) throw new ModelProblem(`point cloud ${source} ${error.message}`);
    throw error;
  }
  return { sideFiles: [], loadBytes: size };
}

/** One point of a cloud: position and an 8-bit colour. */
export interface ColouredPoint {
  x: number;
  y: number;
  z: number;
  r: number;
  g: number;
  b: number;
}

/** A PLY point cloud with float positions and uchar colours (demo media and tests). */
export function encodePly(points: ColouredPoint[], format: PlyFormat): Uint8Array {
  const header = `ply\nformat ${format} 1.0\ncomment made by Glimpse\nelement vertex ${points.length}\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n`;
  if (format === 'ascii') {
    const body = points.map((p) => `${Math.fround(p.x)} ${Math.fround(p.y)} ${Math.fround(p.z)} ${p.r} ${p.g} ${p.b}`).join('\n');
    return new TextEncoder().encode(`${header}${body}\n`);
  }
  const head = new TextEncoder().encode(header);
  const out = new Uint8Array(head.length + points.length * 15);
  out.set(head);
  const view = new DataView(out.buffer);
  const little = format === 'binary_little_endian';
  let o = head.length;
  for (const p of points) {
    view.setFloat32(o, p.x, little);
    view.setFloat32(o + 4, p.y, little);
    view.setFloat32(o + 8, p.z, little);
    out.set([p.r, p.g, p.b], o + 12);
    o += 15;
  }
  return out;
}
