/**
 * The GPU gaussian blur of the bubble stage: two passes of shaders/bubble/gaussian-pass.frag (horizontal, then
 * vertical), each rendering a unit quad into a render texture it exactly covers. Run once per image, or once per
 * new video frame; never per frame for a static image. Sizes and deviations come from blurPlan.ts.
 */
import { Container, RenderTexture } from 'pixi.js';
import type { Renderer, Texture, TextureSource } from 'pixi.js';
import type { BlurPlan } from './blurPlan';
import { samePlan } from './blurPlan';
import { createPassMesh } from './passMesh';
import type { PassMesh } from './passMesh';

export class GpuGaussianBlur {
  private readonly horizontal: PassMesh;
  private readonly vertical: PassMesh;
  private readonly scene = new Container();
  private horizontalTarget: RenderTexture | null = null;
  private verticalTarget: RenderTexture | null = null;
  private plan: BlurPlan | null = null;

  constructor(private readonly renderer: Renderer) {
    this.horizontal = createPassMesh([1, 0]);
    this.vertical = createPassMesh([0, 1]);
  }

  /** The blurred texture of the last run() (null before the first). */
  get output(): Texture | null {
    return this.verticalTarget;
  }

  get currentPlan(): BlurPlan | null {
    return this.plan;
  }

  /** Blur `source` (plan.sourceWidth x plan.sourceHeight texels) into `output`. */
  run(source: TextureSource, plan: BlurPlan): Texture {
    this.ensureTargets(plan);
    const horizontalTarget = this.horizontalTarget!;
    const verticalTarget = this.verticalTarget!;
    // Pass 1: full height, width / factor.
    this.horizontal.set(source, plan.factor, plan.passSigma, plan.width, plan.sourceHeight);
    this.draw(this.horizontal, horizontalTarget);
    // Pass 2: reads pass 1, height / factor.
    this.vertical.set(horizontalTarget.source, plan.factor, plan.passSigma, plan.width, plan.height);
    this.draw(this.vertical, verticalTarget);
    // Unbind the inputs: the media may be released, and pass 1's target replaced, while this blur lives on.
    this.horizontal.unbind();
    this.vertical.unbind();
    return verticalTarget;
  }

  destroy(): void {
    // The shaders go first, so that no destroyed texture is still bound to one.
    this.horizontal.destroy();
    this.vertical.destroy();
    this.horizontalTarget?.destroy(true);
    this.verticalTarget?.destroy(true);
    this.scene.destroy();
  }

  private draw(pass: PassMesh, target: RenderTexture): void {
    this.scene.removeChildren();
    this.scene.addChild(pass.mesh);
    this.renderer.render({ container: this.scene, target, clear: true, clearColor: [0, 0, 0, 0] });
    this.scene.removeChildren();
  }

  private ensureTargets(plan: BlurPlan): void {
    if (this.plan && samePlan(this.plan, plan) && this.horizontalTarget && this.verticalTarget) return;
    this.horizontalTarget?.destroy(true);
    this.verticalTarget?.destroy(true);
    // Linear filtering: the bubble shader reads the small result with bilinear reconstruction.
    const options = { resolution: 1, scaleMode: 'linear', addressMode: 'clamp-to-edge', antialias: false } as const;
    this.horizontalTarget = RenderTexture.create({ ...options, width: plan.width, height: plan.sourceHeight });
    this.verticalTarget = RenderTexture.create({ ...options, width: plan.width, height: plan.height });
    this.plan = plan;
  }
}
