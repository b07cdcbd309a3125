import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWith } from "../../../../scripts/test-services.js";
import { type Forge, forgeCallsSince, forgeLogSeq, oauthEnv, seedApp, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "../helpers.js";
import { forgeAuthorizeHop, newClient, pkce, redeem } from "../oauth-client.js";
import { startRedis, type TestRedis, tcpRelay } from "../redis.js";
import { connectV1, connectV2 } from "../sdk-clients.js";
import { proxyCodeVia, statelessEnv } from "../stateless-helpers.js";

/**
 * A Redis that dies or falls silent after start-up costs answers, never hangs: every store call is
 * bounded (REDIS_TIMEOUT_MS, short here), one-time use fails closed with 503
 * temporarily_unavailable, the registration limit fails open to a per-replica count, /ready says
 * 503 and /health reports the store, and all of it recovers by itself when Redis returns.
 */

const TIMEOUT_MS = 300;
/** What the issue asks of the default 2 s bound, with room for a loaded machine. */
const ANSWER_WITHIN_MS = 2500;
/** Above the registrations these tests make while Redis is up (each sign-in registers a client). */
const REGISTER_LIMIT = 8;
/**
 * Memory mode's bound. The outage spends this replica's own registration count (the fail-open), so
 * a Redis call that outlasts the bound after Redis is back is answered from that spent count: 429.
 * A dead Redis refuses at once, so the bound does not lengthen the outage's answers; it only keeps
 * a loaded machine's slow first calls after the restart from counting as an outage (seen once:
 * the official client's /register refused under a load average of 16 with 300 ms).
 */
const MEMORY_MODE_TIMEOUT_MS = 1500;

interface Answer {
  status: number;
  ms: number;
  text: string;
  json: any;
  headers: Headers;
}

/** One request with a hard client-side limit, so a hang fails the test instead of stalling it. */
async function timed(url: string, init: RequestInit = {}): Promise<Answer> {
  const t0 = performance.now();
  const res = await fetch(url, { redirect: "manual", ...init, signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  const ms = performance.now() - t0;
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, ms, text, json, headers: res.headers };
}

const form = (body: Record<string, string>): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(body).toString(),
});

/** Polls /ready until it gives `status` (bounded: the client reconnects with at most 2 s backoff). */
async function readyBecomes(base: string, status: number): Promise<Answer> {
  let last: Answer | undefined;
  for (let i = 0; i < 60; i++) {
    last = await timed(`${base}/ready`);
    if (last.status === status) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`/ready stayed ${last?.status}`);
}

/**
 * A forge, a redis-server of the test's own and forge-mcp on both (the environment `env` gives for
 * them, the server's callback registered with the forge), started before the block's tests and
 * stopped after them.
 */
function forgeRedisMcp(env: (forge: Forge, redis: TestRedis) => Record<string, string>) {
  const ctx = {} as { forge: Forge; redis: TestRedis; mcp: RunningForgeMcp };
  beforeAll(async () => {
    ctx.forge = await startForge();
    ctx.redis = await startRedis();
    ctx.mcp = await startForgeMcp(env(ctx.forge, ctx.redis));
    await seedApp(ctx.forge, [`${ctx.mcp.url}/callback`]);
  });
  afterAll(async () => {
    await ctx.mcp?.close();
    await ctx.redis?.stop();
    await ctx.forge?.close();
  });
  return ctx;
}

describeWith("redis-server")("stateless mode: Redis dies or falls silent after start-up", () => {
  const ctx = forgeRedisMcp((forge, redis) =>
    statelessEnv(forge.apiUrl, {
      REDIS_URL: redis.url,
      REDIS_TIMEOUT_MS: String(TIMEOUT_MS),
      OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: String(REGISTER_LIMIT),
    }),
  );

  /**
   * A sign-in halfway: the forge has sent the user back, /callback not yet taken. `cookie` is the
   * browser's callback binding, which a browser carries to /callback.
   */
  const pendingCallback = async () => {
    const clientId = await newClient(ctx.mcp.url);
    const p = pkce();
    const hop = await forgeAuthorizeHop(ctx.mcp.url, clientId, p.challenge, "st");
    const atForge = await timed(hop.location);
    return { clientId, p, callback: atForge.headers.get("location")!, cookie: hop.cookie };
  };

  it("with Redis up: a sign-in with the official client, /ready 200, /health reports the store", async () => {
    const { client } = await connectV2(ctx.mcp.url);
    const user = (await client.callTool({ name: "whoami", arguments: {} })) as {
      content: Array<{ text: string }>;
    };
    expect(JSON.parse(user.content[0]!.text).username).toBe("alice");
    await client.close();
    const ready = await timed(`${ctx.mcp.url}/ready`);
    expect([ready.status, ready.json]).toEqual([200, { ready: true, store: { kind: "redis", up: true } }]);
    const health = await timed(`${ctx.mcp.url}/health`);
    expect([health.status, health.json]).toEqual([200, { ok: true, store: { kind: "redis", up: true } }]);
  });

  it("Redis silent (SIGSTOP): a one-time claim gives up after REDIS_TIMEOUT_MS with 503, /ready 503; SIGCONT recovers", async () => {
    const { clientId, p, code } = await proxyCodeVia(ctx.mcp.url, ctx.mcp, ctx.mcp, ctx.mcp);
    ctx.redis.pause();
    try {
      const token = await timed(
        `${ctx.mcp.url}/token`,
        form({
          grant_type: "authorization_code",
          client_id: clientId,
          code,
          code_verifier: p.verifier,
          redirect_uri: "http://127.0.0.1:8765/callback",
        }),
      );
      expect([token.status, token.json?.error]).toEqual([503, "temporarily_unavailable"]);
      expect(token.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
      expect(token.ms).toBeLessThan(ANSWER_WITHIN_MS);
      const ready = await timed(`${ctx.mcp.url}/ready`);
      expect([ready.status, ready.json?.store?.up]).toEqual([503, false]);
      expect(ready.ms).toBeLessThan(ANSWER_WITHIN_MS);
      const health = await timed(`${ctx.mcp.url}/health`);
      expect([health.status, health.json?.store?.up]).toEqual([200, false]);
    } finally {
      ctx.redis.resume();
    }
    await readyBecomes(ctx.mcp.url, 200);
  });

  it("Redis silent: a refresh fails closed (503, no forge call, nothing rotated), the store-unavailable page says no-referrer; after SIGCONT the same refresh token refreshes", async () => {
    const { clientId, p, code } = await proxyCodeVia(ctx.mcp.url, ctx.mcp, ctx.mcp, ctx.mcp);
    const tokens = await redeem(ctx.mcp.url, clientId, code, p.verifier);
    expect(tokens.status).toBe(200);
    const refresh = () =>
      timed(
        `${ctx.mcp.url}/token`,
        form({ grant_type: "refresh_token", client_id: clientId, refresh_token: tokens.body.refresh_token }),
      );
    const pending = await pendingCallback();
    ctx.redis.pause();
    try {
      const seq = await forgeLogSeq(ctx.forge);
      const refused = await refresh();
      expect([refused.status, refused.json?.error]).toEqual([503, "temporarily_unavailable"]);
      expect(await forgeCallsSince(ctx.forge, seq, "/oauth/token")).toBe(0);
      const page = await timed(pending.callback, { headers: { cookie: pending.cookie } });
      expect(page.status).toBe(503);
      expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    } finally {
      ctx.redis.resume();
    }
    await readyBecomes(ctx.mcp.url, 200);
    const again = await refresh();
    expect(again.status).toBe(200);
  });

  it("Redis killed (SIGKILL) mid sign-in: every endpoint answers within the bound, one-time use fails closed", async () => {
    // before the kill: one sign-in up to its proxy code, another up to the forge's redirect back
    const withCode = await proxyCodeVia(ctx.mcp.url, ctx.mcp, ctx.mcp, ctx.mcp);
    const atCallback = await pendingCallback();
    const otherClient = await newClient(ctx.mcp.url);
    await ctx.redis.kill();

    const rows: Array<[string, () => Promise<Answer>, (a: Answer) => void]> = [
      // fails open (documented): a registration grants nothing; the limit counts per replica
      [
        "POST /register",
        () =>
          timed(`${ctx.mcp.url}/register`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:8765/callback"] }),
          }),
        (a) => expect(a.status).toBe(201),
      ],
      // needs no store in stateless mode: the state is sealed, claimed only at /callback
      [
        "GET /authorize",
        async () =>
          timed((await forgeAuthorizeHop(ctx.mcp.url, otherClient, pkce().challenge, "x")).location),
        (a) => expect(a.status).toBe(302),
      ],
      [
        "GET /callback",
        () => timed(atCallback.callback, { headers: { cookie: atCallback.cookie } }),
        (a) => {
          expect(a.status).toBe(503);
          expect(a.headers.get("content-type")).toMatch(/^text\/html/);
          expect(a.text).toContain("temporarily unavailable");
          expect(a.headers.get("retry-after")).toBe("5");
        },
      ],
      [
        "POST /token (authorization_code)",
        () =>
          timed(
            `${ctx.mcp.url}/token`,
            form({
              grant_type: "authorization_code",
              client_id: withCode.clientId,
              code: withCode.code,
              code_verifier: withCode.p.verifier,
              redirect_uri: "http://127.0.0.1:8765/callback",
            }),
          ),
        (a) => {
          expect(a.status).toBe(503);
          expect(a.json).toEqual({
            error: "temporarily_unavailable",
            error_description: "The authorization server is temporarily unavailable.",
          });
        },
      ],
      [
        "GET /ready",
        () => timed(`${ctx.mcp.url}/ready`),
        (a) =>
          expect([a.status, a.json]).toEqual([503, { ready: false, store: { kind: "redis", up: false } }]),
      ],
      [
        "GET /health",
        () => timed(`${ctx.mcp.url}/health`),
        (a) => expect([a.status, a.json]).toEqual([200, { ok: true, store: { kind: "redis", up: false } }]),
      ],
    ];
    for (const [name, run, check] of rows) {
      const a = await run();
      expect(a.ms, name).toBeLessThan(ANSWER_WITHIN_MS);
      check(a);
    }
    // a second registration in the same outage: no second warning
    expect((await newClient(ctx.mcp.url)).length).toBeGreaterThan(0);
    expect(ctx.mcp.logs.filter((l) => l.includes("the registration limit counts per replica")).length).toBe(
      1,
    );
    // the official client's sign-in fails at once instead of hanging
    const t0 = performance.now();
    await expect(connectV1(ctx.mcp.url)).rejects.toThrow(/\/callback: HTTP 503/);
    expect(performance.now() - t0).toBeLessThan(ANSWER_WITHIN_MS * 2);
    // open, but not unlimited: this replica's own count still stops one address
    const statuses: number[] = [];
    for (let i = 0; i < REGISTER_LIMIT && !statuses.includes(429); i++) {
      const a = await timed(`${ctx.mcp.url}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:8765/callback"] }),
      });
      statuses.push(a.status);
      if (a.status === 429) expect(Number(a.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect(statuses.at(-1)).toBe(429);

    // Redis returns on the same port: forge-mcp recovers without a restart
    await ctx.redis.restart();
    const ready = await readyBecomes(ctx.mcp.url, 200);
    expect(ready.json).toEqual({ ready: true, store: { kind: "redis", up: true } });
    // nothing was consumed by the refused calls: the code is redeemed now, exactly once
    expect((await redeem(ctx.mcp.url, withCode.clientId, withCode.code, withCode.p.verifier)).status).toBe(
      200,
    );
    const replay = await redeem(ctx.mcp.url, withCode.clientId, withCode.code, withCode.p.verifier);
    expect([replay.status, replay.body.error]).toEqual([400, "invalid_grant"]);
    // and the other sign-in's callback goes through now
    const back = await timed(atCallback.callback, { headers: { cookie: atCallback.cookie } });
    expect(back.status).toBe(302);
    expect(new URL(back.headers.get("location")!).searchParams.get("code")).toBeTruthy();
    for (const connect of [connectV1, connectV2]) {
      const { client } = await connect(ctx.mcp.url);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
    }
    expect(ctx.mcp.logs.some((l) => l.includes("the registration limit is shared again"))).toBe(true);
    const health = await timed(`${ctx.mcp.url}/health`);
    expect(health.json).toEqual({ ok: true, store: { kind: "redis", up: true } });
  });
});

describeWith("redis-server")("stateless mode: the connection to Redis goes silent for good", () => {
  let forge: Forge;
  let redis: TestRedis;
  let relay: Awaited<ReturnType<typeof tcpRelay>>;
  let mcp: RunningForgeMcp;

  beforeAll(async () => {
    forge = await startForge();
    redis = await startRedis();
    relay = await tcpRelay(redis.port);
    mcp = await startForgeMcp(
      statelessEnv(forge.apiUrl, { REDIS_URL: relay.url, REDIS_TIMEOUT_MS: String(TIMEOUT_MS) }),
    );
    await seedApp(forge, [`${mcp.url}/callback`]);
  });
  afterAll(async () => {
    await mcp?.close();
    await relay?.close();
    await redis?.stop();
    await forge?.close();
  });

  it("a wedged connection (open, never answering) is replaced: answers come back without a restart", async () => {
    const { clientId, p, code } = await proxyCodeVia(mcp.url, mcp, mcp, mcp);
    relay.blackhole();
    const token = await redeem(mcp.url, clientId, code, p.verifier);
    expect([token.status, token.body.error]).toEqual([503, "temporarily_unavailable"]);
    // the client believed the connection ready; only a new connection answers again
    await readyBecomes(mcp.url, 200);
    expect(mcp.logs.some((l) => l.includes("reconnecting"))).toBe(true);
    const again = await proxyCodeVia(mcp.url, mcp, mcp, mcp);
    expect((await redeem(mcp.url, again.clientId, again.code, again.p.verifier)).status).toBe(200);
  });
});

// Memory mode keeps only the registration limit in Redis (REDIS_URL shares it across replicas):
// the same bound and fail-open hold there, and sign-ins, whose state is in this process, go on.
describeWith("redis-server")("memory mode with REDIS_URL: Redis dies after start-up", () => {
  const ctx = forgeRedisMcp((forge, redis) =>
    oauthEnv(forge, {
      FORGE_OAUTH_CALLBACK_PROXY: "true",
      REDIS_URL: redis.url,
      REDIS_TIMEOUT_MS: String(MEMORY_MODE_TIMEOUT_MS),
      OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: String(REGISTER_LIMIT),
    }),
  );

  it("/register answers within the bound (fail-open to this process's count), /ready 503 until Redis returns, and the official client signs in", async () => {
    await ctx.redis.kill();
    const register = () =>
      timed(`${ctx.mcp.url}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:8765/callback"] }),
      });
    const first = await register();
    expect(first.status).toBe(201);
    expect(first.ms).toBeLessThan(ANSWER_WITHIN_MS);
    const statuses = [first.status];
    for (let i = 0; i < REGISTER_LIMIT + 2; i++) statuses.push((await register()).status);
    expect(statuses).toContain(429);
    const ready = await timed(`${ctx.mcp.url}/ready`);
    expect(ready.status).toBe(503);
    expect(ready.ms).toBeLessThan(ANSWER_WITHIN_MS);

    await ctx.redis.restart();
    await readyBecomes(ctx.mcp.url, 200);
    const { client } = await connectV2(ctx.mcp.url);
    const user = (await client.callTool({ name: "whoami", arguments: {} })) as {
      content: Array<{ text: string }>;
    };
    expect(JSON.parse(user.content[0]!.text).username).toBe("alice");
    await client.close();
  });
});
