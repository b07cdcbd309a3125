/**
 * Requests counted per key (a client address, a registration source) in fixed windows, for the
 * per-address budgets: the token checks of /mcp, the relayed /token and /revoke calls, client
 * metadata fetches, registrations. At most `max` keys are kept, the least recently counted
 * dropped first, and a key whose window has passed counts as new.
 *
 * A Map, not lru-cache: lru-cache reserves room for all of `max` when it is built (about 1.5 MiB
 * and 20 ms for 100,000 keys), and a server has five of these, each holding a handful of keys in
 * normal use. Here memory follows the keys actually counted.
 */
export interface Window {
  /** When the window began (ms). */
  start: number;
  /** Requests counted in it, this one included. */
  count: number;
}

export class FixedWindows {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly spanMs: number,
    private readonly max = 100_000,
  ) {}

  /** Counts one request of `key` at `t` (ms) and returns its window. */
  hit(key: string, t: number): Window {
    let w = this.windows.get(key);
    if (!w || t - w.start >= this.spanMs) w = { start: t, count: 0 };
    w.count += 1;
    // the Map keeps insertion order: re-inserting puts the key last, so the first keys are the
    // least recently counted; drop those past their window, and any over the bound
    this.windows.delete(key);
    this.windows.set(key, w);
    for (const [k, old] of this.windows) {
      if (this.windows.size <= this.max && t - old.start < this.spanMs) break;
      this.windows.delete(k);
    }
    return w;
  }

  /** Keys held (tests). */
  get size(): number {
    return this.windows.size;
  }
}
