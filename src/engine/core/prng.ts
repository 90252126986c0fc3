/**
 * Seeded randomness. Every random choice in the engine goes through one of these generators so that
 * the same config and trace give the same event log, byte for byte, in Node, a Worker or a page.
 */

/** 32-bit FNV-1a of a string: turns textual seeds ("incident", "tenant:acme") into PRNG seeds. */
export function seedFromString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: small, fast, and good enough for workload generation (not for cryptography). */
export class Prng {
  private state: number;

  constructor(seed: number | string) {
    this.state = (typeof seed === 'string' ? seedFromString(seed) : seed) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error('Prng.pick on an empty list');
    return item;
  }

  /** A child generator whose stream does not depend on how many numbers the parent drew later. */
  fork(label: string): Prng {
    return new Prng((seedFromString(label) ^ Math.imul(this.state, 0x9e3779b1)) >>> 0);
  }
}
