import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { APP_ID, CLIENT_CB, type Forge, seedApp, startForge } from "../forge-sim.js";
import { getManual, postForm, type RunningForgeMcp, startForgeMcp } from "../helpers.js";
import { authorizeToCode, forgeAuthorizeHop, newClient, pkce, redeem } from "../oauth-client.js";

/** The forge failing or hanging: clients get RFC errors or tool errors, promptly, without secrets. */

describe("forge faults", () => {
  let forge: Forge;
  let mcp: RunningForgeMcp;
  const faults = (config: Record<string, unknown>) =>
    fetch(`${forge.origin}/_sim/faults`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(config),
    });

  beforeAll(async () => {
    forge = await startForge();
    mcp = await startForgeMcp({
      FORGE_MCP_OAUTH: "true",
      FORGE_OAUTH_CALLBACK_PROXY: "true",
      FORGE_OAUTH_CONSENT: "false",
      FORGE_OAUTH_APP_ID: APP_ID,
      FORGE_API_URL: forge.apiUrl,
      FORGE_TIMEOUT_MS: "300",
    });
    await seedApp(forge, [`${mcp.url}/callback`]);
    await forge.seed({ tokens: [{ token: "tok-ok", application: APP_ID, user: "alice", scopes: ["api"] }] });
  });
  afterEach(() => faults({}));
  afterAll(async () => {
    await mcp?.close();
    await forge?.close();
  });

  it("a failing forge token exchange at /callback sends server_error with the client's state, and consumes the state", async () => {
    const clientId = await newClient(mcp.url);
    const hop = await forgeAuthorizeHop(mcp.url, clientId, pkce().challenge, "f-state");
    const callbackUrl = (await getManual(hop.location)).location!;
    const browser = { cookie: hop.cookie };
    await faults({
      rules: [{ method: "POST", path: "^/oauth/token$", action: { type: "status", status: 503 } }],
    });
    const back = await getManual(callbackUrl, browser);
    const to = new URL(back.location!);
    expect(to.origin + to.pathname).toBe(CLIENT_CB);
    expect(to.searchParams.get("error")).toBe("server_error");
    expect(to.searchParams.get("state")).toBe("f-state");
    expect((await getManual(callbackUrl, browser)).status).toBe(400);
  });

  it("a hanging forge at /token (refresh) answers server_error after FORGE_TIMEOUT_MS", async () => {
    // a refresh token of ours (sealed: an unsealed one is refused without asking the forge)
    const clientId = await newClient(mcp.url);
    const p = pkce();
    const { code } = await authorizeToCode(mcp.url, clientId, p.challenge);
    const rt = (await redeem(mcp.url, clientId, code!, p.verifier)).body.refresh_token as string;
    await faults({ rules: [{ path: "^/oauth/token$", action: { type: "delay", ms: 3000 } }] });
    const r = await postForm(`${mcp.url}/token`, {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: rt,
    });
    // Waited out, the forge would refresh it (200): server_error is the timeout's answer.
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ error: "server_error", error_description: expect.any(String) });
  });

  it("a hanging forge API turns into a tool error, not a hung call", async () => {
    const client = new Client({ name: "faults", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), {
        requestInit: { headers: { authorization: "Bearer tok-ok" } },
      }),
    );
    await faults({ rules: [{ path: "^/api/v4/user$", action: { type: "delay", ms: 3000 } }] });
    const r = (await client.callTool({ name: "whoami", arguments: {} })) as {
      isError?: boolean;
      content: Array<{ text: string }>;
    };
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/timed out after 300 ms/);
    await client.close();
  });

  it("an unavailable token-info endpoint is a 500 at /mcp, never an accepted token", async () => {
    await faults({ rules: [{ path: "^/oauth/token/info$", action: { type: "status", status: 502 } }] });
    const r = await fetch(`${mcp.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: "Bearer tok-uncached",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(r.status).toBe(500);
  });
});
