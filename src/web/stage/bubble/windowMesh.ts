/**
 * The one mesh drawn every frame: a quad with shaders/bubble/bubble-window.frag, which mixes the sharp media and its
 * blurred copy by distance to the pointer. Two texture reads per pixel, no mask, no filter pass. The quad covers
 * the whole media, or only the part a window move changed (`drawRegion`).
 */
import { Mesh, Shader, Texture, UniformGroup } from 'pixi.js';
import type { MeshGeometry } from 'pixi.js';
import type { TextureSource } from 'pixi.js';
import type { Rect } from '../types';
import { unitQuad } from './passMesh';
import { bubbleWindowProgram } from './shaders';

export class WindowMesh {
  readonly mesh: Mesh<MeshGeometry, Shader>;
  private readonly shader: Shader;
  private readonly uniforms: UniformGroup;
  private rect: Rect | null = null;

  constructor() {
    this.uniforms = new UniformGroup({
      uBlurredScale: { value: new Float32Array([1, 1]), type: 'vec2<f32>' },
      uMediaRect: { value: new Float32Array([0, 0, 1, 1]), type: 'vec4<f32>' },
      uDrawRect: { value: new Float32Array([0, 0, 1, 1]), type: 'vec4<f32>' },
      uPointer: { value: new Float32Array([-1e6, -1e6]), type: 'vec2<f32>' },
      uRadius: { value: -1, type: 'f32' },
    });
    this.shader = new Shader({
      glProgram: bubbleWindowProgram(),
      resources: { uSharp: Texture.EMPTY.source, uBlurred: Texture.EMPTY.source, windowUniforms: this.uniforms },
    });
    this.mesh = new Mesh({ geometry: unitQuad(), shader: this.shader });
    this.mesh.visible = false;
  }

  /** What to draw: the sharp media, its blurred copy (and the copy's UV scale), where (canvas CSS px). */
  setMedia(sharp: TextureSource, blurred: TextureSource, blurredScale: readonly [number, number], rect: Rect): void {
    this.shader.resources.uSharp = sharp;
    this.shader.resources.uBlurred = blurred;
    const u = this.uniforms.uniforms;
    (u.uBlurredScale as Float32Array).set(blurredScale);
    (u.uMediaRect as Float32Array).set([rect.x, rect.y, rect.width, rect.height]);
    this.rect = rect;
    this.drawRegion(rect);
    this.mesh.visible = true;
  }

  /** Cover the whole media with the next draw. */
  drawAll(): void {
    if (this.rect) this.drawRegion(this.rect);
  }

  /** Cover only `region` (canvas CSS px, inside the media) with the next draw. */
  drawRegion(region: Rect): void {
    (this.uniforms.uniforms.uDrawRect as Float32Array).set([region.x, region.y, region.width, region.height]);
    this.mesh.position.set(region.x, region.y);
    this.mesh.scale.set(region.width, region.height);
  }

  /** Window centre in canvas CSS px and radius in CSS px (a negative radius draws everything blurred). */
  setWindow(x: number, y: number, radius: number): void {
    const u = this.uniforms.uniforms;
    (u.uPointer as Float32Array).set([x, y]);
    u.uRadius = radius;
  }

  /** Nothing to draw; the textures are unbound, so releasing them later leaves no destroyed texture bound. */
  hide(): void {
    this.mesh.visible = false;
    this.rect = null;
    this.shader.resources.uSharp = Texture.EMPTY.source;
    this.shader.resources.uBlurred = Texture.EMPTY.source;
  }

  destroy(): void {
    this.hide();
    this.mesh.destroy();
    this.shader.destroy();
  }
}
