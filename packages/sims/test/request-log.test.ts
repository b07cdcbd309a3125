import { describe, expect, it } from "vitest";
import { RequestLog } from "../src/core/request-log.js";

const entry = (n: number) => ({
  atMs: Date.UTC(2026, 0, 1) + n * 1000,
  method: "GET",
  path: `/things/${n}`,
  status: 200,
  durationMs: 1,
  headers: { authorization: "Bearer secret", "x-n": String(n), accept: ["a", "b"] },
});

describe("RequestLog", () => {
  it("keeps exactly the newest `capacity` entries, however many were added", () => {
    const log = new RequestLog(10);
    for (let n = 1; n <= 35; n++) {
      log.add(entry(n));
      const seqs = log.since().map((e) => e.seq);
      const first = Math.max(1, n - 9);
      expect(seqs).toEqual(Array.from({ length: n - first + 1 }, (_, i) => first + i));
    }
    expect(log.since(30).map((e) => e.path)).toEqual([
      "/things/31",
      "/things/32",
      "/things/33",
      "/things/34",
      "/things/35",
    ]);
  });

  it("renders the time as ISO 8601 and redacts credentials when read", () => {
    const log = new RequestLog();
    log.add({ ...entry(1), fault: "random 503" });
    expect(log.since()).toEqual([
      {
        seq: 1,
        at: "2026-01-01T00:00:01.000Z",
        method: "GET",
        path: "/things/1",
        status: 200,
        durationMs: 1,
        headers: { authorization: "[redacted]", "x-n": "1", accept: "a, b" },
        fault: "random 503",
      },
    ]);
  });

  it("numbers on after a clear, so a reader's cursor stays valid", () => {
    const log = new RequestLog(5);
    log.add(entry(1));
    log.add(entry(2));
    log.clear();
    expect(log.since()).toEqual([]);
    log.add(entry(3));
    expect(log.since(2).map((e) => e.seq)).toEqual([3]);
  });
});
