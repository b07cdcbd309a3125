import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Pacer, type PacerClock, readLimitHeaders } from "../../src/providers/pacing.js";

// A lane driven against a model of a provider's limit on a virtual clock: a token bucket per key
// (as the simulators keep it), a fixed network latency, and `parallelism` workers sending `total`
// requests, each sent again after a 429 as the HTTP client does. No real time passes.

interface World {
  /** Requests per second the provider allows, and the bucket's size. */
  rate: number;
  burst: number;
  latencyMs: number;
  parallelism: number;
  total: number;
  /** Whether answers carry provider_c's limit headers (otherwise only Retry-After on a 429). */
  headers: boolean;
}

interface Outcome {
  served: number;
  refused: number;
  elapsedMs: number;
  pauses: number;
  maxInFlight: number;
}

function headersOf(map: Record<string, string>) {
  return { get: (name: string) => map[name.toLowerCase()] ?? null };
}

async function run(world: World): Promise<Outcome> {
  let now = 0;
  let seq = 0;
  const events: { at: number; seq: number; fn: () => void }[] = [];
  const at = (ms: number, fn: () => void) => {
    const event = { at: now + ms, seq: seq++, fn };
    events.push(event);
    return () => {
      const i = events.indexOf(event);
      if (i >= 0) events.splice(i, 1);
    };
  };
  const clock: PacerClock = { now: () => now, schedule: (fn, ms) => at(ms, fn) };
  const pacer = new Pacer({ clock });

  // The provider's bucket.
  let tokens = world.burst;
  let tokensAt = 0;
  const serve = () => {
    tokens = Math.min(world.burst, tokens + ((now - tokensAt) * world.rate) / 1000);
    tokensAt = now;
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    const h: Record<string, string> = {};
    if (world.headers) {
      // Requests per minute, as provider_c advertises its limit (the simulator does the same).
      h["anthropic-ratelimit-requests-limit"] = String(world.rate * 60);
      h["anthropic-ratelimit-requests-remaining"] = String(Math.floor(tokens));
      h["anthropic-ratelimit-requests-reset"] = new Date(
        now + Math.ceil(((world.burst - tokens) * 1000) / world.rate),
      ).toISOString();
    }
    const retryAfterMs = allowed ? undefined : Math.max(1, Math.ceil((1 - tokens) / world.rate)) * 1000;
    return { status: allowed ? 200 : 429, headers: headersOf(h), retryAfterMs };
  };

  const outcome: Outcome = { served: 0, refused: 0, elapsedMs: 0, pauses: 0, maxInFlight: 0 };
  let inFlight = 0;
  let next = 0;
  const worker = async () => {
    while (next < world.total) {
      next++;
      for (;;) {
        const sentAtMs = await pacer.acquire();
        inFlight++;
        outcome.maxInFlight = Math.max(outcome.maxInFlight, inFlight);
        const answer = await new Promise<ReturnType<typeof serve>>((resolve) => {
          at(world.latencyMs / 2, () => {
            const a = serve();
            at(world.latencyMs / 2, () => resolve(a));
          });
        });
        inFlight--;
        if (pacer.settle({ ...answer, sentAtMs }) !== undefined) outcome.pauses++;
        if (answer.status === 200) {
          outcome.served++;
          break;
        }
        outcome.refused++;
      }
    }
  };
  const done = Promise.all(Array.from({ length: world.parallelism }, worker));
  let finished = false;
  void done.then(() => {
    finished = true;
  });
  const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
  await flush();
  while (!finished) {
    events.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const event = events.shift();
    if (!event) throw new Error("stalled: requests wait and nothing is scheduled");
    now = Math.max(now, event.at);
    event.fn();
    await flush();
  }
  outcome.elapsedMs = now;
  return outcome;
}

describe("a lane against a provider's limit (virtual clock)", () => {
  it("with limit headers: paces to the limit, with few refusals and near the bound", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          rate: fc.integer({ min: 5, max: 100 }),
          burstShare: fc.double({ min: 0.1, max: 1, noNaN: true }),
          latencyMs: fc.integer({ min: 2, max: 100 }),
          parallelism: fc.integer({ min: 1, max: 16 }),
        }),
        async ({ rate, burstShare, latencyMs, parallelism }) => {
          // Real buckets hold a minute's worth; here at least a tenth of a second's (and 2).
          const burst = Math.max(2, Math.round(rate * burstShare));
          const total = rate * 20;
          const o = await run({ rate, burst, latencyMs, parallelism, total, headers: true });
          expect(o.served).toBe(total);
          // Before the first answer the lane knows nothing: what it sent blind may be refused
          // once. After that, fewer than 2 %.
          expect(o.refused).toBeLessThanOrEqual(parallelism + 0.02 * total);
          // What the limit allows: the bucket's contents at once, then `rate` per second; or what
          // `parallelism` requests in flight allow at this latency, whichever is slower.
          const limitBoundMs = ((total - burst) * 1000) / rate;
          const parallelBoundMs = (total * latencyMs) / parallelism;
          // Each pause costs at most one Retry-After (whole seconds) on top.
          const pausesMs = o.pauses * 1000;
          expect(o.elapsedMs).toBeLessThanOrEqual(
            1.1 * Math.max(limitBoundMs, parallelBoundMs) + 3 * latencyMs + pausesMs,
          );
        },
      ),
      { numRuns: 15, seed: 29 },
    );
  });

  it("without limit headers: learns the limit from 429s (AIMD) and finishes every request", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          rate: fc.integer({ min: 5, max: 100 }),
          latencyMs: fc.integer({ min: 2, max: 100 }),
          parallelism: fc.integer({ min: 2, max: 16 }),
        }),
        async ({ rate, latencyMs, parallelism }) => {
          const total = rate * 20;
          const o = await run({ rate, burst: rate, latencyMs, parallelism, total, headers: false });
          expect(o.served).toBe(total);
          // Without headers the lane probes upwards and is refused now and then.
          // The first contact may cost what is in flight; after that, at most 5 %.
          expect(o.refused).toBeLessThanOrEqual(parallelism + 0.05 * total);
        },
      ),
      { numRuns: 20, seed: 29 },
    );
  });

  it("pauses everyone for the Retry-After and says so once per pause", async () => {
    const o = await run({ rate: 10, burst: 10, latencyMs: 10, parallelism: 8, total: 30, headers: false });
    expect(o.served).toBe(30);
    expect(o.pauses).toBeGreaterThan(0);
    expect(o.pauses).toBeLessThanOrEqual(o.refused);
  });
});

describe("readLimitHeaders", () => {
  it.each<{ name: string; headers: Record<string, string>; expected: object }>([
    {
      name: "provider_c",
      headers: {
        "anthropic-ratelimit-requests-limit": "50",
        "anthropic-ratelimit-requests-remaining": "49",
        "anthropic-ratelimit-requests-reset": "2026-11-26T08:00:01.200Z",
      },
      expected: {
        limit: 50,
        remaining: 49,
        resetAtMs: Date.parse("2026-11-26T08:00:01.200Z"),
        perSecond: 50 / 60,
      },
    },
    {
      name: "IETF draft",
      headers: { "ratelimit-limit": "100", "ratelimit-remaining": "0", "ratelimit-reset": "6" },
      expected: { limit: 100, remaining: 0, resetAtMs: 1_000 + 6_000 },
    },
    { name: "none", headers: {}, expected: {} },
    {
      name: "garbage",
      headers: { "anthropic-ratelimit-requests-limit": "lots", "anthropic-ratelimit-requests-reset": "soon" },
      expected: {},
    },
  ])("$name", ({ headers, expected }) => {
    expect(readLimitHeaders(headersOf(headers), 1_000)).toEqual(expected);
  });
});
