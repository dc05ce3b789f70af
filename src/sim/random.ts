/**
 * Deterministic randomness for the simulator: the same seed gives the same data on every machine.
 * sfc32 (a small, fast, well-tested generator) seeded from a string hash, plus normal draws.
 */

/** A 32-bit FNV-1a hash of a string, mixed with a seed. */
export function hash32(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // Final avalanche (murmur3 fmix32) so nearby strings give unrelated seeds.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Standard normal. */
  normal(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
}

/** A generator for a seed and a key: `rng(seed, "curves/USD")` is independent of `rng(seed, "curves/EUR")`. */
export function rng(seed: number, key: string): Rng {
  return sfc32(hash32(key, seed), hash32(key, seed ^ 0x9e3779b9), hash32(key, seed ^ 0x85ebca6b));
}

/** A generator for two integers (e.g. a portfolio's hash and a row index), without building strings: hot loops. */
export function rngFromInts(stream: number, index: number): Rng {
  const a = mix32(stream ^ Math.imul(index, 0x9e3779b9));
  return sfc32(a, mix32(a ^ 0x85ebca6b), mix32(index + 0x632be5ab));
}

/** splitmix-style 32-bit finaliser. */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

function sfc32(a: number, b: number, c: number): Rng {
  let d = 1;
  const next = () => {
    // sfc32
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next(); // warm up
  let spare: number | undefined;
  return {
    next,
    normal() {
      if (spare !== undefined) {
        const s = spare;
        spare = undefined;
        return s;
      }
      let u = 0;
      while (u === 0) u = next();
      const v = next();
      const r = Math.sqrt(-2 * Math.log(u));
      spare = r * Math.sin(2 * Math.PI * v);
      return r * Math.cos(2 * Math.PI * v);
    },
    int: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)]!,
  };
}
