import { UnauthorizedError as UnauthorizedV2 } from "@modelcontextprotocol/client";
import { auth, UnauthorizedError as UnauthorizedV1 } from "@modelcontextprotocol/sdk/client/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_CB, type Forge, oauthEnv, seedApp, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, SIGN_IN_MODES, startForgeMcp } from "../helpers.js";
import { connectV1, connectV2 } from "../sdk-clients.js";

/**
 * Scopes in the challenge and step-up per tool (docs/forge-mcp-oauth.md §12), with the official
 * clients against the forge simulator, in the three server modes.
 */

const modes = SIGN_IN_MODES;

type ToolResult = { isError?: boolean; content: Array<{ text: string }> };

async function challenge(mcpUrl: string, headers: Record<string, string> = {}) {
  const r = await fetch(`${mcpUrl}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  return { status: r.status, header: r.headers.get("www-authenticate") ?? "" };
}

describe.each([
  ["default", {}, ["api"], "api"],
  ["FORGE_MCP_STEP_UP=true", { FORGE_MCP_STEP_UP: "true" }, ["read_api", "api"], "read_api"],
  // least privilege: a read-only server asks for read_api unless FORGE_OAUTH_SCOPES says otherwise
  ["FORGE_READ_ONLY=true", { FORGE_READ_ONLY: "true" }, ["read_api"], "read_api"],
  [
    "FORGE_READ_ONLY=true, scopes set",
    { FORGE_READ_ONLY: "true", FORGE_OAUTH_SCOPES: "api" },
    ["api"],
    "api",
  ],
] as const)("scopes in the challenge and the metadata (%s)", (_name, env, supported, challenged) => {
  let forge: Forge;
  let mcp: RunningForgeMcp;
  beforeAll(async () => {
    forge = await startForge();
    mcp = await startForgeMcp(oauthEnv(forge, env));
  });
  afterAll(async () => {
    await mcp?.close();
    await forge?.close();
  });

  it("the 401 names the scope sign-in needs; the protected-resource metadata lists scopes_supported", async () => {
    for (const headers of [{}, { authorization: "Bearer not-a-forge-token" }] as Record<string, string>[]) {
      const c = await challenge(mcp.url, headers);
      expect(c.status).toBe(401);
      // RFC 6750 §3.1: no credential, no error code (the rows are in oauth/bearer.test.ts)
      if (headers.authorization) expect(c.header).toMatch(/^Bearer error="invalid_token", /);
      else expect(c.header).toMatch(/^Bearer scope="/);
      expect(c.header).toContain(`scope="${challenged}"`);
      expect(c.header).toContain(`resource_metadata="${mcp.url}/.well-known/oauth-protected-resource/mcp"`);
    }
    const prm = (await (await fetch(`${mcp.url}/.well-known/oauth-protected-resource/mcp`)).json()) as {
      scopes_supported: string[];
    };
    expect(prm.scopes_supported).toEqual(supported);
  });
});

describe.each(modes)("step-up per tool, %s mode", (mode, extra) => {
  let forge: Forge;
  let mcp: RunningForgeMcp;

  beforeAll(async () => {
    forge = await startForge();
    mcp = await startForgeMcp(oauthEnv(forge, { FORGE_MCP_STEP_UP: "true", ...extra }));
    await seedApp(forge, mode === "passthrough" ? [CLIENT_CB] : [`${mcp.url}/callback`]);
  });
  afterAll(async () => {
    await mcp?.close();
    await forge?.close();
  });

  /** A create_issue call of the given title, to make again after stepping up. */
  const creates = (client: { callTool(p: unknown): Promise<unknown> }, title: string) => () =>
    client.callTool({
      name: "create_issue",
      arguments: { project_id: "acme/widgets", title },
    }) as Promise<ToolResult>;

  const issuesTitled = async (client: { callTool(p: unknown): Promise<unknown> }, title: string) => {
    const r = (await client.callTool({
      name: "list_issues",
      arguments: { project_id: "acme/widgets", search: title },
    })) as ToolResult;
    const body = JSON.parse(r.content[0]!.text) as { items: Array<{ title: string }> };
    return body.items.filter((i) => i.title === title).length;
  };

  it("the 403 challenge of a writing tool: insufficient_scope, scope=api, the metadata URL; no forge call", async () => {
    const { client, provider } = await connectV2(mcp.url);
    const r = await fetch(`${mcp.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${provider.saved.access_token}`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "create_issue", arguments: { project_id: "acme/widgets", title: "raw 403" } },
      }),
    });
    expect(r.status).toBe(403);
    expect(r.headers.get("www-authenticate")).toBe(
      `Bearer error="insufficient_scope", error_description="The tool needs more access", scope="api", resource_metadata="${mcp.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(await r.json()).toEqual({
      error: "insufficient_scope",
      error_description: "The tool needs more access",
    });
    expect(await issuesTitled(client, "raw 403")).toBe(0);
    await client.close();
  });

  it("v2 (@modelcontextprotocol/client): signs in with read_api, steps up to api at the first write, succeeds on retry", async () => {
    const { client, provider, transport } = await connectV2(mcp.url);
    expect(provider.saved.scope).toBe("read_api");
    // reading needs no step-up
    expect(await issuesTitled(client, "Stepped up (v2)")).toBe(0);
    const firstCode = provider.code;
    const write = creates(client, "Stepped up (v2)");
    // v2 re-authorizes on the 403 itself (scope: the union of what it held and what was named),
    // sending the user through /authorize again; an interactive client then finishes and retries.
    await expect(write()).rejects.toBeInstanceOf(UnauthorizedV2);
    expect(provider.code).not.toBe(firstCode);
    await transport.finishAuth(provider.callbackParams);
    expect(provider.saved.scope.split(" ").sort()).toEqual(["api", "read_api"]);
    const done = await write();
    expect(done.isError).toBeFalsy();
    expect(JSON.parse(done.content[0]!.text).title).toBe("Stepped up (v2)");
    expect(await issuesTitled(client, "Stepped up (v2)")).toBe(1);
    await client.close();
  });

  it("v1 (@modelcontextprotocol/sdk): refreshes instead of re-authorizing, so the caller's auth() with the named scope steps up", async () => {
    const { client, provider, transport } = await connectV1(mcp.url);
    expect(provider.saved.scope).toBe("read_api");
    const firstCode = provider.code;
    const write = creates(client, "Stepped up (v1)");
    // v1 1.32 answers the 403 with auth(), which refreshes the token it holds (same read_api
    // scope) and retries once; the same challenge again ends in its own 403 error.
    await expect(write()).rejects.toThrow(/403 after trying upscoping/);
    expect(provider.code).toBe(firstCode);
    expect(provider.saved.scope).toBe("read_api");
    // The caller steps up: drop the read-only tokens, authorize for the scope the 403 named.
    provider.saveTokens(undefined);
    const url = new URL(`${mcp.url}/mcp`);
    expect(await auth(provider as never, { serverUrl: url, scope: "api" })).toBe("REDIRECT");
    await transport.finishAuth(provider.code!);
    expect(provider.saved.scope).toBe("api");
    const done = await write();
    expect(done.isError).toBeFalsy();
    expect(await issuesTitled(client, "Stepped up (v1)")).toBe(1);
    await client.close();
  });

  it("without a refresh token, v1 re-authorizes on the 403 itself", async () => {
    const { client, provider, transport } = await connectV1(mcp.url);
    provider.saved = { ...provider.saved, refresh_token: undefined };
    const firstCode = provider.code;
    const write = creates(client, "Stepped up (v1, no refresh)");
    await expect(write()).rejects.toBeInstanceOf(UnauthorizedV1);
    expect(provider.code).not.toBe(firstCode);
    await transport.finishAuth(provider.code!);
    expect(provider.saved.scope).toBe("api");
    expect((await write()).isError).toBeFalsy();
    await client.close();
  });
});
