import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWith } from "../../../../scripts/test-services.js";
import { oauthEnv } from "../forge-sim.js";
import { postForm, type RunningForgeMcp, SECRET, startForgeMcp } from "../helpers.js";
import { authorizeToCode, newClient, pkce, redeem } from "../oauth-client.js";
import { startRedis } from "../redis.js";
import { holeServers, mcpPost, signInHoleRows } from "./signin-holes.js";

/**
 * The sign-in holes of the third outside review (issue 36, item 4) in stateless mode with Redis:
 * the rows of ./signin-holes.ts, and refresh-token reuse seen across two replicas sharing Redis
 * (the family's record is there, so a replay on the other replica still revokes the family).
 */

describeWith("redis-server")("sign-in holes of the third review (stateless with Redis)", () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  beforeAll(async () => {
    redis = await startRedis();
  });
  // the mode, shared by the gated server and its second replica
  const statelessRedis = () => ({
    FORGE_OAUTH_CALLBACK_PROXY: "true",
    OAUTH_STATELESS_MODE: "true",
    OAUTH_STATELESS_SECRET: SECRET,
    REDIS_URL: redis.url,
  });
  const ctx = holeServers(statelessRedis);
  let replica: RunningForgeMcp;
  beforeAll(async () => {
    replica = await startForgeMcp(
      oauthEnv(ctx.forge, {
        GITLAB_OAUTH_ALLOWED_GROUPS: "labs",
        ...statelessRedis(),
        MCP_SERVER_URL: ctx.mcp.url,
      }),
    );
  });
  afterAll(async () => {
    await replica?.close();
    await redis?.stop();
  });

  signInHoleRows(ctx, { proxy: true });

  it("refresh-token reuse across replicas: R0 → R1 on one replica, R0 replayed on the other revokes the family", async () => {
    await ctx.forge.seed({ signedInUser: "bob" });
    const client = await newClient(ctx.mcp.url);
    const p = pkce();
    const { code } = await authorizeToCode(ctx.mcp.url, client, p.challenge);
    const t = await redeem(ctx.mcp.url, client, code!, p.verifier);
    const refresh = (base: string, token: string) =>
      postForm(`${base}/token`, { grant_type: "refresh_token", client_id: client, refresh_token: token });
    const first = await refresh(ctx.mcp.url, t.body.refresh_token);
    expect(first.status).toBe(200);
    const replay = await refresh(replica.url, t.body.refresh_token);
    expect(replay.body.error).toBe("invalid_grant");
    expect((await refresh(ctx.mcp.url, first.body.refresh_token)).body.error).toBe("invalid_grant");
    expect(
      (
        await mcpPost(replica.url, first.body.access_token, {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "whoami", arguments: {} },
        })
      ).status,
    ).toBe(401);
  });
});
