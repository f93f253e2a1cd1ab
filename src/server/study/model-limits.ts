/**
 * Size limits of a 3D object at import (docs/3d-objects.md). The participant's browser parses the whole object and
 * uploads it to the GPU before the first trial, on whatever computer it has: these keep one stimulus within what a
 * mid-range laptop's WebGL holds beside the stage, and twice the 1 M-triangle / 1 M-point scale of bench:3d.
 */
export const MODEL_LIMITS = {
  /** Bytes of the file, plus its side files for a `.gltf` (buffers and textures), each counted once. */
  maxBytes: 256 * 1024 * 1024,
  /** Triangles drawn: every instance of a mesh counts (a node using a mesh twice draws it twice). */
  maxTriangles: 2_000_000,
  /** Points of a point cloud (a PLY's vertices, or glTF POINTS primitives). */
  maxPoints: 2_000_000,
  /**
   * glTF objects of one kind (nodes, meshes, accessors...): checked before the file is decoded, since a few bytes of
   * JSON per object cost about a kilobyte each to read.
   */
  maxObjects: 100_000,
  /**
   * Bytes a glTF decodes to in the reader (checked from the JSON, before anything is allocated): every compressed
   * buffer view is allocated and decoded whole, `count × byteStride` (EXT_meshopt_compression), whatever the
   * accessors use of it, and every accessor's array is a copy, so accessors sharing one view multiply it. Each sum is
   * held to this bound: a 4 MB meshopt file whose 8 views shared one stream decoded to 2.5 GB in the importer, and
   * would in every participant's browser. The same as maxBytes: a compressed object may decode to what an
   * uncompressed one may hold, and an uncompressed file's accessors copy its buffers once (2 M triangles of
   * position, normal and UV are about 60 MB).
   */
  maxDecodedBytes: 256 * 1024 * 1024,
  /** Width and height of a texture, in pixels (WebGL 2 guarantees 2048; every current GPU takes 4096). */
  maxTextureSide: 4096,
} as const;

/** A file that cannot be a study's 3D object: the message says which file and why (validate.ts adds the JSON path). */
export class ModelProblem extends Error {}

export const formatCount = (n: number) => n.toLocaleString('en-US');
