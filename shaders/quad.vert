#version 300 es
// Vertex shader of every bubble pass and of the video conversion: a unit quad (0..1) that the mesh's transform scales and places in the
// target's pixel space (CSS px on the canvas, texels in a render texture). Pixi supplies the three matrices
// (its global and per-mesh uniform groups).
precision highp float;

in vec2 aPosition;
in vec2 aUV;

uniform mat3 uProjectionMatrix;
uniform mat3 uWorldTransformMatrix;
uniform mat3 uTransformMatrix;

out vec2 vUV;

void main() {
  mat3 mvp = uProjectionMatrix * uWorldTransformMatrix * uTransformMatrix;
  gl_Position = vec4((mvp * vec3(aPosition, 1.0)).xy, 0.0, 1.0);
  vUV = aUV;
}
