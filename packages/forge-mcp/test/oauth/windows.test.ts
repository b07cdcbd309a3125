import { describe, expect, it } from "vitest";
import { FixedWindows } from "../../src/oauth/windows.js";

/**
 * The per-address budgets' counter (src/oauth/windows.ts): fixed windows per key, bounded in keys,
 * the least recently counted dropped first. One case per rule.
 */
describe("FixedWindows", () => {
  it("counts a key's requests within its window, from the first one's time", () => {
    const w = new FixedWindows(60_000);
    expect(w.hit("a", 1_000)).toEqual({ start: 1_000, count: 1 });
    expect(w.hit("a", 30_000)).toEqual({ start: 1_000, count: 2 });
    expect(w.hit("a", 60_999)).toEqual({ start: 1_000, count: 3 });
  });

  it("starts a new window once the span has passed", () => {
    const w = new FixedWindows(60_000);
    w.hit("a", 0);
    w.hit("a", 10);
    expect(w.hit("a", 60_000)).toEqual({ start: 60_000, count: 1 });
  });

  it("keeps keys apart", () => {
    const w = new FixedWindows(60_000);
    w.hit("a", 0);
    w.hit("a", 1);
    expect(w.hit("b", 2)).toEqual({ start: 2, count: 1 });
  });

  it("holds at most max keys, dropping the least recently counted", () => {
    const w = new FixedWindows(60_000, 2);
    w.hit("a", 0);
    w.hit("b", 1);
    w.hit("a", 2); // a is now the more recent
    w.hit("c", 3); // b goes
    expect(w.size).toBe(2);
    expect(w.hit("a", 4).count).toBe(3);
    expect(w.hit("b", 5).count).toBe(1);
  });

  it("drops keys whose window has passed as others are counted", () => {
    const w = new FixedWindows(60_000);
    for (let i = 0; i < 100; i++) w.hit(`k${i}`, i);
    expect(w.size).toBe(100);
    w.hit("late", 60_100);
    expect(w.size).toBe(1);
  });
});
