#version 300 es
// The bubble: the media sharp inside a circle around the pointer and blurred outside it. Two texture reads per
// pixel; the blurred copy was made once per image (or once per new video frame) by gaussian-pass.frag.
// The quad covers uDrawRect: the whole media, or only the part a window move changed (the canvas keeps the rest).
precision highp float;

in vec2 vUV;

uniform sampler2D uSharp;
/** Low-resolution blurred copy, sampled with bilinear filtering. */
uniform sampler2D uBlurred;
/** vUV -> uBlurred coordinates: the blurred texture may be a little larger than size / factor. */
uniform vec2 uBlurredScale;
/** Where the media is drawn: x, y, width, height in canvas CSS px. */
uniform vec4 uMediaRect;
/** The part of the canvas this quad covers (inside uMediaRect), canvas CSS px. */
uniform vec4 uDrawRect;
/** Window centre (the latest pointer sample) in canvas CSS px. */
uniform vec2 uPointer;
/** Window radius in CSS px; negative: no window (all blurred). */
uniform float uRadius;

out vec4 finalColor;

void main() {
  vec2 pixel = uDrawRect.xy + vUV * uDrawRect.zw;
  vec2 uv = (pixel - uMediaRect.xy) / uMediaRect.zw;
  vec4 sharp = texture(uSharp, uv);
  vec4 blurred = texture(uBlurred, uv * uBlurredScale);
  // 1 px wide anti-aliased rim centred on the radius.
  float outside = uRadius < 0.0 ? 1.0 : smoothstep(uRadius - 0.5, uRadius + 0.5, distance(pixel, uPointer));
  finalColor = mix(sharp, blurred, outside);
}
