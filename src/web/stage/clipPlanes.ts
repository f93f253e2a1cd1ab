/**
 * The planes path of a clip (clipTexture.ts): a decoded frame's planes copied as they are (copyTo without a
 * format, rows padded to 4 bytes so WebGL's default unpack alignment reads them), uploaded as one-channel textures,
 * and converted to RGB on the GPU by shaders/video/yuv-to-rgb.frag with the clip's own matrix and range
 * (videoColour.ts) into the clip's texture, a render texture of the picture's size, turned as the container's
 * rotation says (the layout then uses the turned size, as a <video> element does). One pass per new frame.
 */
import { BufferImageSource, Container, GlProgram, Mesh, RenderTexture, Shader, UniformGroup } from 'pixi.js';
import type { MeshGeometry, Renderer, Texture, WebGLRenderer } from 'pixi.js';
import quadVertex from '../../../shaders/quad.vert?raw';
import yuvToRgbFragment from '../../../shaders/video/yuv-to-rgb.frag?raw';
import { unitQuad } from './bubble/passMesh';
import { conversionConstants, type ClipColour } from './videoColour';

/** Where the planes path converts: the stage's renderer (WebGL) and the clip's matrix and range. */
export interface PlanesTarget {
  renderer: Renderer;
  colour: ClipColour;
  /** The container's rotation, clockwise degrees (0, 90, 180, 270). */
  rotation?: number;
}

/**
 * How the copying paths get a frame's bytes and show them: RGBA converted by the browser (clipTexture.ts), or planes
 * by the GPU (here).
 */
export interface FrameCopier {
  readonly path: 'planes' | 'pixels';
  readonly texture: Texture;
  /** The picture as drawn (the planes path turns a rotated clip). */
  readonly width: number;
  readonly height: number;
  /** Bytes of one frame's buffer. */
  readonly bytes: number;
  /** Bytes the texture itself holds beyond the buffers (the planes path's converted RGBA). */
  readonly textureBytes: number;
  copy(frame: VideoFrame, into: Uint8Array): Promise<unknown>;
  /** Put these bytes on the texture (now, or at the next render). */
  upload(bytes: Uint8Array): void;
  destroy(): void;
}

let program: GlProgram | null = null;

/** Compiled once per page (GLSL ES 3.00: texelFetch). */
function yuvToRgbProgram(): GlProgram {
  program ??= GlProgram.from({ vertex: quadVertex, fragment: yuvToRgbFragment, name: 'video-yuv-to-rgb' });
  return program;
}

/** The 8-bit planar formats converted here: chroma subsampling (log2) and whether U and V are interleaved. */
const FORMATS: Readonly<Record<string, { shift: [number, number]; interleaved: boolean; alpha: boolean }>> = {
  I420: { shift: [1, 1], interleaved: false, alpha: false },
  I420A: { shift: [1, 1], interleaved: false, alpha: true },
  I422: { shift: [1, 0], interleaved: false, alpha: false },
  I444: { shift: [0, 0], interleaved: false, alpha: false },
  NV12: { shift: [1, 1], interleaved: true, alpha: false },
};

const align4 = (n: number) => Math.ceil(n / 4) * 4;

interface Plane {
  offset: number;
  stride: number;
  /** Texels per row of the plane's texture (the stride in samples) and rows. */
  width: number;
  height: number;
  format: 'r8unorm' | 'rg8unorm';
}

/** The copier for this frame's format, or null when the format is not one converted here (10-bit, RGB). */
export function createPlanesCopier(first: VideoFrame, { renderer, colour, rotation = 0 }: PlanesTarget): FrameCopier | null {
  const format = first.format ? FORMATS[first.format] : undefined;
  const rect = first.visibleRect;
  // One- and two-channel textures (R8, RG8) need WebGL 2.
  if (!format || !rect || !('gl' in renderer) || (renderer as WebGLRenderer).context.webGLVersion !== 2) return null;
  const { width, height } = rect;
  const chromaWidth = Math.ceil(width / 2 ** format.shift[0]);
  const chromaHeight = Math.ceil(height / 2 ** format.shift[1]);
  const planes: Plane[] = [];
  let offset = 0;
  const add = (samples: number, rows: number, channels: 1 | 2) => {
    const stride = align4(samples * channels);
    planes.push({ offset, stride, width: stride / channels, height: rows, format: channels === 2 ? 'rg8unorm' : 'r8unorm' });
    offset += stride * rows;
  };
  add(width, height, 1);
  if (format.interleaved) add(chromaWidth, chromaHeight, 2);
  else {
    add(chromaWidth, chromaHeight, 1);
    add(chromaWidth, chromaHeight, 1);
  }
  if (format.alpha) add(width, height, 1);
  const bytes = offset;
  const layout = planes.map(({ offset: at, stride }) => ({ offset: at, stride }));

  const sourceOf = (plane: Plane) =>
    new BufferImageSource({
      resource: new Uint8Array(plane.stride * plane.height),
      width: plane.width,
      height: plane.height,
      format: plane.format,
      alphaMode: 'no-premultiply-alpha',
      scaleMode: 'nearest',
    });
  const luma = sourceOf(planes[0]!);
  const chromaU = sourceOf(planes[1]!);
  const chromaV = format.interleaved ? chromaU : sourceOf(planes[2]!);
  const { range, k } = conversionConstants(colour);
  // Drawn turned as the container says (clockwise): a quarter turn swaps the picture's sides.
  const quarterTurns = Math.round(((rotation % 360) + 360) % 360 / 90) % 4;
  const [shownWidth, shownHeight] = quarterTurns % 2 === 1 ? [height, width] : [width, height];
  const uniforms = new UniformGroup({
    uChromaShift: { value: new Float32Array(format.shift), type: 'vec2<f32>' },
    uInterleaved: { value: format.interleaved ? 1 : 0, type: 'f32' },
    uRange: { value: new Float32Array(range), type: 'vec4<f32>' },
    uK: { value: new Float32Array(k), type: 'vec2<f32>' },
    uQuarterTurns: { value: quarterTurns, type: 'f32' },
    uCodedSize: { value: new Float32Array([width, height]), type: 'vec2<f32>' },
  });
  const shader = new Shader({ glProgram: yuvToRgbProgram(), resources: { uLuma: luma, uChromaU: chromaU, uChromaV: chromaV, conversion: uniforms } });
  const mesh = new Mesh<MeshGeometry, Shader>({ geometry: unitQuad(), shader });
  mesh.state.blend = false;
  mesh.scale.set(shownWidth, shownHeight);
  const scene = new Container();
  scene.addChild(mesh);
  const target = RenderTexture.create({ width: shownWidth, height: shownHeight, resolution: 1, scaleMode: 'linear', addressMode: 'clamp-to-edge', antialias: false });

  return {
    path: 'planes',
    texture: target,
    width: shownWidth,
    height: shownHeight,
    bytes,
    textureBytes: width * height * 4,
    copy: (frame, into) => frame.copyTo(into, { layout }),
    upload(data) {
      for (const [source, plane] of [
        [luma, planes[0]!],
        [chromaU, planes[1]!],
        ...(format.interleaved ? [] : [[chromaV, planes[2]!] as const]),
      ] as const) {
        source.resource = data.subarray(plane.offset, plane.offset + plane.stride * plane.height);
        source.update();
      }
      renderer.render({ container: scene, target, clear: false });
    },
    destroy() {
      // Mesh.destroy leaves its geometry: the quad's vertex array and its three GL buffers stayed for the page's life,
      // one set per clip ever released (issue 36, leaks.display.test.ts).
      const geometry = mesh.geometry;
      scene.destroy({ children: true });
      geometry.destroy(true);
      shader.destroy();
      for (const source of new Set([luma, chromaU, chromaV])) source.destroy();
      target.destroy(true);
    },
  };
}
