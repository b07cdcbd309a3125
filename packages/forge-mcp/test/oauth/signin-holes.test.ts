import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { forgeAndMcp } from "../forge-and-mcp.js";
import { type Forge, startForge } from "../forge-sim.js";
import { getManual, type RunningForgeMcp, SECRET, startForgeMcp } from "../helpers.js";
import { authorizeUrl, newClient, pkce } from "../oauth-client.js";
import { holeServers, mcpRequestRows, signInHoleRows } from "./signin-holes.js";

/**
 * The sign-in holes of the third outside review (issue 36, item 4): the rows of ./signin-holes.ts
 * in passthrough mode, proxy mode with memory stores, and stateless sealed mode (with Redis:
 * ./signin-holes-redis.e2e.test.ts).
 */

describe.each([
  ["passthrough", {}, false],
  ["proxy with memory stores", { FORGE_OAUTH_CALLBACK_PROXY: "true" }, true],
  [
    "stateless sealed",
    { FORGE_OAUTH_CALLBACK_PROXY: "true", OAUTH_STATELESS_MODE: "true", OAUTH_STATELESS_SECRET: SECRET },
    true,
  ],
] as const)("sign-in holes of the third review (%s)", (_mode, env, proxy) => {
  const ctx = holeServers(() => ({ ...env }));
  signInHoleRows(ctx, { proxy });
});

describe("what /mcp reads, with a server token (FORGE_TOKEN: no credential of the caller's)", () => {
  const ctx = {} as { forge: Forge; mcp: RunningForgeMcp };
  beforeAll(async () => {
    ctx.forge = await startForge();
    ctx.mcp = await startForgeMcp({ FORGE_TOKEN: "sim-forge-pat", FORGE_API_URL: ctx.forge.apiUrl });
  });
  afterAll(async () => {
    await ctx.mcp?.close();
    await ctx.forge?.close();
  });
  mcpRequestRows(ctx, async () => undefined);
});

const MCP = { MCP_SERVER_URL: "http://127.0.0.1:9", MCP_TRANSPORT: "http", FORGE_MCP_OAUTH: "true" };

describe("least privilege: a read-only server asks the forge for read_api", () => {
  it.each([
    ["FORGE_READ_ONLY=true", { FORGE_READ_ONLY: "true" }, ["read_api"]],
    ["GITLAB_READ_ONLY_MODE=true", { GITLAB_READ_ONLY_MODE: "true" }, ["read_api"]],
    ["read-only with step-up", { FORGE_READ_ONLY: "true", FORGE_MCP_STEP_UP: "true" }, ["read_api"]],
    [
      "read-only, scopes set by the operator",
      { FORGE_READ_ONLY: "true", FORGE_OAUTH_SCOPES: "api" },
      ["api"],
    ],
    ["not read-only", {}, ["api"]],
  ])("%s: sign-in scopes %j", (_name, env, scopes) => {
    expect(loadConfig({ ...MCP, FORGE_OAUTH_APP_ID: "x", ...env }).oauthScopes).toEqual(scopes);
  });

  describe.each([
    ["passthrough", {}],
    ["proxy", { FORGE_OAUTH_CALLBACK_PROXY: "true", FORGE_OAUTH_CONSENT: "false" }],
  ] as const)("%s mode", (_mode, env) => {
    const ctx = forgeAndMcp({ FORGE_READ_ONLY: "true", ...env });
    it("a client asking for api is sent to the forge for read_api", async () => {
      const client = await newClient(ctx.mcp.url);
      const r = await getManual(authorizeUrl(ctx.mcp.url, client, pkce().challenge, "s"));
      expect(r.status).toBe(302);
      const forge = new URL(r.location!);
      expect(forge.pathname).toBe("/oauth/authorize");
      expect(forge.searchParams.get("scope")).toBe("read_api");
    });
  });
});
