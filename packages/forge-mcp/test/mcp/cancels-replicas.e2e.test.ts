import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createClient } from "redis";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { describeWith } from "../../../../scripts/test-services.js";
import { type Forge, seedApp, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "../helpers.js";
import { redeem } from "../oauth-client.js";
import { startRedis, type TestRedis } from "../redis.js";
import { proxyCodeVia, statelessEnv } from "../stateless-helpers.js";

/**
 * A 2025 client's notifications/cancelled that a round-robin balancer sends to another replica
 * than the call (src/mcp/cancels.ts, relayed on Redis by src/oauth/shared-state.ts): stateless
 * replicas with REDIS_URL, each an in-process forge-mcp on its own loopback port, one forge
 * simulator. The official v1 client starts wait_for_pipeline on replica A (a pipeline that runs
 * on for the whole test, timeout_seconds 2) through a fetch that plays the balancer: the call goes
 * to A, the client's cancel (its AbortSignal fired once the forge saw the first poll) to the row's
 * replica, as the row's user. The call's own answer is read beside the client: a cancelled call's
 * request ends with an event stream and no answer in it, one left alone answers at its
 * timeout_seconds that the pipeline still runs. Rows 4 and 5 have a Redis and two replicas of
 * their own (Redis stopped before the cancel; restarted before the call, A's cancel channel then
 * subscribed again by node-redis), so the rows all run at once. Rows 6 to 8 run the other HTTP
 * auth modes, a pair each on the same Redis under a prefix of its own: FORGE_TOKEN with no
 * sign-in, and REMOTE_AUTHORIZATION with each request's own forge token.
 */

const P = "/api/v4/projects/1";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Row {
  name: string;
  /** Which pair of replicas, and where the cancel goes ("B": the call's replica's twin). */
  pair: "main" | "down" | "restarted" | "pat" | "remote";
  cancelTo: "B" | "otherDeployment";
  cancelAs: "alice" | "bob";
  stops: boolean;
  /**
   * Pings before the call, so that alice's calls running side by side on A have ids of their own
   * (two calls of one caller under one id are not told apart, and a cancel reaches neither).
   */
  skip: number;
}

// every row at once: most of each is waiting
vi.setConfig({ maxConcurrency: 8 });

describeWith("redis-server")("notifications/cancelled across stateless replicas sharing Redis", () => {
  let forge: Forge;
  let redis: TestRedis;
  let redisDown: TestRedis;
  let redisRestarted: TestRedis;
  const r: Record<string, RunningForgeMcp> = {};
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    [forge, redis, redisDown, redisRestarted] = await Promise.all([
      startForge(),
      startRedis(),
      startRedis(),
      startRedis(),
    ]);
    const env = (redisUrl: string, extra: Record<string, string> = {}) =>
      statelessEnv(forge.apiUrl, {
        REDIS_URL: redisUrl,
        FORGE_TOOLSETS: "pipelines",
        ...(r.A ? { MCP_SERVER_URL: r.A.url } : {}),
        ...extra,
      });
    r.A = await startForgeMcp(env(redis.url));
    // the other HTTP auth modes, each a pair on the same Redis under a prefix of its own: FORGE_TOKEN
    // (every caller is the server's token), REMOTE_AUTHORIZATION (each request's own forge token)
    const mode = (extra: Record<string, string>) => ({
      FORGE_API_URL: forge.apiUrl,
      REDIS_URL: redis.url,
      FORGE_TOOLSETS: "pipelines",
      ...extra,
    });
    const pat = mode({ FORGE_TOKEN: "sim-forge-pat", REDIS_KEY_PREFIX: "pat:" });
    const remote = mode({ REMOTE_AUTHORIZATION: "true", REDIS_KEY_PREFIX: "remote:" });
    const [b, other, downA, downB, restartedA, restartedB, patA, patB, remoteA, remoteB] = await Promise.all([
      startForgeMcp(env(redis.url)),
      // another deployment on the same Redis, under a prefix of its own (the same secret and
      // forge, so alice's token is good there too: only the prefix keeps it apart)
      startForgeMcp(env(redis.url, { REDIS_KEY_PREFIX: "staging:" })),
      startForgeMcp(env(redisDown.url)),
      startForgeMcp(env(redisDown.url)),
      startForgeMcp(env(redisRestarted.url)),
      startForgeMcp(env(redisRestarted.url)),
      startForgeMcp(pat),
      startForgeMcp(pat),
      startForgeMcp(remote),
      startForgeMcp(remote),
    ]);
    Object.assign(r, { B: b, other, downA, downB, restartedA, restartedB, patA, patB, remoteA, remoteB });
    await seedApp(forge, [`${r.A.url}/callback`]);
    for (const user of ["alice", "bob"]) {
      await forge.seed({ signedInUser: user });
      const { clientId, p, code } = await proxyCodeVia(r.A.url, r.A, r.A, r.A);
      const t = await redeem(r.A.url, clientId, code, p.verifier);
      expect(t.status).toBe(200);
      tokens[user] = t.body.access_token as string;
    }
    await forge.seed({ signedInUser: "alice" });
  });
  afterAll(async () => {
    await Promise.all(Object.values(r).map((x) => x.close()));
    await Promise.all([redis?.stop(), redisDown?.stop(), redisRestarted?.stop()]);
    await forge?.close();
  });

  const rest = async (method: string, path: string) =>
    (await (
      await fetch(`${forge.origin}${path}`, { method, headers: { "private-token": "sim-forge-pat" } })
    ).json()) as any;
  async function firstPoll(pipeline: number): Promise<void> {
    for (;;) {
      const log = (await (await fetch(`${forge.origin}/_sim/log`)).json()) as {
        entries: Array<{ method: string; path: string }>;
      };
      if (log.entries.some((e) => e.method === "GET" && e.path === `${P}/pipelines/${pipeline}`)) return;
      await sleep(40);
    }
  }

  it.concurrent.each<Row>([
    {
      name: "(1) the same caller, on the other replica: the call on A stops",
      pair: "main",
      cancelTo: "B",
      cancelAs: "alice",
      stops: true,
      skip: 0,
    },
    {
      name: "(2) another user naming the same id, on the other replica: nothing stops",
      pair: "main",
      cancelTo: "B",
      cancelAs: "bob",
      stops: false,
      skip: 1,
    },
    {
      name: "(3) the same caller on another deployment sharing the Redis (another REDIS_KEY_PREFIX): nothing stops",
      pair: "main",
      cancelTo: "otherDeployment",
      cancelAs: "alice",
      stops: false,
      skip: 2,
    },
    {
      name: "(4) Redis stopped: the other replica answers 202 at once, the call on A runs to its end",
      pair: "down",
      cancelTo: "B",
      cancelAs: "alice",
      stops: false,
      skip: 0,
    },
    {
      name: "(5) Redis restarted: both replicas connect again, A listens again, and the cancel stops the call on A",
      pair: "restarted",
      cancelTo: "B",
      cancelAs: "alice",
      stops: true,
      skip: 0,
    },
    {
      name: "(6) FORGE_TOKEN, no sign-in (every caller is the server's token): the cancel on the other replica stops the call",
      pair: "pat",
      cancelTo: "B",
      cancelAs: "alice",
      stops: true,
      skip: 0,
    },
    {
      name: "(7) REMOTE_AUTHORIZATION, the same forge user's token: the cancel on the other replica stops the call",
      pair: "remote",
      cancelTo: "B",
      cancelAs: "alice",
      stops: true,
      skip: 0,
    },
    {
      name: "(8) REMOTE_AUTHORIZATION, another forge user naming the same id: nothing stops",
      pair: "remote",
      cancelTo: "B",
      cancelAs: "bob",
      stops: false,
      skip: 1,
    },
  ])("$name", async (row) => {
    // FORGE_TOKEN: the callers carry no credential of their own
    const bearer = (user: string): Record<string, string> =>
      row.pair === "pat" ? {} : { authorization: `Bearer ${tokens[user]}` };
    const a = row.pair === "main" ? r.A! : r[`${row.pair}A`]!;
    const cancelServer = row.pair !== "main" ? r[`${row.pair}B`]! : row.cancelTo === "B" ? r.B! : r.other!;
    if (row.pair === "down") await redisDown.stop();
    if (row.pair === "restarted") {
      await redisRestarted.restart();
      // A's cancel channel subscribed again (node-redis does it on reconnecting), B's client back
      await vi.waitFor(
        async () => {
          expect(a.logs.join("")).toMatch(/listening on the cancel channel again/);
          expect((await fetch(`${cancelServer.url}/ready`)).status).toBe(200);
        },
        { timeout: 3000, interval: 50 },
      );
    }
    const cancels: Array<{ status: number; ms: number }> = [];
    let callAnswer: Promise<string> | undefined;
    // the balancer: the call to A, the cancel to the row's replica as the row's user
    const balancer = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string }) : {};
      if (body.method === "notifications/cancelled") {
        const headers = new Headers(init?.headers);
        headers.delete("authorization");
        for (const [k, v] of Object.entries(bearer(row.cancelAs))) headers.set(k, v);
        const started = performance.now();
        const res = await fetch(`${cancelServer.url}/mcp`, { ...init, headers });
        cancels.push({ status: res.status, ms: performance.now() - started });
        return res;
      }
      const res = fetch(url, init);
      // read beside the client (registered first, so the clone is made before the client reads)
      if (body.method === "tools/call") callAnswer = res.then((x) => x.clone().text());
      return res;
    };
    const client = new Client({ name: "cancel-replicas", version: "1.0.0" });
    const errors: Error[] = [];
    client.onerror = (e) => errors.push(e);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), {
        requestInit: { headers: bearer("alice") },
        fetch: balancer,
      }),
    );
    for (let i = 0; i < row.skip; i++) await client.ping();
    const pipeline = ((await rest("POST", `${P}/pipeline?ref=main`)) as { id: number }).id;
    const stop = new AbortController();
    const call = client.callTool(
      {
        name: "wait_for_pipeline",
        arguments: {
          project_id: 1,
          pipeline_id: pipeline,
          poll_interval_seconds: 1,
          timeout_seconds: row.stops ? 2 : 1,
        },
      },
      undefined,
      { signal: stop.signal },
    );
    call.catch(() => {});
    await firstPoll(pipeline);
    stop.abort("the person pressed stop");
    await expect(call).rejects.toThrow(/pressed stop/);
    let answered = false;
    void callAnswer!.then(() => {
      answered = true;
    });
    await vi.waitFor(() => expect(cancels).toHaveLength(1));
    // the cancel was answered (and so relayed) while the call still ran: its answer is not late
    if (!row.stops) expect(answered).toBe(false);
    // the notification is accepted at once, whatever it reached and whatever Redis does
    expect(cancels[0]!.status).toBe(202);
    expect(cancels[0]!.ms).toBeLessThan(500);
    const answer = await callAnswer!;
    if (row.stops) {
      expect(answer).toBe("");
      expect(errors).toEqual([]);
    } else {
      expect(answer).toMatch(/still (pending|running) after 1 s/);
      // the client, which gave the call up, is then told of an answer it no longer waits for
      expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/unknown message ID/)]);
    }
    await client.close();
    if (row.pair === "down") {
      const logs = cancelServer.logs.join("");
      expect(logs).toMatch(/a cancel was not sent to the other replicas/);
      for (const t of Object.values(tokens)) expect(logs).not.toContain(t);
    }
  });

  it("a Redis user refused the cancel channel (Redis 7 gives a new ACL user none) still starts, and says so", async () => {
    const admin = createClient({ url: redis.url });
    await admin.connect();
    await admin.sendCommand([
      "ACL",
      "SETUSER",
      "nochannels",
      "on",
      ">s3cret-pw",
      "~*",
      "+@all",
      "resetchannels",
    ]);
    await admin.quit();
    const limited = await startForgeMcp(
      statelessEnv(forge.apiUrl, {
        REDIS_URL: redis.url.replace("redis://", "redis://nochannels:s3cret-pw@"),
        MCP_SERVER_URL: r.A!.url,
      }),
    );
    try {
      const logs = limited.logs.join("");
      expect(logs).toMatch(/no subscription to the cancel channel forge-mcp:cancel \(subscribe: NOPERM/);
      expect(logs).not.toContain("s3cret-pw");
      expect((await fetch(`${limited.url}/ready`)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
