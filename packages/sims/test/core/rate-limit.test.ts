import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenBuckets } from "../../src/core/rate-limit.js";
import { type RunningSim, type SimName, startSim } from "../../src/index.js";

// One row per provider simulator: how it authenticates, a cheap read, and the headers its limit
// answers with (docs/sims.md "Request limits").
interface Row {
  sim: SimName;
  auth: (key: string) => Record<string, string>;
  key: string;
  path: string;
  /** provider_c sends its limit headers on every answer; the others only Retry-After on a 429. */
  limitHeaders: boolean;
  /** Where the provider's 429 body says what went wrong. */
  errorOf: (body: any) => unknown;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const ROWS: Row[] = [
  {
    sim: "provider_a",
    auth: bearer,
    key: "sim-provider-a-key",
    path: "/agents",
    limitHeaders: false,
    errorOf: (b) => b.error.code,
  },
  {
    sim: "provider_b",
    auth: bearer,
    key: "sim-provider-b-key",
    path: "/agents",
    limitHeaders: false,
    errorOf: (b) => b.error.type,
  },
  {
    sim: "provider_c",
    auth: (key) => ({
      "x-api-key": key,
      "anthropic-version": "2023-06-01",
      "anthropic-beta": "managed-agents-2026-04-01",
    }),
    key: "sim-provider-c-key",
    path: "/agents",
    limitHeaders: true,
    errorOf: (b) => b.error.type,
  },
  {
    sim: "provider_d",
    auth: bearer,
    key: "sim-provider-d-key",
    path: "/agents",
    limitHeaders: false,
    errorOf: (b) => b.error.code,
  },
];
const RATE_ERROR: Record<string, string> = {
  provider_a: "rate_limit_error",
  provider_b: "rate_limit_error",
  provider_c: "rate_limit_error",
  provider_d: "RateLimitExceeded",
};

describe.each(ROWS)("$sim: a token bucket per API key", (row) => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim(row.sim, { quiet: true, faults: { rateLimit: { limit: 3, periodSeconds: 60 } } });
  });
  afterAll(async () => {
    await sim.close();
  });
  const call = (key = row.key) => fetch(`${sim.url}${row.path}`, { headers: row.auth(key) });

  it("serves `limit` calls, refuses the next with 429 in the provider's shape, and refills with time", async () => {
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call();
      expect(res.status).toBe(200);
      remaining.push(res.headers.get("anthropic-ratelimit-requests-remaining"));
      await res.arrayBuffer();
    }
    if (row.limitHeaders) expect(remaining).toEqual(["2", "1", "0"]);
    else expect(remaining).toEqual([null, null, null]);

    const refused = await call();
    expect(refused.status).toBe(429);
    // 60 s per 3 requests: one token is back in 20 s.
    expect(refused.headers.get("retry-after")).toBe("20");
    expect(row.errorOf(await refused.json())).toBe(RATE_ERROR[row.sim]);
    if (row.limitHeaders) {
      expect(refused.headers.get("anthropic-ratelimit-requests-limit")).toBe("3");
      expect(refused.headers.get("anthropic-ratelimit-requests-remaining")).toBe("0");
      const reset = Date.parse(refused.headers.get("anthropic-ratelimit-requests-reset") ?? "");
      // Full again in 60 s (three tokens at one per 20 s), within the few ms the calls took.
      expect(reset - Date.now()).toBeGreaterThan(58_000);
      expect(reset - Date.now()).toBeLessThanOrEqual(60_000);
    }

    // Another key has a bucket of its own (it is not a known key, so it is refused by auth instead).
    expect((await call("another-key")).status).toBe(401);

    // A refused call takes no token: 20 s later exactly one call goes through again.
    await fetch(`${sim.origin}/_sim/clock`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ advance_seconds: 20 }),
    });
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(429);

    const log = (await (await fetch(`${sim.origin}/_sim/log`)).json()) as {
      entries: { status: number; fault?: string }[];
    };
    expect(log.entries.filter((e) => e.status === 429).every((e) => e.fault === "rate limit")).toBe(true);
  });

  it("takes its limit from PUT /_sim/faults and drops it with null", async () => {
    const put = (body: unknown) =>
      fetch(`${sim.origin}/_sim/faults`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await put({ rateLimit: { limit: 0 } })).status).toBe(400);
    expect((await put({ rateLimit: { limit: 1, periodSeconds: 3600 } })).status).toBe(200);
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(429);
    expect((await put({ rateLimit: null })).status).toBe(200);
    expect((await call()).status).toBe(200);
  });
});

describe("TokenBuckets", () => {
  it("never serves more than burst + limit × elapsed ÷ period in any window", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 10 }),
        fc.array(fc.integer({ min: 0, max: 500 }), { minLength: 1, maxLength: 200 }),
        (limit, periodSeconds, gaps) => {
          const buckets = new TokenBuckets({ limit, periodSeconds });
          let now = 0;
          const served: number[] = [];
          for (const gap of gaps) {
            now += gap;
            if (buckets.take("k", now).allowed) served.push(now);
          }
          for (let i = 0; i < served.length; i++) {
            for (let j = i; j < served.length; j++) {
              const allowed = limit + (limit * (served[j]! - served[i]!)) / (periodSeconds * 1000);
              if (j - i + 1 > allowed + 1e-9) return false;
            }
          }
          return true;
        },
      ),
    );
  });

  it("answers every call of a steady caller at exactly the limit", () => {
    const buckets = new TokenBuckets({ limit: 20, periodSeconds: 1, burst: 1 });
    for (let t = 0; t < 5_000; t += 50) expect(buckets.take("k", t).allowed).toBe(true);
    expect(buckets.take("k", 4_990).allowed).toBe(false);
  });
});
