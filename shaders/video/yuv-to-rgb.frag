#version 300 es
// A decoded video frame's planes (Y, and U and V, or interleaved UV) to RGB with the clip's own matrix and range
// (src/web/stage/videoColour.ts): one output texel per luma sample, chroma taken from the sample that covers it
// (no filtering). Computed in code units and rounded once, so the result is what an exact decoder gives.
// Orientation: output texel = gl_FragCoord; row 0 = the picture's top row. The clip's rotation (its container's
// display matrix, clockwise) is applied here: the output is the rotated picture.
precision highp float;
precision highp int;

uniform sampler2D uLuma;
/** The U plane (red channel), or the interleaved UV plane (red, green) when uInterleaved is 1. */
uniform sampler2D uChromaU;
uniform sampler2D uChromaV;
/** log2 of the chroma subsampling, horizontally and vertically: (1, 1) for 4:2:0, (1, 0) for 4:2:2. */
uniform vec2 uChromaShift;
uniform float uInterleaved;
/** Luma offset and scale, chroma offset and scale, in code units: (16, 1/219, 128, 1/224) for limited range. */
uniform vec4 uRange;
/** Kr, Kb of the matrix: (0.2126, 0.0722) for BT.709, (0.299, 0.114) for BT.601. */
uniform vec2 uK;
/** Clockwise quarter turns (0–3) and the coded picture's size (before the turn). */
uniform float uQuarterTurns;
uniform vec2 uCodedSize;

out vec4 finalColor;

void main() {
  ivec2 out_ = ivec2(floor(gl_FragCoord.xy));
  ivec2 size = ivec2(uCodedSize);
  int turns = int(uQuarterTurns + 0.5);
  // The source sample each output texel shows: inverse of a clockwise turn.
  ivec2 p = turns == 1 ? ivec2(out_.y, size.y - 1 - out_.x)
    : turns == 2 ? ivec2(size.x - 1 - out_.x, size.y - 1 - out_.y)
    : turns == 3 ? ivec2(size.x - 1 - out_.y, out_.x)
    : out_;
  ivec2 c = ivec2(p.x >> int(uChromaShift.x), p.y >> int(uChromaShift.y));
  float y = texelFetch(uLuma, p, 0).r * 255.0;
  vec2 uv = uInterleaved > 0.5 ? texelFetch(uChromaU, c, 0).rg * 255.0 : vec2(texelFetch(uChromaU, c, 0).r, texelFetch(uChromaV, c, 0).r) * 255.0;
  float luma = (y - uRange.x) * uRange.y;
  float cb = (uv.x - uRange.z) * uRange.w;
  float cr = (uv.y - uRange.z) * uRange.w;
  float kr = uK.x;
  float kb = uK.y;
  float r = luma + 2.0 * (1.0 - kr) * cr;
  float b = luma + 2.0 * (1.0 - kb) * cb;
  float g = (luma - kr * r - kb * b) / (1.0 - kr - kb);
  finalColor = vec4(clamp(floor(vec3(r, g, b) * 255.0 + 0.5), 0.0, 255.0) / 255.0, 1.0);
}
