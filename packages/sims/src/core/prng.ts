/** A small seeded PRNG (mulberry32): faults and ids must be reproducible run to run. */
export class Prng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }
}

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** Generates provider-style ids (`agent_01H…`) from a seeded stream, so a seeded run is replayable. */
export class IdGenerator {
  constructor(private readonly prng: Prng) {}
  next(prefix: string, length = 24): string {
    let out = "";
    for (let i = 0; i < length; i++) out += ALPHABET[this.prng.int(ALPHABET.length)];
    return prefix + out;
  }
  uuid(): string {
    const hex = () => this.prng.int(16).toString(16);
    const part = (n: number) => Array.from({ length: n }, hex).join("");
    return `${part(8)}-${part(4)}-4${part(3)}-${(8 + this.prng.int(4)).toString(16)}${part(3)}-${part(12)}`;
  }
}
