#version 300 es
// The bubble: the media sharp inside a circle around the pointer and blurred outside it. Two texture reads per
// pixel; the blurred copy was made once per image (or once per new video frame) by gaussian-pass.frag.
precision highp float;

in vec2 vUV;

uniform sampler2D uSharp;
/** Low-resolution blurred copy, sampled with bilinear filtering. */
uniform sampler2D uBlurred;
/** vUV -> uBlurred coordinates: the blurred texture may be a little larger than size / factor. */
uniform vec2 uBlurredScale;
/** Where the media is drawn: x, y, width, height in canvas CSS px. */
uniform vec4 uMediaRect;
/** Window centre (the latest pointer sample) in canvas CSS px. */
uniform vec2 uPointer;
/** Window radius in CSS px; negative: no window (all blurred). */
uniform float uRadius;

out vec4 finalColor;

void main() {
  vec4 sharp = texture(uSharp, vUV);
  vec4 blurred = texture(uBlurred, vUV * uBlurredScale);
  // 1 px wide anti-aliased rim centred on the radius.
  float outside = uRadius < 0.0 ? 1.0 : smoothstep(uRadius - 0.5, uRadius + 0.5, distance(uMediaRect.xy + vUV * uMediaRect.zw, uPointer));
  finalColor = mix(sharp, blurred, outside);
}
