// The concurrency helpers the plan and the apply share.
import { describe, expect, it } from "vitest";
import { breather, limiter, mapBounded } from "../../src/plan/bounded.js";

describe("limiter", () => {
  it("runs at most `limit` at once, in the order asked, and `first` jumps the queue", async () => {
    const slot = limiter(2);
    const started: string[] = [];
    let active = 0;
    let most = 0;
    const job = (name: string) => async () => {
      started.push(name);
      active += 1;
      most = Math.max(most, active);
      await new Promise((resolve) => setTimeout(resolve, 5));
      active -= 1;
      return name;
    };
    const runs = [
      slot(job("a")),
      slot(job("b")),
      slot(job("c")),
      slot(job("d")),
      slot(job("next page"), { first: true }),
    ];
    expect(await Promise.all(runs)).toEqual(["a", "b", "c", "d", "next page"]);
    expect(most).toBe(2);
    expect(started.slice(0, 3)).toEqual(["a", "b", "next page"]);
  });

  it("mapBounded keeps the input order of the results", async () => {
    const out = await mapBounded([30, 10, 20], 2, async (ms) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return ms;
    });
    expect(out).toEqual([30, 10, 20]);
  });
});

describe("breather", () => {
  it("lets the event loop turn every `every` calls, so I/O callbacks run between slices of work", async () => {
    const breathe = breather(3);
    const order: string[] = [];
    setImmediate(() => order.push("io"));
    for (let i = 1; i <= 6; i++) {
      const pause = breathe();
      expect(pause === undefined).toBe(i % 3 !== 0);
      await pause;
      order.push(`item ${i}`);
    }
    // Without the pause at item 3, the loop would not have turned before item 6.
    expect(order.indexOf("io")).toBeLessThan(order.indexOf("item 3"));
  });
});
