/**
 * Unit-quad meshes with the bubble's own shaders. A mesh with a custom shader is drawn on its own (never batched);
 * Pixi binds its global and per-mesh uniform groups (the matrices of quad.vert) itself.
 */
import { Mesh, MeshGeometry, Shader, Texture, UniformGroup } from 'pixi.js';
import type { TextureSource } from 'pixi.js';
import { gaussianPassProgram } from './shaders';

/** 0..1 quad: positions double as UVs (top-left = UV 0,0 = texel row 0). */
export function unitQuad(): MeshGeometry {
  const corners = new Float32Array([0, 0, 1, 0, 1, 1, 0, 1]);
  return new MeshGeometry({ positions: corners, uvs: corners.slice(), indices: new Uint32Array([0, 1, 2, 0, 2, 3]) });
}

export interface PassMesh {
  mesh: Mesh<MeshGeometry, Shader>;
  /** Point the pass at its source and size the quad to the target (texels). */
  set(source: TextureSource, factor: number, sigma: number, width: number, height: number): void;
  /** Drop the source texture (bind the empty one). */
  unbind(): void;
  destroy(): void;
}

export function createPassMesh(direction: [number, number]): PassMesh {
  const uniforms = new UniformGroup({
    uDirection: { value: new Float32Array(direction), type: 'vec2<f32>' },
    uFactor: { value: 1, type: 'f32' },
    uSigma: { value: 0, type: 'f32' },
  });
  const shader = new Shader({ glProgram: gaussianPassProgram(), resources: { uSource: Texture.EMPTY.source, passUniforms: uniforms } });
  const mesh = new Mesh({ geometry: unitQuad(), shader });
  // Overwrite the target, do not blend into it.
  mesh.state.blend = false;
  return {
    mesh,
    set(source, factor, sigma, width, height) {
      shader.resources.uSource = source;
      uniforms.uniforms.uFactor = factor;
      uniforms.uniforms.uSigma = sigma;
      mesh.scale.set(width, height);
    },
    unbind() {
      shader.resources.uSource = Texture.EMPTY.source;
    },
    destroy() {
      mesh.destroy();
      shader.destroy();
    },
  };
}
