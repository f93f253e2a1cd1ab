#version 300 es
// One pass of a separable gaussian blur that also decimates along its direction.
//
// Output texel i (along uDirection) sits over source texels [i*f, (i+1)*f), so its centre is at source index
// (i + 0.5) * f - 0.5. It is the exact gaussian-weighted mean (deviation uSigma source texels) of the source
// texels within ceil(3 * uSigma) of that centre, read with texelFetch (no filtering, no approximation).
// With f chosen proportional to sigma (blurPlan.ts) the taps per source texel stay constant, so the cost does not
// grow with the blur. Near the borders only the texels inside the media count (the weights are renormalised), so
// nothing from outside the media (and no repeated border texel) leaks in. Orientation: output row/column = gl_FragCoord, input =
// texel memory coordinates, so the result keeps the input's memory layout whatever the projection does.
precision highp float;

uniform sampler2D uSource;
/** (1, 0): horizontal pass; (0, 1): vertical pass. */
uniform vec2 uDirection;
/** Decimation factor f along the direction (1 keeps the size). */
uniform float uFactor;
/** Gaussian deviation in source texels; below 0.01 the pass only decimates (nearest texel). */
uniform float uSigma;

out vec4 finalColor;

void main() {
  ivec2 direction = ivec2(uDirection);
  ivec2 across = ivec2(1) - direction;
  ivec2 index = ivec2(floor(gl_FragCoord.xy));
  ivec2 size = textureSize(uSource, 0);
  int lastTexel = direction.x * (size.x - 1) + direction.y * (size.y - 1);
  float outIndex = float(direction.x * index.x + direction.y * index.y);
  float centre = (outIndex + 0.5) * uFactor - 0.5;
  ivec2 base = index * across;

  if (uSigma < 0.01) {
    int k = clamp(int(floor(centre + 0.5)), 0, lastTexel);
    finalColor = texelFetch(uSource, base + direction * k, 0);
    return;
  }

  float reach = ceil(3.0 * uSigma);
  int first = max(int(ceil(centre - reach)), 0);
  int last = min(int(floor(centre + reach)), lastTexel);
  float inverseTwoVariance = 0.5 / (uSigma * uSigma);
  vec4 sum = vec4(0.0);
  float weights = 0.0;
  for (int k = first; k <= last; k++) {
    float d = float(k) - centre;
    float w = exp(-d * d * inverseTwoVariance);
    sum += w * texelFetch(uSource, base + direction * k, 0);
    weights += w;
  }
  finalColor = sum / weights;
}
