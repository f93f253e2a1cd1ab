/**
 * three.js drawing 3D objects into the stage's own canvas, on PixiJS's WebGL context (PixiJS v8's documented way of
 * mixing the two: one context, Pixi draws first, three.js after it, each resetting the GL state it leaves behind).
 * The stage's frame clock calls `draw()` in the frames it renders; nothing here schedules a frame.
 *
 * Declared render settings, the same for every version of a content (docs/3d-objects.md):
 * - the camera looks at the centre of the object's bounding sphere, from the pose's azimuth / elevation, at the pose's
 *   multiple of the distance at which that sphere fills the narrower field of view (`fovDeg` vertical);
 * - lights: a hemisphere light (sky white, ground grey 0x404040, intensity 1.5) and a white directional light of
 *   intensity 2 from above the camera's right shoulder, turning with the camera (the lit side is the seen side);
 * - sRGB output, no tone mapping; 4× multisampling (a multisampled render target per item, then copied into the
 *   item's rectangle), whatever the canvas's own antialias setting;
 * - background: the job's colour (the render target is cleared with it);
 * - points: `pointSize` CSS px ('screen') or object units ('world', perspective-correct at the point's depth).
 */
import {
  Color,
  DirectionalLight,
  HemisphereLight,
  Mesh,
  MeshBasicMaterial,
  OrthographicCamera,
  PerspectiveCamera,
  PlaneGeometry,
  Scene,
  SRGBColorSpace,
  Vector2,
  WebGLRenderer,
  WebGLRenderTarget,
} from 'three';
import type { ResolvedObjectOptions } from '../../../contract/objects';
import type { Rect } from '../types';
import type { LoadedModel } from './modelLoader';
import { cameraOffset, fittedDistance, type CameraPose } from './objectPose';

export const MSAA_SAMPLES = 4;

export type ViewSettings = Pick<ResolvedObjectOptions, 'fovDeg' | 'pointSize' | 'pointSizeUnit'>;

/** The off-screen size a model is first drawn at, to upload it (upload()). */
const UPLOAD_SIZE = 64;
const targetKey = (width: number, height: number) => `${width}x${height}`;

export class ObjectRenderer {
  private readonly three: WebGLRenderer;
  private readonly scene = new Scene();
  private readonly camera = new PerspectiveCamera();
  private readonly key = new DirectionalLight(0xffffff, 2);
  private readonly targets = new Map<string, WebGLRenderTarget>();
  private readonly copyScene = new Scene();
  private readonly copyCamera = new OrthographicCamera(-1, 1, 1, -1, 0, 1);
  private readonly copyMaterial = new MeshBasicMaterial({ toneMapped: false, depthTest: false, depthWrite: false });
  private readonly background = new Color();
  private readonly size = new Vector2();

  constructor(canvas: HTMLCanvasElement, gl: WebGL2RenderingContext) {
    // PixiJS leaves its unpack flags set; three.js creates 3D textures at start, where WebGL refuses them.
    gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
    this.three = new WebGLRenderer({ canvas, context: gl });
    this.three.autoClear = false;
    this.three.outputColorSpace = SRGBColorSpace;
    this.three.setPixelRatio(1);
    this.scene.add(new HemisphereLight(0xffffff, 0x404040, 1.5));
    this.key.position.set(1, 1.5, 1);
    this.camera.add(this.key, this.key.target);
    this.key.target.position.set(0, 0, -1);
    this.scene.add(this.camera);
    this.copyScene.add(new Mesh(new PlaneGeometry(2, 2), this.copyMaterial));
  }

  /**
   * Upload a model (geometry, textures, shader programs) by drawing it once off screen, so that the first frame
   * that shows it costs no upload or compile.
   */
  upload(model: LoadedModel, view: ViewSettings): void {
    this.three.resetState();
    const target = this.target(UPLOAD_SIZE, UPLOAD_SIZE);
    this.renderModel(model, { az: 0, el: 0, dist: 1 }, view, target, UPLOAD_SIZE, UPLOAD_SIZE, 1);
    this.three.setRenderTarget(null);
    // The copy into the canvas, drawn once now with its colour writes off (software GL compiles at the first draw).
    this.copyMaterial.map = target.texture;
    this.copyMaterial.colorWrite = false;
    this.three.setViewport(0, 0, 1, 1);
    this.three.render(this.copyScene, this.copyCamera);
    this.copyMaterial.colorWrite = true;
    this.three.resetState();
  }

  /**
   * Before a play: each object drawn once off screen into the render target of its rectangle's size, so that the
   * onset frame allocates nothing (a new multisampled target is costly the first time it is drawn into).
   */
  warm(items: ReadonlyArray<{ model: LoadedModel; rect: Rect }>, view: ViewSettings, resolution: number): void {
    this.three.resetState();
    const sizes = new Set([targetKey(UPLOAD_SIZE, UPLOAD_SIZE)]);
    for (const { model, rect } of items) {
      const width = Math.max(1, Math.round(rect.width * resolution));
      const height = Math.max(1, Math.round(rect.height * resolution));
      sizes.add(targetKey(width, height));
      this.renderModel(model, { az: 0, el: 0, dist: 1 }, view, this.target(width, height), width, height, resolution);
    }
    this.three.setRenderTarget(null);
    this.three.resetState();
    this.keepOnly(sizes);
  }

  /**
   * Only the targets of the sizes drawn now are kept: one 4× target of 1024² is about 32 MB of GPU memory, and a
   * window resized 50 times used to keep 50 of them.
   */
  private keepOnly(sizes: ReadonlySet<string>): void {
    if (this.targets.size <= sizes.size) return;
    for (const [key, target] of this.targets) {
      if (sizes.has(key)) continue;
      target.dispose();
      this.targets.delete(key);
    }
  }

  /** Render targets held now (the debug hook's leak checks). */
  get renderTargets(): number {
    return this.targets.size;
  }

  /** Textures (render targets' included) and geometries three.js holds on the GPU now (the debug hook's leak checks). */
  get gpuMemory(): { textures: number; geometries: number } {
    const { textures, geometries } = this.three.info.memory;
    return { textures, geometries };
  }

  setBackground(css: string): void {
    this.background.setStyle(css);
  }

  /**
   * Draw each model in its rectangle (CSS px of a canvas `cssHeight` tall, drawn at `resolution` device px per CSS
   * px) from one pose: the items of a step share the camera.
   */
  draw(items: ReadonlyArray<{ model: LoadedModel; rect: Rect }>, pose: CameraPose, view: ViewSettings, resolution: number, cssHeight: number): void {
    this.three.resetState();
    const sizes = new Set([targetKey(UPLOAD_SIZE, UPLOAD_SIZE)]);
    for (const { model, rect } of items) {
      const x = Math.round(rect.x * resolution);
      const y = Math.round((cssHeight - rect.y - rect.height) * resolution);
      const width = Math.max(1, Math.round(rect.width * resolution));
      const height = Math.max(1, Math.round(rect.height * resolution));
      sizes.add(targetKey(width, height));
      const target = this.target(width, height);
      this.renderModel(model, pose, view, target, width, height, resolution);
      // Copy the resolved image into the item's rectangle of the canvas.
      this.three.setRenderTarget(null);
      this.three.setViewport(x, y, width, height);
      this.three.setScissor(x, y, width, height);
      this.three.setScissorTest(true);
      this.copyMaterial.map = target.texture;
      this.three.render(this.copyScene, this.copyCamera);
      this.three.setScissorTest(false);
    }
    this.three.resetState();
    this.keepOnly(sizes);
  }

  destroy(): void {
    for (const target of this.targets.values()) target.dispose();
    this.targets.clear();
    this.copyMaterial.dispose();
    this.three.dispose();
  }

  private renderModel(model: LoadedModel, pose: CameraPose, view: ViewSettings, target: WebGLRenderTarget, width: number, height: number, resolution: number): void {
    const aspect = width / height;
    const fitted = fittedDistance(model.radius, view.fovDeg, aspect);
    const [dx, dy, dz] = cameraOffset(pose, fitted);
    const distance = pose.dist * fitted;
    this.camera.fov = view.fovDeg;
    this.camera.aspect = aspect;
    this.camera.near = Math.max(distance - model.radius * 1.01, distance * 1e-3);
    this.camera.far = distance + model.radius * 1.01;
    this.camera.position.set(model.center.x + dx, model.center.y + dy, model.center.z + dz);
    this.camera.up.set(0, 1, 0);
    this.camera.lookAt(model.center);
    this.camera.updateProjectionMatrix();
    this.camera.updateMatrixWorld(true);
    this.setPointSize(model, view, height, resolution);
    this.scene.add(model.root);
    this.three.setRenderTarget(target);
    this.three.setViewport(0, 0, width, height);
    this.three.setClearColor(this.background, 1);
    this.three.clear(true, true, false);
    this.three.render(this.scene, this.camera);
    this.scene.remove(model.root);
  }

  /**
   * three.js sizes points in drawing-buffer px ('screen': size × pixel ratio) or, with attenuation, as
   * size × pixelRatio × (its own height / 2) / depth; 'world' sets size so that a point of `pointSize` object units
   * covers what a sphere of that diameter at the same depth would: pointSize · (target height / 2) / (depth · tan(fov / 2)).
   */
  private setPointSize(model: LoadedModel, view: ViewSettings, targetHeight: number, resolution: number): void {
    if (model.points.length === 0) return;
    const world = view.pointSizeUnit === 'world';
    const ownHeight = this.three.getSize(this.size).y;
    const tanHalf = Math.tan((view.fovDeg * Math.PI) / 360);
    for (const material of model.points) {
      // A change of attenuation is a different shader; the size alone is a uniform.
      if (material.sizeAttenuation !== world) {
        material.sizeAttenuation = world;
        material.needsUpdate = true;
      }
      material.size = world ? (view.pointSize * targetHeight) / (tanHalf * ownHeight) : view.pointSize * resolution;
    }
  }

  /** One multisampled, sRGB render target per item size (a pair's two rectangles share one). */
  private target(width: number, height: number): WebGLRenderTarget {
    const key = targetKey(width, height);
    let target = this.targets.get(key);
    if (!target) {
      target = new WebGLRenderTarget(width, height, { samples: MSAA_SAMPLES, colorSpace: SRGBColorSpace, depthBuffer: true });
      this.targets.set(key, target);
    }
    return target;
  }
}
