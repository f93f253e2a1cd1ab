/**
 * Small dense symmetric positive-definite algebra on row-major Float64Arrays. The paired scalers solve
 * thousands of tiny systems (one per bootstrap resample and per left-out observer); ml-matrix objects cost
 * more than the arithmetic at that size.
 */

/** In-place Cholesky factor (lower triangle) of an m × m SPD matrix; false when not positive definite. */
export function choleskyInPlace(a: Float64Array, m: number): boolean {
  for (let j = 0; j < m; j++) {
    let diagonal = a[j * m + j];
    for (let k = 0; k < j; k++) diagonal -= a[j * m + k] * a[j * m + k];
    if (!(diagonal > 0)) return false;
    const root = Math.sqrt(diagonal);
    a[j * m + j] = root;
    for (let i = j + 1; i < m; i++) {
      let sum = a[i * m + j];
      for (let k = 0; k < j; k++) sum -= a[i * m + k] * a[j * m + k];
      a[i * m + j] = sum / root;
    }
  }
  return true;
}

/** Solves L Lᵀ x = b with the factor of `choleskyInPlace`. */
export function choleskySolve(l: Float64Array, m: number, b: ArrayLike<number>): Float64Array {
  const x = Float64Array.from(b);
  for (let i = 0; i < m; i++) {
    let sum = x[i];
    for (let k = 0; k < i; k++) sum -= l[i * m + k] * x[k];
    x[i] = sum / l[i * m + i];
  }
  for (let i = m - 1; i >= 0; i--) {
    let sum = x[i];
    for (let k = i + 1; k < m; k++) sum -= l[k * m + i] * x[k];
    x[i] = sum / l[i * m + i];
  }
  return x;
}

/** Inverse of an SPD matrix, or null when it is not positive definite. */
export function spdInverse(a: Float64Array, m: number): Float64Array | null {
  const l = Float64Array.from(a);
  if (!choleskyInPlace(l, m)) return null;
  const inverse = new Float64Array(m * m);
  const unit = new Float64Array(m);
  for (let c = 0; c < m; c++) {
    unit.fill(0);
    unit[c] = 1;
    inverse.set(choleskySolve(l, m, unit), c * m); // column c, stored as row c: the inverse is symmetric
  }
  return inverse;
}

/** y = A x for an m × m matrix. */
export function multiply(a: Float64Array, m: number, x: ArrayLike<number>): Float64Array {
  const y = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    let sum = 0;
    for (let k = 0; k < m; k++) sum += a[i * m + k] * x[k];
    y[i] = sum;
  }
  return y;
}
