/**
 * The bubble's GLSL (shaders/bubble/*), compiled once per page. Vite inlines the files as strings (?raw).
 * The sources start with `#version 300 es`, so Pixi keeps them as GLSL ES 3.00 (texelFetch, loops with
 * uniform bounds); the fragment shaders ask for highp themselves.
 */
import { GlProgram } from 'pixi.js';
import quadVertex from '../../../../shaders/quad.vert?raw';
import gaussianPassFragment from '../../../../shaders/bubble/gaussian-pass.frag?raw';
import bubbleWindowFragment from '../../../../shaders/bubble/bubble-window.frag?raw';

let passProgram: GlProgram | null = null;
let windowProgram: GlProgram | null = null;

export function gaussianPassProgram(): GlProgram {
  passProgram ??= GlProgram.from({ vertex: quadVertex, fragment: gaussianPassFragment, name: 'bubble-gaussian-pass' });
  return passProgram;
}

export function bubbleWindowProgram(): GlProgram {
  windowProgram ??= GlProgram.from({ vertex: quadVertex, fragment: bubbleWindowFragment, name: 'bubble-window' });
  return windowProgram;
}
