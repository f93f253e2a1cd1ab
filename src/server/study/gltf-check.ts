import { readFile, realpath, stat } from 'node:fs/promises';
import { posix, resolve, sep } from 'node:path';
import { BufferUtils, ImageUtils, NodeIO, type Document, type GLTF, type JSONDocument } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { MeshoptDecoder } from 'meshoptimizer';
import { MEDIA_FILE_PATTERN } from '../../contract/stimulus.js';
import { formatCount, MODEL_LIMITS, ModelProblem } from './model-limits.js';

/**
 * glTF 2.0 checks at import (docs/3d-objects.md): the file is read with glTF-Transform (the library that prepares
 * and compresses the assets, so what it writes it reads, meshopt and quantization included), and what a reader
 * takes on trust is checked here: every buffer view and accessor lies inside its data, indices name existing
 * vertices, textures are PNG, JPEG or WebP images of a usable size, and a `.gltf`'s side files are plain files
 * beside it in the media folder. What the file decodes to (compressed views, accessor copies) is bounded from its
 * JSON before the reader allocates any of it (MODEL_LIMITS.maxDecodedBytes).
 */

/** What the import needs from a checked glTF: its side files (media-folder paths) and the bytes a browser loads. */
export interface CheckedModel {
  sideFiles: string[];
  loadBytes: number;
}

const TEXTURE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);
const COMPONENTS: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };
const COMPONENT_BYTES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };

let ioReady: Promise<NodeIO> | null = null;
function gltfIO(): Promise<NodeIO> {
  ioReady ??= MeshoptDecoder.ready.then(() => new NodeIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({ 'meshopt.decoder': MeshoptDecoder }));
  return ioReady;
}

/** Reads and checks a .glb or .gltf of the media folder; throws ModelProblem saying what is wrong. */
export async function checkGltf(mediaRoot: string, source: string): Promise<CheckedModel> {
  const path = resolve(mediaRoot, source);
  const { size } = await stat(path);
  if (size > MODEL_LIMITS.maxBytes) throw new ModelProblem(`model ${source} is ${formatCount(size)} bytes, over the limit of ${formatCount(MODEL_LIMITS.maxBytes)}`);
  const io = await gltfIO();
  const bytes = new Uint8Array(await readFile(path));
  const binary = source.toLowerCase().endsWith('.glb');
  let jsonDoc: JSONDocument;
  try {
    jsonDoc = binary ? await io.binaryToJSON(bytes) : { json: JSON.parse(BufferUtils.decodeText(bytes)) as GLTF.IGLTF, resources: {} };
  } catch (error) {
    throw new ModelProblem(`model ${source} is not a readable glTF ${binary ? 'binary (.glb)' : 'JSON file (.gltf)'}: ${(error as Error).message}`);
  }
  const json = jsonDoc.json;
  if (!json || typeof json !== 'object' || json.asset?.version !== '2.0') throw new ModelProblem(`model ${source} is not glTF 2.0 (asset.version must be "2.0")`);
  // Neither the importer nor the stage has a Draco decoder: said plainly, rather than as the reader's failure.
  if (json.extensionsUsed?.includes('KHR_draco_mesh_compression')) throw new ModelProblem(`model ${source} uses Draco compression (KHR_draco_mesh_compression), which the stage does not decode; compress it with meshopt (EXT_meshopt_compression)`);

  const sideFiles = await readSideFiles(mediaRoot, source, binary, jsonDoc);
  let loadBytes = size;
  for (const file of new Set(sideFiles)) loadBytes += (await stat(resolve(mediaRoot, file))).size;
  if (loadBytes > MODEL_LIMITS.maxBytes) throw new ModelProblem(`model ${source} and its side files are ${formatCount(loadBytes)} bytes, over the limit of ${formatCount(MODEL_LIMITS.maxBytes)}`);

  const where = checkBounds(json, bufferLengths(json, jsonDoc.resources, binary));
  if (where) throw new ModelProblem(`model ${source} is malformed: ${where}`);
  const tooMuch = sizeProblem(json);
  if (tooMuch) throw new ModelProblem(`model ${source} ${tooMuch}`);
  let doc: Document;
  try {
    doc = await io.readJSON(jsonDoc);
  } catch (error) {
    throw new ModelProblem(`model ${source} is not a readable glTF: ${(error as Error).message}`);
  }
  const problem = documentProblem(doc);
  if (problem) throw new ModelProblem(`model ${source} ${problem}`);
  return { sideFiles: [...new Set(sideFiles)], loadBytes };
}

/**
 * A `.gltf`'s buffers and images named by uri: relative paths beside it (no `..`, no absolute or remote address;
 * `data:` URIs are inline), read into the document's resources. A `.glb` must hold everything itself.
 */
async function readSideFiles(mediaRoot: string, source: string, binary: boolean, jsonDoc: JSONDocument): Promise<string[]> {
  const files: string[] = [];
  const named = [...(jsonDoc.json.buffers ?? []).map((b, i) => [`buffers[${i}]`, b.uri] as const), ...(jsonDoc.json.images ?? []).map((m, i) => [`images[${i}]`, m.uri] as const)];
  for (const [at, uri] of named) {
    if (uri === undefined || uri.startsWith('data:')) continue;
    if (binary) throw new ModelProblem(`model ${source}: ${at}.uri "${uri.slice(0, 100)}" names another file; a .glb must hold all its data (use a .gltf for side files)`);
    let decoded: string;
    try {
      decoded = decodeURIComponent(uri);
    } catch {
      throw new ModelProblem(`model ${source}: ${at}.uri "${uri.slice(0, 100)}" is not a valid URI`);
    }
    const file = posix.join(posix.dirname(source), decoded);
    if (/^[a-z][a-z0-9+.-]*:/i.test(uri) || decoded.startsWith('/') || decoded.split('/').includes('..') || !new RegExp(MEDIA_FILE_PATTERN).test(file)) {
      throw new ModelProblem(`model ${source}: ${at}.uri "${uri.slice(0, 100)}" must be a relative path to a file beside it (plain names, no "..", no absolute or remote address)`);
    }
    const real = await realpath(resolve(mediaRoot, file)).catch(() => null);
    const kind = at.startsWith('images') ? 'texture' : 'buffer';
    if (!real || !real.startsWith(mediaRoot + sep) || !(await stat(real)).isFile()) throw new ModelProblem(`model ${source}: ${kind} ${file} (${at}) not found in the media folder`);
    jsonDoc.resources[uri] = new Uint8Array(await readFile(real));
    files.push(file);
  }
  return files;
}

/** The bytes each buffer holds: its data: URI, its side file, the GLB's BIN chunk; null for a meshopt fallback. */
function bufferLengths(json: GLTF.IGLTF, resources: Record<string, Uint8Array>, binary: boolean): Array<number | null> {
  return (json.buffers ?? []).map((buffer, i) => {
    if (buffer.uri?.startsWith('data:')) return BufferUtils.createBufferFromDataURI(buffer.uri).byteLength;
    if (buffer.uri !== undefined) return resources[buffer.uri]?.byteLength ?? 0;
    if ((buffer.extensions?.EXT_meshopt_compression as { fallback?: boolean } | undefined)?.fallback) return null;
    return binary && i === 0 ? (resources['@glb.bin']?.byteLength ?? 0) : 0;
  });
}

/** Where a buffer view or accessor reaches past its data (a reader would read other memory), or null. */
function checkBounds(json: GLTF.IGLTF, held: Array<number | null>): string | null {
  const buffers = json.buffers ?? [];
  for (const [i, buffer] of buffers.entries()) {
    const has = held[i];
    if (has !== null && has !== undefined && has < buffer.byteLength) return `buffers[${i}] declares ${buffer.byteLength} bytes but holds ${has} (a truncated file?)`;
  }
  const inBuffer = (index: number, offset: number, length: number) => index >= 0 && index < buffers.length && offset >= 0 && offset + length <= buffers[index]!.byteLength;
  const views = json.bufferViews ?? [];
  for (const [i, view] of views.entries()) {
    if (!inBuffer(view.buffer, view.byteOffset ?? 0, view.byteLength)) return `bufferViews[${i}] lies outside buffers[${view.buffer}]`;
    const meshopt = meshoptOf(view);
    if (meshopt && !inBuffer(meshopt.buffer, meshopt.byteOffset ?? 0, meshopt.byteLength)) return `bufferViews[${i}]'s compressed data lies outside buffers[${meshopt.buffer}]`;
    if (meshopt && !(isCount(meshopt.count) && isCount(meshopt.byteStride))) return `bufferViews[${i}]'s EXT_meshopt_compression count and byteStride must be whole numbers`;
  }
  for (const [i, accessor] of (json.accessors ?? []).entries()) {
    const size = elementBytes(accessor);
    if (size === 0) return `accessors[${i}] has an unknown type or component type`;
    if (!isCount(accessor.count)) return `accessors[${i}].count must be a whole number`;
    if (accessor.bufferView === undefined || accessor.count === 0) continue;
    const view = views[accessor.bufferView];
    if (!view) return `accessors[${i}] names bufferViews[${accessor.bufferView}], which does not exist`;
    const end = (accessor.byteOffset ?? 0) + (view.byteStride ?? size) * (accessor.count - 1) + size;
    if (end > view.byteLength) return `accessors[${i}] (${accessor.count} × ${accessor.type}) reaches byte ${end} of bufferViews[${accessor.bufferView}], which has ${view.byteLength}`;
  }
  for (const [i, image] of (json.images ?? []).entries()) {
    if (image.bufferView !== undefined && !views[image.bufferView]) return `images[${i}] names bufferViews[${image.bufferView}], which does not exist`;
  }
  return null;
}

/** A view's meshopt compression (its decoded size is `count × byteStride`), or undefined. */
function meshoptOf(view: GLTF.IBufferView) {
  return view.extensions?.EXT_meshopt_compression as { buffer: number; byteOffset?: number; byteLength: number; count: number; byteStride: number } | undefined;
}

const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
const elementBytes = (accessor: GLTF.IAccessor) => (COMPONENTS[accessor.type] ?? 0) * (COMPONENT_BYTES[accessor.componentType] ?? 0);

/**
 * Over a limit, or nothing to draw (the message follows "model {source}"), or null. Counted from the JSON, before
 * the file is decoded: a few bytes per node, a huge instanced count or a small stream declared to decode to
 * gigabytes must not cost the server its memory (nor the participant's browser, which decodes the same).
 */
function sizeProblem(json: GLTF.IGLTF): string | null {
  for (const kind of ['nodes', 'meshes', 'accessors', 'bufferViews', 'buffers', 'materials', 'textures', 'images', 'samplers', 'skins', 'animations', 'cameras'] as const) {
    const count = (json[kind] as unknown[] | undefined)?.length ?? 0;
    if (count > MODEL_LIMITS.maxObjects) return `has ${formatCount(count)} ${kind}, over the limit of ${formatCount(MODEL_LIMITS.maxObjects)} of a kind`;
  }
  // The reader allocates each compressed view whole and copies each accessor: both are bounded before it runs.
  let decoded = 0;
  for (const meshopt of (json.bufferViews ?? []).map(meshoptOf)) decoded += meshopt ? meshopt.count * meshopt.byteStride : 0;
  const limit = `over the limit of ${formatCount(MODEL_LIMITS.maxDecodedBytes)}`;
  if (decoded > MODEL_LIMITS.maxDecodedBytes) return `has compressed buffer views (EXT_meshopt_compression) that decode to ${formatCount(decoded)} bytes, ${limit}`;
  const copied = (json.accessors ?? []).reduce((n, accessor) => n + accessor.count * elementBytes(accessor), 0);
  if (copied > MODEL_LIMITS.maxDecodedBytes) return `has accessors that read ${formatCount(copied)} bytes, ${limit}`;
  const nodes = json.nodes ?? [];
  const accessors = json.accessors ?? [];
  let triangles = 0;
  let points = 0;
  let drawable = 0;
  for (const node of nodes) {
    for (const primitive of (node.mesh === undefined ? undefined : json.meshes?.[node.mesh])?.primitives ?? []) {
      const position = accessors[primitive.attributes?.POSITION ?? -1];
      if (!position) continue;
      drawable++;
      const n = primitive.indices === undefined ? position.count : (accessors[primitive.indices]?.count ?? 0);
      const mode = primitive.mode ?? 4;
      if (mode === 0) points += n;
      else if (mode === 4) triangles += Math.floor(n / 3);
      else if (mode === 5 || mode === 6) triangles += Math.max(0, n - 2);
    }
  }
  if (drawable === 0) return 'has no mesh to show (no node draws a primitive with POSITION)';
  if (triangles > MODEL_LIMITS.maxTriangles) return `draws ${formatCount(triangles)} triangles, over the limit of ${formatCount(MODEL_LIMITS.maxTriangles)}`;
  if (points > MODEL_LIMITS.maxPoints) return `draws ${formatCount(points)} points, over the limit of ${formatCount(MODEL_LIMITS.maxPoints)}`;
  return null;
}

/** What makes a read document unfit to show (the message follows "model {source}"), or null. */
function documentProblem(doc: Document): string | null {
  const root = doc.getRoot();
  for (const mesh of root.listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      const indices = primitive.getIndices()?.getArray();
      const vertices = primitive.getAttribute('POSITION')?.getCount() ?? 0;
      if (!indices) continue;
      let max = 0;
      for (let i = 0; i < indices.length; i++) if (indices[i]! > max) max = indices[i]!;
      if (indices.length > 0 && max >= vertices) return `is malformed: mesh "${mesh.getName()}" has index ${max} but ${vertices} vertices`;
    }
  }
  for (const [i, texture] of root.listTextures().entries()) {
    const image = texture.getImage();
    const name = texture.getURI() || texture.getName() || `textures[${i}]`;
    if (!image) return `has a texture without image data (${name})`;
    const mime = texture.getMimeType() || ImageUtils.getMimeType(image) || '';
    if (!TEXTURE_TYPES.has(mime)) return `has texture ${name} of type ${mime || 'unknown'}; textures must be PNG, JPEG or WebP`;
    let size: [number, number] | null = null;
    try {
      size = ImageUtils.getSize(image, mime) as [number, number] | null;
    } catch {
      // A truncated image header: told below.
    }
    if (!size) return `has texture ${name}, which is not a readable ${mime.slice(6).toUpperCase()} image`;
    if (Math.max(...size) > MODEL_LIMITS.maxTextureSide) return `has texture ${name} of ${size[0]}×${size[1]} pixels, over the limit of ${MODEL_LIMITS.maxTextureSide} per side`;
  }
  return null;
}
