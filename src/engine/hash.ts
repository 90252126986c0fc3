/**
 * 64-bit FNV-1a over UTF-16 code units, computed in two 32-bit halves so it needs no BigInt and is
 * identical on every JS engine. Used for the event-log fingerprint, not for security.
 */
export class Fnv64 {
  private hi = 0xcbf29ce4;
  private lo = 0x84222325;

  update(text: string): this {
    let hi = this.hi;
    let lo = this.lo;
    for (let i = 0; i < text.length; i++) {
      lo = (lo ^ text.charCodeAt(i)) >>> 0;
      // Multiply (hi, lo) by the FNV prime 0x100000001b3 = 2^40 + 0x1b3, modulo 2^64.
      const loMul = lo * 0x1b3;
      const carry = Math.floor(loMul / 4294967296);
      const newLo = loMul >>> 0;
      hi = (Math.imul(hi, 0x1b3) + Math.imul(lo, 0x100) + carry) >>> 0;
      lo = newLo;
    }
    this.hi = hi;
    this.lo = lo;
    return this;
  }

  hex(): string {
    return this.hi.toString(16).padStart(8, '0') + this.lo.toString(16).padStart(8, '0');
  }
}

export function fnv64Hex(text: string): string {
  return new Fnv64().update(text).hex();
}
