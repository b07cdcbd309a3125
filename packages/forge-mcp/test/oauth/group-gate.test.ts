import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  APP_ID,
  CLIENT_CB,
  type Forge,
  forgeCallsSince,
  forgeLogSeq,
  seedApp,
  startForge,
} from "../forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "../helpers.js";
import { authorizeToCode, newClient, pkce, redeem } from "../oauth-client.js";

/**
 * GITLAB_OAUTH_ALLOWED_GROUPS (docs/forge-mcp.md, "Narrowing what the model may do"): a user in
 * none of the groups (nor their subgroups) gets no token: a clear page at /callback in proxy mode,
 * invalid_grant from /token in passthrough mode, and the forge token issued for the sign-in is
 * revoked. The simulator's groups: acme (alice owner, bob developer) with the subgroup
 * acme/platform (carol reporter), and labs (bob owner).
 */

describe("GITLAB_OAUTH_ALLOWED_GROUPS", () => {
  let forge: Forge;
  const servers: Record<string, RunningForgeMcp> = {};
  const start = async (name: string, env: Record<string, string>) => {
    servers[name] = await startForgeMcp({
      FORGE_MCP_OAUTH: "true",
      FORGE_OAUTH_APP_ID: APP_ID,
      FORGE_API_URL: forge.apiUrl,
      ...env,
    });
  };

  beforeAll(async () => {
    forge = await startForge();
    await start("proxyLabs", { FORGE_OAUTH_CALLBACK_PROXY: "true", GITLAB_OAUTH_ALLOWED_GROUPS: "labs" });
    await start("proxyAcme", { FORGE_OAUTH_CALLBACK_PROXY: "true", GITLAB_OAUTH_ALLOWED_GROUPS: "ACME" });
    await start("passthroughLabs", { GITLAB_OAUTH_ALLOWED_GROUPS: "labs" });
    await seedApp(forge, [...Object.values(servers).map((s) => `${s.url}/callback`), CLIENT_CB]);
  });
  afterAll(async () => {
    for (const s of Object.values(servers)) await s.close();
    await forge?.close();
  });

  const signIn = async (server: string, user: string) => {
    await forge.seed({ signedInUser: user });
    const base = servers[server]!.url;
    const client = await newClient(base);
    const { verifier, challenge } = pkce();
    try {
      const got = await authorizeToCode(base, client, challenge);
      return { client, verifier, code: got.code, base };
    } catch (err) {
      return { refused: (err as Error).message, page: String((err as Error).cause ?? "") };
    }
  };

  it.each([
    ["proxyLabs", "bob", "a member of the group"],
    ["proxyAcme", "alice", "a member of the group, listed in another case"],
    ["proxyAcme", "carol", "a member of a subgroup only"],
  ])("%s admits %s (%s)", async (server, user) => {
    const r = await signIn(server, user);
    expect(r.refused).toBeUndefined();
    const t = await redeem(r.base!, r.client!, r.code!, r.verifier);
    expect(t.status).toBe(200);
    expect(t.body.access_token).toBeTruthy();
  });

  it("proxy mode refuses a user in none of the groups at /callback with a page, and revokes the forge token", async () => {
    const seq = await forgeLogSeq(forge);
    const r = await signIn("proxyLabs", "alice");
    expect(r.refused).toMatch(/\/callback: HTTP 403/);
    expect(r.page).toMatch(/Your account may not use this server/);
    expect(r.page).toMatch(/member of none of them/);
    expect(await forgeCallsSince(forge, seq, "/oauth/revoke")).toBeGreaterThan(0);
  });

  it("passthrough mode answers invalid_grant at /token for a user in none of the groups, and a member gets tokens", async () => {
    const out = await signIn("passthroughLabs", "carol");
    const refused = await redeem(out.base!, out.client!, out.code!, out.verifier);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("invalid_grant");
    expect(JSON.stringify(refused.body)).not.toMatch(/carol|labs/);
    const ok = await signIn("passthroughLabs", "bob");
    const t = await redeem(ok.base!, ok.client!, ok.code!, ok.verifier);
    expect(t.status).toBe(200);
  });
});
