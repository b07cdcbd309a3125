import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type RunningSim, type SimName, startSims } from "@agents/sims";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ALL_ADAPTERS } from "../../src/providers/catalog.js";
import {
  createHttpClient,
  createHttpClientFactory,
  DEFAULT_RETRY_POLICY,
  type HttpStats,
  newHttpStats,
  ProviderHttpError,
  type RetryNotice,
  retryAfterMs,
} from "../../src/providers/http.js";
import type { PacerClock } from "../../src/providers/pacing.js";

type Route = (req: IncomingMessage, res: ServerResponse, hit: number) => void;
let server: Server;
let baseUrl: string;
let route: Route;
let hits: number;
let seenHeaders: IncomingMessage["headers"][];

let sockets = 0;
let seenBodies: Buffer[];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    seenHeaders.push(req.headers);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      seenBodies.push(Buffer.concat(chunks));
      route(req, res, hits);
    });
  });
  server.on("connection", () => sockets++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  hits = 0;
  seenHeaders = [];
  seenBodies = [];
});

const sleeps: number[] = [];
const notices: RetryNotice[] = [];
// The lanes' waits run on a virtual clock: a wait is recorded in `sleeps` and is over as soon as
// `waitsEndWhen` holds (a test that needs answers to arrive during a wait says which).
let virtualNow = 1_700_000_000_000;
let waitsEndWhen = () => true;
const virtualClock: PacerClock = {
  now: () => virtualNow,
  schedule(fn, ms) {
    sleeps.push(ms);
    const due = virtualNow + ms;
    let timer: NodeJS.Timeout;
    const check = () => {
      if (!waitsEndWhen()) {
        timer = setTimeout(check, 2);
        return;
      }
      virtualNow = Math.max(virtualNow, due);
      fn();
    };
    timer = setTimeout(check, 0);
    return () => clearTimeout(timer);
  },
};
function client(stats: HttpStats = newHttpStats(), timeoutMs = 2_000) {
  waitsEndWhen = () => true;
  sleeps.length = 0;
  notices.length = 0;
  return createHttpClient(
    {
      provider: "provider_x",
      baseUrl,
      headers: { authorization: "Bearer sk-very-secret-key" },
      secrets: ["hunter2-secret"],
      parseError: (_status, body) => {
        const error = (body as { error?: { code?: string; message?: string } })?.error;
        return { code: error?.code, message: error?.message, conflict: error?.code === "ResourceConflict" };
      },
    },
    {
      stats,
      policy: { maxRetries: 3, timeoutMs },
      random: () => 0.5,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      pacing: { clock: virtualClock },
      onRetry: (notice) => notices.push(notice),
    },
  );
}
const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

describe("http client", () => {
  it("honours Retry-After in seconds on 429, then succeeds", async () => {
    route = (_req, res, hit) =>
      hit === 1
        ? json(res, 429, { error: { code: "rate" } }, { "retry-after": "2" })
        : json(res, 200, { ok: true });
    const stats = newHttpStats();
    const response = await client(stats).request<{ ok: boolean }>({ method: "GET", path: "/agents" });
    expect(response.body.ok).toBe(true);
    expect(sleeps).toEqual([2000]);
    expect(stats.calls).toBe(2);
    expect(stats.retries).toBe(1);
  });

  // A refusal means the provider did not act: any method is sent again after the wait, and the
  // wait is said once. One row per refusal the client honours, and the one it must not.
  it.each<{
    status: number;
    headers: Record<string, string>;
    retried: boolean;
    cause?: string;
    waitMs?: number;
  }>([
    { status: 429, headers: { "retry-after": "2" }, retried: true, cause: "rate limited", waitMs: 2000 },
    { status: 429, headers: {}, retried: true, cause: "rate limited", waitMs: 250 },
    { status: 529, headers: { "retry-after": "3" }, retried: true, cause: "529 (overloaded)", waitMs: 3000 },
    { status: 503, headers: { "retry-after": "1" }, retried: true, cause: "503 (overloaded)", waitMs: 1000 },
    { status: 503, headers: {}, retried: false, cause: undefined, waitMs: undefined },
  ])(
    "a create answered $status $headers is sent again: $retried",
    async ({ status, headers, retried, cause, waitMs }) => {
      route = (_req, res, hit) =>
        hit === 1
          ? json(res, status, { error: { code: "busy" } }, headers)
          : json(res, 201, { id: "agent_1" });
      const stats = newHttpStats();
      const outcome = await client(stats)
        .request<{ id: string }>({ method: "POST", path: "/agents", json: { name: "a" } })
        .catch((e: unknown) => e);
      if (!retried) {
        expect((outcome as ProviderHttpError).status).toBe(status);
        expect(hits).toBe(1);
        expect(notices).toEqual([]);
        return;
      }
      expect((outcome as { body: { id: string } }).body.id).toBe("agent_1");
      expect(hits).toBe(2);
      expect(stats.rateLimited).toBe(status === 429 ? 1 : 0);
      expect(notices).toEqual([
        expect.objectContaining({ provider: "provider_x", pause: true, cause, waitMs }),
      ]);
      expect(sleeps).toEqual([waitMs]);
    },
  );

  it("opens an event stream again after a 429, once the lane's pause is over", async () => {
    route = (_req, res, hit) => {
      if (hit === 1) return json(res, 429, { error: { code: "rate" } }, { "retry-after": "2" });
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end('data: {"n":1}\n\n');
    };
    const stats = newHttpStats();
    const stream = await client(stats).stream!({ path: "/sessions/s1/events/stream" });
    let text = "";
    for await (const chunk of stream.chunks) text += chunk;
    stream.close();
    expect(stream.status).toBe(200);
    expect(text).toContain('"n":1');
    expect(hits).toBe(2);
    expect(stats).toMatchObject({ calls: 2, rateLimited: 1, retries: 1 });
    expect(sleeps).toEqual([2000]);
  });

  it("pauses every request of the key behind one refusal, and says so once", async () => {
    // Three requests in flight are all refused; each is sent again after the one pause.
    let refused = 0;
    route = (_req, res) =>
      refused++ < 3 ? json(res, 429, {}, { "retry-after": "5" }) : json(res, 200, { ok: true });
    const stats = newHttpStats();
    const http = client(stats);
    // The pause lasts until all three refusals are in (on a busy machine they may be far apart).
    waitsEndWhen = () => stats.rateLimited === 3;
    const results = await Promise.all(
      ["/a", "/b", "/c"].map((path) => http.request({ method: "POST", path, json: {} })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(hits).toBe(6);
    expect(notices.filter((n) => n.pause)).toHaveLength(1);
    expect(notices[0]!.waitMs).toBe(5000);
  });

  it("gives a create up after maxRefusals refusals in a row, saying what to do", async () => {
    route = (_req, res) => json(res, 429, { error: { code: "rate" } }, { "retry-after": "1" });
    const error = (await client()
      .request({ method: "POST", path: "/agents", json: {} })
      .catch((e: unknown) => e)) as ProviderHttpError;
    expect(error.status).toBe(429);
    expect(error.refused).toBe(true);
    expect(error.message).toBe(
      "provider_x POST /agents: 429 rate: Too Many Requests; provider_x kept refusing this API key over its request limit (11 attempts): wait a minute and run the command again, or ask provider_x for a higher limit",
    );
    expect(hits).toBe(DEFAULT_RETRY_POLICY.maxRefusals + 1);
  });

  it("retries 503 with backoff then returns the 200", async () => {
    route = (_req, res, hit) => (hit < 3 ? json(res, 503, {}) : json(res, 200, { n: hit }));
    const response = await client().request<{ n: number }>({ method: "DELETE", path: "/agents/a" });
    expect(response.body.n).toBe(3);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[1]!).toBeGreaterThan(sleeps[0]!);
  });

  it("retries a reset connection on a GET", async () => {
    route = (req, res, hit) => (hit === 1 ? req.socket.destroy() : json(res, 200, { ok: 1 }));
    const response = await client().request({ method: "GET", path: "/x" });
    expect(response.status).toBe(200);
    expect(hits).toBe(2);
  });

  it("times out a hanging request and reports the timeout after the retries", async () => {
    route = () => {
      /* never answers */
    };
    const error = await client(newHttpStats(), 25)
      .request({ method: "GET", path: "/slow" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderHttpError);
    expect((error as ProviderHttpError).code).toBe("timeout");
    expect((error as Error).message).toMatch(
      /^provider_x GET \/slow: timed out .* reaching http:\/\/127\.0\.0\.1:\d+ \(after 4 attempts\)$/,
    );
    expect(hits).toBe(4);
  });

  it("never retries a POST unless marked idempotent", async () => {
    route = (_req, res) => json(res, 503, { error: { code: "unavailable", message: "down" } });
    const error = (await client()
      .request({ method: "POST", path: "/agents", json: { a: 1 } })
      .catch((e: unknown) => e)) as ProviderHttpError;
    expect(hits).toBe(1);
    expect(error.status).toBe(503);
    expect(error.message).toContain("unavailable");

    hits = 0;
    route = (_req, res, hit) => (hit === 1 ? json(res, 503, {}) : json(res, 200, { id: "a" }));
    const ok = await client().request({ method: "POST", path: "/agents/a/archive", idempotent: true });
    expect(ok.status).toBe(200);
    expect(hits).toBe(2);
  });

  it("names the provider code and message but never a secret or the request body", async () => {
    route = (_req, res) =>
      json(res, 400, {
        error: { code: "InvalidParameter", message: "bad token hunter2-secret and sk-very-secret-key" },
      });
    const error = (await client()
      .request({ method: "POST", path: "/vaults", json: { token: "hunter2-secret", other: "body-only" } })
      .catch((e: unknown) => e)) as ProviderHttpError;
    expect(error.message).toBe(
      "provider_x POST /vaults: 400 InvalidParameter: bad token [redacted] and [redacted]",
    );
    expect(error.message).not.toContain("body-only");
  });

  it("flags conflicts from the parsed error and from 409", async () => {
    route = (_req, res) => json(res, 400, { error: { code: "ResourceConflict", message: "exists" } });
    const error = (await client()
      .request({ method: "POST", path: "/environments" })
      .catch((e: unknown) => e)) as ProviderHttpError;
    expect(error.conflict).toBe(true);
  });

  it("returns allowed statuses instead of throwing and sends auth headers", async () => {
    route = (_req, res) => json(res, 404, { error: { code: "not_found" } });
    const response = await client().request({ method: "GET", path: "/agents/x", allowStatus: [404] });
    expect(response.status).toBe(404);
    expect(seenHeaders[0]?.authorization).toBe("Bearer sk-very-secret-key");
  });
});

describe("http client transport", () => {
  it("keeps connections alive: sequential calls share one socket", async () => {
    route = (_req, res) => json(res, 200, { ok: true });
    const http = client();
    await http.request({ method: "GET", path: "/warm" });
    const before = sockets;
    for (let i = 0; i < 20; i++) await http.request({ method: "GET", path: `/agents/${i}` });
    expect(sockets - before).toBe(0);
  });

  it("sends JSON with its length, and a multipart form encoded with its boundary", async () => {
    route = (_req, res) => json(res, 200, { ok: true });
    await client().request({ method: "POST", path: "/vaults", json: { name: "é" } });
    expect(seenHeaders[0]?.["content-type"]).toBe("application/json");
    expect(seenHeaders[0]?.["content-length"]).toBe(String(Buffer.byteLength('{"name":"é"}')));
    expect(seenBodies[0]?.toString("utf8")).toBe('{"name":"é"}');

    const form = new FormData();
    form.append("file", new Blob([new Uint8Array([1, 2, 3])], { type: "application/zip" }), "skill.zip");
    await client().request({ method: "POST", path: "/files", body: form });
    const type = seenHeaders[1]?.["content-type"] ?? "";
    expect(type).toMatch(/^multipart\/form-data; boundary=/);
    const parsed = await new Response(seenBodies[1], { headers: { "content-type": type } }).formData();
    const file = parsed.get("file") as File;
    expect(file.name).toBe("skill.zip");
    expect([...new Uint8Array(await file.arrayBuffer())]).toEqual([1, 2, 3]);
  });

  it("does not follow a redirect: the API key never travels to another host", async () => {
    route = (_req, res) => {
      res.writeHead(302, { location: "http://127.0.0.2:9/steal" });
      res.end();
    };
    const error = (await client()
      .request({ method: "GET", path: "/agents" })
      .catch((e: unknown) => e)) as ProviderHttpError;
    expect(error).toBeInstanceOf(ProviderHttpError);
    expect(error.status).toBe(302);
    expect(hits).toBe(1);
  });

  it("times out an answer that trickles in: the timeout covers the whole exchange", async () => {
    route = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const timer = setInterval(() => res.write(" "), 10);
      res.on("close", () => clearInterval(timer));
    };
    const error = (await client(newHttpStats(), 60)
      .request({ method: "POST", path: "/agents" })
      .catch((e: unknown) => e)) as ProviderHttpError;
    expect(error.code).toBe("timeout");
  });

  it("stops at once when the caller aborts, without retrying", async () => {
    // Never answers; the abort comes once the request has arrived (a fixed delay raced the request
    // itself on a loaded machine: aborted before it left, no hit to count).
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    route = () => arrived();
    const controller = new AbortController();
    const pending = client().request({ method: "GET", path: "/slow", signal: controller.signal });
    await arrival;
    controller.abort();
    const error = (await pending.catch((e: unknown) => e)) as ProviderHttpError;
    expect(error.code).toBe("aborted");
    expect(hits).toBe(1);
  });

  it("shares one abort listener among the requests of a signal (no listener-leak warning)", async () => {
    route = (_req, res) => setTimeout(() => json(res, 200, { ok: true }), 20);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    try {
      const signal = new AbortController().signal;
      const http = client();
      await Promise.all(
        Array.from({ length: 25 }, (_, i) => http.request({ method: "GET", path: `/agents/${i}`, signal })),
      );
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it("names a refused connection by its code and the host it tried (never the user info)", async () => {
    const closed = createHttpClient(
      { provider: "provider_x", baseUrl: "http://user:pw-secret@127.0.0.1:9/v1" },
      { policy: { maxRetries: 0 } },
    );
    const error = (await closed.request({ method: "GET", path: "/x" }).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe("provider_x GET /x: network error ECONNREFUSED reaching http://127.0.0.1:9");
  });
});

describe("Retry-After parsing", () => {
  const policy = { ...DEFAULT_RETRY_POLICY, maxRetryAfterMs: 10_000 };
  it.each([
    ["3", 3000],
    ["0", 0],
    ["3600", 10_000],
    ["Sun, 22 Nov 2026 00:00:05 GMT", 5000],
    ["garbage", undefined],
  ])("Retry-After %s → %s ms", (value, expected) => {
    const now = Date.parse("Sun, 22 Nov 2026 00:00:00 GMT");
    expect(retryAfterMs(new Headers({ "retry-after": value }), policy, now)).toBe(expected);
  });
});

// Opening a session's event stream through each provider's adapter client, against its simulator
// (fault rules on the stream route): a refusal (429, or 503/529 naming a Retry-After) pauses the
// lane, is said once and the open is sent again, as for any call; a refusal that outlasts the
// request's refusals ends in one error that names the provider and what to do. One row per
// status the provider sends (provider_c says 529 where the others say 503).
describe("opening an event stream, on each provider's simulator", () => {
  const NAMES: SimName[] = ["provider_a", "provider_b", "provider_c", "provider_d"];
  const BLOCKS: Record<string, Record<string, unknown>> = {
    provider_a: { api_key: "sim-provider-a-key", workspace_id: "llm-test" },
    provider_b: { api_key: "sim-provider-b-key" },
    provider_c: { api_key: "sim-provider-c-key" },
    provider_d: { api_key: "sim-provider-d-key" },
  };
  const SESSION = "sesn_open1";
  const PATH = `/sessions/${SESSION}/events/stream`;
  const sims = new Map<string, RunningSim>();
  beforeAll(async () => {
    for (const sim of await startSims(NAMES, { quiet: true })) sims.set(sim.name, sim);
    // A session as each simulator stores it: enough for its stream route to open.
    await Promise.all(
      [...sims.values()].map((sim) =>
        fetch(`${sim.origin}/_sim/seed`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ sessions: [{ id: SESSION }] }),
        }),
      ),
    );
  });
  afterAll(() => Promise.all([...sims.values()].map((sim) => sim.close())));

  /** The provider's own client (its auth headers and error parser), on the virtual clock. */
  function streamer(provider: string, status: number, retryAfter: string | undefined, repeat: boolean) {
    const sim = sims.get(provider)!;
    const headers: Record<string, string> = retryAfter === undefined ? {} : { "retry-after": retryAfter };
    const action = { type: "status" as const, status, headers };
    sim.faults.set({ rules: [{ method: "GET", path: "/events/stream$", nth: 1, repeat, action }] });
    sleeps.length = 0;
    notices.length = 0;
    const factory = createHttpClientFactory({
      policy: { maxRefusals: 2 },
      pacing: { clock: virtualClock },
      onRetry: (notice) => notices.push(notice),
    });
    const adapter = ALL_ADAPTERS.find((a) => a.name === provider)!;
    return { http: adapter.connect(BLOCKS[provider]!, factory, sim.url).http, stats: factory.stats };
  }

  const OVERLOADED = "was overloaded and refused all 3 attempts: try again in a few minutes";
  const OVER_LIMIT =
    "kept refusing this API key over its request limit (3 attempts): wait a minute and run the command again, or ask provider_c for a higher limit";

  // provider, status, Retry-After (s), the notice's cause, its wait (a longer one is cut to the
  // 30 s cap, maxRetryAfterMs, as for every call), the provider's error code once refusals are spent
  const ROWS = [
    ["provider_a", 503, "2", "503 (overloaded)", 2000, "service_unavailable", OVERLOADED],
    ["provider_b", 503, "1", "503 (overloaded)", 1000, "SERVICE_UNAVAILABLE", OVERLOADED],
    ["provider_c", 529, "120", "529 (overloaded)", 30_000, "overloaded_error", OVERLOADED],
    ["provider_c", 429, "2", "rate limited", 2000, "rate_limit_error", OVER_LIMIT],
    ["provider_d", 503, "1", "503 (overloaded)", 1000, "ServiceUnavailable", OVERLOADED],
  ] as const;

  it.each(ROWS)(
    "%s: a %i with Retry-After %s pauses the lane, says so once, and the stream opens after the wait",
    async (provider, status, retryAfter, cause, waitMs) => {
      const { http, stats } = streamer(provider, status, retryAfter, false);
      const stream = await http.stream!({ path: PATH });
      stream.close();
      expect(stream.status).toBe(200);
      expect(stats.calls).toBe(2);
      expect(notices).toEqual([
        { provider, method: "GET", path: PATH, cause, waitMs, attempt: 2, maxAttempts: 3, pause: true },
      ]);
      expect(sleeps).toEqual([waitMs]);
    },
  );

  it.each(ROWS)(
    "%s: a %i with Retry-After %s that outlasts the refusals ends in one error naming the provider and what to do",
    async (provider, status, retryAfter, _cause, _waitMs, code, advice) => {
      const { http, stats } = streamer(provider, status, retryAfter, true);
      const error = (await http.stream!({ path: PATH }).catch((e: unknown) => e)) as ProviderHttpError;
      expect(error).toBeInstanceOf(ProviderHttpError);
      expect(error).toMatchObject({ provider, status, refused: true });
      expect(error.message).toMatch(new RegExp(`^${provider} GET ${PATH}: ${status} ${code}: `));
      expect(error.message.endsWith(`; ${provider} ${advice}`)).toBe(true);
      expect(error.message).not.toMatch(/sim-provider-\w-key/);
      expect(stats.calls).toBe(3);
      // Each refusal came after the last pause was over: each started a pause of its own.
      expect(notices.map((n) => n.attempt)).toEqual([2, 3, 4]);
    },
  );

  it("provider_c: a 529 naming no wait is a failure, not a refusal: not sent again here (the follower resumes)", async () => {
    const { http, stats } = streamer("provider_c", 529, undefined, false);
    const error = (await http.stream!({ path: PATH }).catch((e: unknown) => e)) as ProviderHttpError;
    expect(error).toMatchObject({ status: 529, code: "overloaded_error", refused: false });
    expect(stats.calls).toBe(1);
    expect(notices).toEqual([]);
  });
});
