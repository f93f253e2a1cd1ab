/**
 * Seeded pseudo-random numbers for the bootstraps and the simulations of the tests: xoshiro128** (Blackman and
 * Vigna) seeded through splitmix32, so that one integer seed reproduces a report bit for bit on any platform.
 */

export interface Random {
  /** Uniform in [0, 1), 32 bits of resolution. */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Standard normal (Box–Muller). */
  normal(): number;
}

export function createRandom(seed: number): Random {
  let x = (Math.trunc(seed) >>> 0) ^ 0x9e3779b9;
  const splitmix = () => {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let s0 = splitmix();
  let s1 = splitmix();
  let s2 = splitmix();
  let s3 = splitmix();
  if ((s0 | s1 | s2 | s3) === 0) s0 = 1; // the all-zero state is a fixed point

  const nextUint32 = () => {
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl(s3, 11);
    return result;
  };
  let spareNormal: number | null = null;
  const next = () => nextUint32() / 4294967296;
  return {
    next,
    int: (n) => Math.floor(next() * n),
    normal() {
      if (spareNormal !== null) {
        const z = spareNormal;
        spareNormal = null;
        return z;
      }
      let u = 0;
      while (u === 0) u = next();
      const radius = Math.sqrt(-2 * Math.log(u));
      const angle = 2 * Math.PI * next();
      spareNormal = radius * Math.sin(angle);
      return radius * Math.cos(angle);
    },
  };
}

function rotl(value: number, bits: number): number {
  return (value << bits) | (value >>> (32 - bits));
}

/** A new array in a uniformly random order (Fisher–Yates); `items` is not changed. */
export function shuffled<T>(items: readonly T[], random: Pick<Random, 'int'>): T[] {
  const out = [...items];
  for (let k = out.length - 1; k > 0; k--) {
    const r = random.int(k + 1);
    [out[k], out[r]] = [out[r]!, out[k]!];
  }
  return out;
}
