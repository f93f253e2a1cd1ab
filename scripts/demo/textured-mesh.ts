import type { Document } from '@gltf-transform/core';

/** What a procedural mesh is made of: one primitive with a PNG base-colour texture. */
export interface TexturedMeshParts {
  /** The node's and the mesh's name. */
  name: string;
  sceneName?: string;
  positions: Float32Array;
  normals: Float32Array;
  uvs: Float32Array;
  indices: Uint16Array | Uint32Array;
  texture: { name: string; png: Uint8Array; uri?: string };
}

/**
 * Adds one textured mesh (a rough, non-metallic surface) as the only node of a new scene of `doc`: what the demo's
 * 3D content (render-model.ts) and bench:3d's sphere (bench/3d/content.ts) both write. glTF-Transform core only: the
 * GPU kit that carries bench:3d has no native module.
 */
export function addTexturedMesh(doc: Document, mesh: TexturedMeshParts): void {
  const buffer = doc.createBuffer();
  const accessor = (type: 'VEC2' | 'VEC3' | 'SCALAR', array: Float32Array | Uint16Array | Uint32Array) => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const texture = doc.createTexture(mesh.texture.name).setImage(mesh.texture.png).setMimeType('image/png');
  if (mesh.texture.uri !== undefined) texture.setURI(mesh.texture.uri);
  const material = doc.createMaterial('surface').setBaseColorTexture(texture).setRoughnessFactor(0.7).setMetallicFactor(0);
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', mesh.positions))
    .setAttribute('NORMAL', accessor('VEC3', mesh.normals))
    .setAttribute('TEXCOORD_0', accessor('VEC2', mesh.uvs))
    .setIndices(accessor('SCALAR', mesh.indices))
    .setMaterial(material);
  doc.createScene(mesh.sceneName).addChild(doc.createNode(mesh.name).setMesh(doc.createMesh(mesh.name).addPrimitive(primitive)));
}
