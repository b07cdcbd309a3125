import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWith } from "../../../../scripts/test-services.js";
import { type Forge, seedApp, startForge } from "../forge-sim.js";
import { getManual, type RunningForgeMcp, startForgeMcp } from "../helpers.js";
import { forgeAuthorizeHop, newClient, pkce, redeem } from "../oauth-client.js";
import { startRedis } from "../redis.js";
import { connectV2 } from "../sdk-clients.js";
import { proxyCodeVia, statelessEnv } from "../stateless-helpers.js";

/** Stateless replicas sharing one Redis: one-time codes and states are exact across replicas. */

describeWith("redis-server")("stateless proxy mode with Redis", () => {
  let forge: Forge;
  let redis: Awaited<ReturnType<typeof startRedis>>;
  const r: Record<string, RunningForgeMcp> = {};
  let publicUrl = "";

  beforeAll(async () => {
    forge = await startForge();
    redis = await startRedis();
    r.redis1 = await startForgeMcp(statelessEnv(forge.apiUrl, { REDIS_URL: redis.url }));
    publicUrl = r.redis1.url;
    r.redis2 = await startForgeMcp(
      statelessEnv(forge.apiUrl, { REDIS_URL: redis.url, MCP_SERVER_URL: publicUrl }),
    );
    await seedApp(forge, [`${publicUrl}/callback`]);
  });
  afterAll(async () => {
    await Promise.all(Object.values(r).map((x) => x.close()));
    await redis?.stop();
    await forge?.close();
  });

  const codeVia = (reg: RunningForgeMcp, auth: RunningForgeMcp, cb: RunningForgeMcp) =>
    proxyCodeVia(publicUrl, reg, auth, cb);

  it("with Redis, a code is used exactly once across replicas, and a replay on the other one revokes its tokens", async () => {
    const { clientId, p, code } = await codeVia(r.redis1!, r.redis1!, r.redis1!);
    const first = await redeem(r.redis2!.url, clientId, code, p.verifier);
    expect(first.status).toBe(200);
    const info = () =>
      fetch(`${forge.origin}/oauth/token/info`, {
        headers: { authorization: `Bearer ${first.body.access_token}` },
      });
    expect((await info()).status).toBe(200);
    const replay = await redeem(r.redis1!.url, clientId, code, p.verifier);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_grant");
    expect((await info()).status).toBe(401);
  });

  it("with Redis, concurrent redemptions on both replicas: exactly one gets tokens", async () => {
    const { clientId, p, code } = await codeVia(r.redis1!, r.redis1!, r.redis1!);
    const results = await Promise.all(
      [r.redis1!, r.redis2!, r.redis1!, r.redis2!].map((x) => redeem(x.url, clientId, code, p.verifier)),
    );
    expect(results.map((x) => x.status).sort()).toEqual([200, 400, 400, 400]);
  });

  it("with Redis, a state is consumed exactly once across replicas", async () => {
    const { callbackPathAndQuery, callbackCookie } = await codeVia(r.redis1!, r.redis2!, r.redis1!);
    // the binding cookie holds on the other replica; the state's one use is spent
    expect(
      (await getManual(`${r.redis2!.url}${callbackPathAndQuery}`, { cookie: callbackCookie })).status,
    ).toBe(400);
  });

  it("with Redis, a victim's browser without the approving browser's cookie is refused at /callback, no forge exchange", async () => {
    const attacker = await newClient(r.redis1!.url);
    const hop = await forgeAuthorizeHop(r.redis1!.url, attacker, pkce().challenge, "attacker");
    const callback = new URL((await getManual(hop.location)).location!);
    await fetch(`${forge.origin}/_sim/log`, { method: "DELETE" });
    const refused = await getManual(`${r.redis2!.url}${callback.pathname}${callback.search}`);
    expect(refused.status).toBe(403);
    expect(refused.location).toBeNull();
    const log = (await (await fetch(`${forge.origin}/_sim/log`)).json()) as {
      entries: Array<{ path: string }>;
    };
    expect(log.entries.filter((e) => e.path === "/oauth/token")).toEqual([]);
    // the approving browser, on the other replica, completes
    const ok = await getManual(`${r.redis2!.url}${callback.pathname}${callback.search}`, {
      cookie: hop.cookie,
    });
    expect(new URL(ok.location!).searchParams.get("state")).toBe("attacker");
  });

  it("with Redis, the official v2 client signs in, negotiates MCP 2026-07-28 and calls a tool", async () => {
    const { client } = await connectV2(publicUrl, { revision: "2026" });
    expect(client.getProtocolEra()).toBe("modern");
    const r = (await client.callTool({ name: "whoami", arguments: {} })) as {
      isError?: boolean;
      content: Array<{ text: string }>;
    };
    expect(r.isError).toBeFalsy();
    expect(JSON.parse(r.content[0]!.text).username).toBe("alice");
    await client.close();
  });
});
