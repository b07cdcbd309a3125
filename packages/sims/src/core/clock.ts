/**
 * The simulated clock. Every expiry a simulator enforces (codes, tokens, scans) reads this clock,
 * so a test can move time forward through `/_sim/clock` instead of sleeping.
 */
export class SimClock {
  private offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
  nowSeconds(): number {
    return Math.floor(this.now() / 1000);
  }
  iso(): string {
    return new Date(this.now()).toISOString();
  }
  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError("clock can only move forward");
    this.offsetMs += ms;
    return this.now();
  }
  reset(): void {
    this.offsetMs = 0;
  }
}
