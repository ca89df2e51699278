// Seeded randomness for the sandbox data set: a string hash (cyrb128) feeding sfc32. Everything the data
// set draws goes through here, so one seed (and one `now`) always gives the same data.

/** 128-bit hash of a string as four unsigned 32-bit words (cyrb128). */
export function hash128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** A small unsigned hash of a string, for deterministic choices that need no stream. */
export function hash32(text: string): number {
  return hash128(text)[0];
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const hex8 = (n: number) =>
  `${HEX[(n >>> 24) & 255]}${HEX[(n >>> 16) & 255]}${HEX[(n >>> 8) & 255]}${HEX[n & 255]}`;

/** Formats 128 bits as a version-4, RFC 4122 variant uuid (lower case). */
function formatUuid(a: number, b: number, c: number, d: number): string {
  const bb = hex8(((b & 0xffff0fff) | 0x00004000) >>> 0);
  const cc = hex8(((c & 0x3fffffff) | 0x80000000) >>> 0);
  return `${hex8(a)}-${bb.slice(0, 4)}-${bb.slice(4)}-${cc.slice(0, 4)}-${cc.slice(4)}${hex8(d)}`;
}

/** A v4-shaped uuid that depends only on `key`: the same key always names the same record. */
export function uuidFromKey(key: string): string {
  const [a, b, c, d] = hash128(key);
  return formatUuid(a, b, c, d);
}

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  /** Uniform in [min, max), rounded to `decimals` places. */
  float(min: number, max: number, decimals?: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks by weight; `weights[i]` is the weight of `items[i]`. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T;
  /** `count` distinct items, in random order. */
  sample<T>(items: readonly T[], count: number): T[];
  /** Approximately normal (sum of uniforms), clamped to [min, max]. */
  normal(mean: number, sd: number, min?: number, max?: number): number;
  uuid(): string;
}

/** sfc32 seeded from the hash of `seed`. */
export function createRng(seed: string | number): Rng {
  let [a, b, c, d] = hash128(String(seed));
  const next = (): number => {
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
  // Warm up: the first outputs of sfc32 still echo the seed.
  for (let i = 0; i < 12; i++) next();

  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(next() * items.length)] as T;
  };
  return {
    next,
    int,
    float(min, max, decimals = 2) {
      const f = 10 ** decimals;
      return Math.round((min + next() * (max - min)) * f) / f;
    },
    chance: (p) => next() < p,
    pick,
    weighted<T>(items: readonly T[], weights: readonly number[]): T {
      let total = 0;
      for (const w of weights) total += w;
      let r = next() * total;
      for (let i = 0; i < items.length; i++) {
        r -= weights[i] ?? 0;
        if (r < 0) return items[i] as T;
      }
      return pick(items);
    },
    sample<T>(items: readonly T[], count: number): T[] {
      const pool = [...items];
      const n = Math.min(count, pool.length);
      for (let i = 0; i < n; i++) {
        const j = i + Math.floor(next() * (pool.length - i));
        const tmp = pool[i] as T;
        pool[i] = pool[j] as T;
        pool[j] = tmp;
      }
      return pool.slice(0, n);
    },
    normal(mean, sd, min = Number.NEGATIVE_INFINITY, max = Number.POSITIVE_INFINITY) {
      const z = next() + next() + next() + next() + next() + next() - 3; // variance 0.5
      return Math.min(max, Math.max(min, mean + z * sd * Math.SQRT2));
    },
    uuid: () =>
      formatUuid(next() * 4294967296, next() * 4294967296, next() * 4294967296, next() * 4294967296),
  };
}

/**
 * Weighted sampling without replacement (Efraimidis–Spirakis): the `count` items with the largest
 * `u^(1/w)` keys, in descending key order.
 */
export function weightedSample<T>(
  rng: Rng,
  items: readonly T[],
  weight: (item: T) => number,
  count: number,
): T[] {
  const keyed: { item: T; key: number }[] = [];
  for (const item of items) {
    const w = weight(item);
    if (w > 0) keyed.push({ item, key: Math.log(rng.next() || Number.MIN_VALUE) / w });
  }
  keyed.sort((x, y) => y.key - x.key);
  return keyed.slice(0, count).map((k) => k.item);
}
