import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { TOOLSETS } from "../src/tools/index.js";
import { APP_ID, type Forge, forgeCallsSince, forgeLogSeq, seedApp, startForge } from "./forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "./helpers.js";

/** /mcp: bearer verification against the forge, the tools, read-only mode and toolsets. */

type ToolResult = { isError?: boolean; content: Array<{ text: string }> };

async function connect(base: string, token: string) {
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

const rpc = (base: string, token?: string) =>
  fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });

describe("/mcp with forge OAuth tokens", () => {
  let forge: Forge;
  let mcp: RunningForgeMcp;
  let readOnly: RunningForgeMcp;
  let usersOnly: RunningForgeMcp;

  beforeAll(async () => {
    forge = await startForge();
    const env = { FORGE_MCP_OAUTH: "true", FORGE_OAUTH_APP_ID: APP_ID, FORGE_API_URL: forge.apiUrl };
    mcp = await startForgeMcp(env);
    readOnly = await startForgeMcp({ ...env, FORGE_READ_ONLY: "true" });
    usersOnly = await startForgeMcp({ ...env, FORGE_TOOLSETS: "users" });
    await seedApp(forge, [`${mcp.url}/callback`]);
    await forge.seed({
      tokens: [
        { token: "tok-good", application: APP_ID, user: "alice", scopes: ["api"] },
        { token: "tok-read", application: APP_ID, user: "alice", scopes: ["read_api"] },
        { token: "tok-foreign", application: "sim-forge-app", user: "alice", scopes: ["api"] },
        { token: "tok-revoked", application: APP_ID, user: "alice", scopes: ["api"], revoked: true },
      ],
    });
  });
  afterAll(async () => {
    await Promise.all([mcp, readOnly, usersOnly].map((m) => m?.close()));
    await forge?.close();
  });

  it("401 without a token, with WWW-Authenticate naming the protected-resource metadata", async () => {
    const r = await rpc(mcp.url);
    expect(r.status).toBe(401);
    const www = r.headers.get("www-authenticate")!;
    expect(www).toMatch(/^Bearer /);
    expect(www).toContain(`resource_metadata="${mcp.url}/.well-known/oauth-protected-resource/mcp"`);
    const prm = (await (await fetch(`${mcp.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<
      string,
      unknown
    >;
    expect(prm).toMatchObject({ resource: `${mcp.url}/mcp`, authorization_servers: [`${mcp.url}/`] });
    const root = (await (await fetch(`${mcp.url}/.well-known/oauth-protected-resource`)).json()) as Record<
      string,
      unknown
    >;
    expect(root).toEqual(prm);
    const as = (await (await fetch(`${mcp.url}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(as).toMatchObject({
      issuer: `${mcp.url}/`,
      code_challenge_methods_supported: ["S256"],
      registration_endpoint: `${mcp.url}/register`,
    });
  });

  const rejected: Array<[string, string, number, string]> = [
    ["a token issued to another forge application", "tok-foreign", 401, "invalid_token"],
    ["a revoked token", "tok-revoked", 401, "invalid_token"],
    ["an unknown token", "made-up", 401, "invalid_token"],
    ["a token without the api scope", "tok-read", 403, "insufficient_scope"],
  ];
  it.each(rejected)("rejects %s", async (_n, token, status, error) => {
    const r = await rpc(mcp.url, token);
    expect(r.status).toBe(status);
    expect(((await r.json()) as { error: string }).error).toBe(error);
  });

  it("remembers a rejected token briefly: repeating it costs the forge one call", async () => {
    const before = mcp.server.verifier!.forgeCalls;
    for (let i = 0; i < 4; i++) expect((await rpc(mcp.url, "made-up-repeated")).status).toBe(401);
    expect((await rpc(mcp.url, "tok-foreign")).status).toBe(401);
    expect(mcp.server.verifier!.forgeCalls - before).toBe(1);
  });

  it("hashes and looks up a request's token once: the verify budget and the bearer check share it", async () => {
    const lookup = vi.spyOn(mcp.server.verifier!, "lookup");
    try {
      // one refused for its scope, one unknown: cached or not, each request looks its token up once
      expect((await rpc(mcp.url, "tok-read")).status).toBe(403);
      expect((await rpc(mcp.url, "made-up-looked-up-once")).status).toBe(401);
      expect(lookup).toHaveBeenCalledTimes(2);
    } finally {
      lookup.mockRestore();
    }
  });

  it("bounds the forge calls one source can cause with unknown tokens (429, Retry-After), not the cached ones", async () => {
    const env = {
      FORGE_MCP_OAUTH: "true",
      FORGE_OAUTH_APP_ID: APP_ID,
      FORGE_API_URL: forge.apiUrl,
      MCP_TOKEN_VERIFY_RATE_LIMIT_PER_MINUTE: "3",
    };
    const bounded = await startForgeMcp(env);
    try {
      expect((await rpc(bounded.url, "tok-good")).status).toBe(200);
      const before = bounded.server.verifier!.forgeCalls;
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 5; i++) {
        const r = await rpc(bounded.url, `random-${i}`);
        statuses.push(r.status);
        if (r.status === 429) retryAfter = r.headers.get("retry-after");
      }
      expect(statuses).toEqual([401, 401, 429, 429, 429]);
      expect(Number(retryAfter)).toBeGreaterThan(0);
      expect(bounded.server.verifier!.forgeCalls - before).toBe(2);
      // a token verified before, and one rejected before, still answer from the caches
      expect((await rpc(bounded.url, "tok-good")).status).toBe(200);
      expect((await rpc(bounded.url, "random-0")).status).toBe(401);
    } finally {
      await bounded.close();
    }
  });

  // RFC 7235 §2.1: the auth-scheme is case-insensitive, so the bearer check accepts every row; the
  // budget must count every row too, or random tokens under `bearer` reach the forge unbounded.
  it.each(["Bearer", "bearer", "BEARER", "BeArEr"])(
    "the token-check budget counts the scheme written %s: past it, 429 with no forge call",
    async (scheme) => {
      const bounded = await startForgeMcp({
        FORGE_MCP_OAUTH: "true",
        FORGE_OAUTH_APP_ID: APP_ID,
        FORGE_API_URL: forge.apiUrl,
        MCP_TOKEN_VERIFY_RATE_LIMIT_PER_MINUTE: "3",
      });
      try {
        const since = await forgeLogSeq(forge);
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) {
          const r = await fetch(`${bounded.url}/mcp`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              authorization: `${scheme} random-${scheme}-${i}`,
            },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
          });
          statuses.push(r.status);
        }
        expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
        expect(await forgeCallsSince(forge, since, "/oauth/token/info")).toBe(3);
      } finally {
        await bounded.close();
      }
    },
  );

  it("calls tools with a verified token, verifying it at the forge once for many requests", async () => {
    const before = mcp.server.verifier!.forgeCalls;
    const client = await connect(mcp.url, "tok-good");
    for (let i = 0; i < 5; i++) {
      const r = (await client.callTool({ name: "whoami", arguments: {} })) as ToolResult;
      expect(JSON.parse(r.content[0]!.text).username).toBe("alice");
    }
    expect(mcp.server.verifier!.forgeCalls - before).toBe(1);
    await client.close();
  });

  it("paginates list tools with the forge's page headers", async () => {
    const client = await connect(mcp.url, "tok-good");
    const r = (await client.callTool({
      name: "list_users",
      arguments: { per_page: 1, page: 1 },
    })) as ToolResult;
    const body = JSON.parse(r.content[0]!.text);
    expect(body.items).toHaveLength(1);
    // the next page in one field (read results are slim: src/tools/results.ts)
    expect(body).toMatchObject({ next_page: 2 });
    await client.close();
  });

  it("turns a forge error into a tool error with the forge's message and no token", async () => {
    const client = await connect(mcp.url, "tok-good");
    const r = (await client.callTool({
      name: "get_project",
      arguments: { project_id: "no/such-project" },
    })) as ToolResult;
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/Forge error 404: 404/);
    expect(r.content[0]!.text).not.toContain("tok-good");
    await client.close();
  });

  it("rejects invalid tool input through the zod schema", async () => {
    const client = await connect(mcp.url, "tok-good");
    const r = (await client.callTool({ name: "list_users", arguments: { per_page: 1000 } })) as ToolResult;
    expect(r.isError).toBe(true);
    await client.close();
  });

  it("FORGE_READ_ONLY=true registers no write tools and accepts read_api tokens", async () => {
    const client = await connect(readOnly.url, "tok-read");
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("list_issues");
    expect(names).not.toContain("create_issue");
    expect(names).not.toContain("approve_merge_request");
    await client.close();
    const full = await connect(mcp.url, "tok-good");
    const all = (await full.listTools()).tools.map((t) => t.name);
    expect(all).toContain("create_issue");
    expect(all.length).toBeGreaterThan(names.length);
    await full.close();
  });

  it("FORGE_TOOLSETS selects the tool areas", async () => {
    const client = await connect(usersOnly.url, "tok-good");
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(
      [...TOOLSETS.users.map((t) => t.name), "search_tools", "discover_tools"].sort(),
    );
    await client.close();
  });

  it("answers GET /mcp with 405 (stateless Streamable HTTP)", async () => {
    expect((await fetch(`${mcp.url}/mcp`, { headers: { authorization: "Bearer tok-good" } })).status).toBe(
      405,
    );
  });
});

describe("an edge cache that strips Authorization on /oauth/*", () => {
  let forge: Forge;
  let plain: RunningForgeMcp;
  let fallback: RunningForgeMcp;
  beforeAll(async () => {
    forge = await startForge();
    const env = { FORGE_MCP_OAUTH: "true", FORGE_OAUTH_APP_ID: APP_ID, FORGE_API_URL: forge.apiUrl };
    plain = await startForgeMcp(env);
    fallback = await startForgeMcp({ ...env, FORGE_TOKEN_INFO_QUERY_FALLBACK: "true" });
    await seedApp(forge, [`${plain.url}/callback`]);
    await forge.seed({
      edgeCache: true,
      tokens: [{ token: "tok-edge", application: APP_ID, user: "alice", scopes: ["api"] }],
    });
  });
  afterAll(async () => {
    await plain?.close();
    await fallback?.close();
    await forge?.close();
  });

  it("rejects valid tokens by default, and accepts them with FORGE_TOKEN_INFO_QUERY_FALLBACK=true", async () => {
    expect((await rpc(plain.url, "tok-edge")).status).toBe(401);
    expect((await rpc(fallback.url, "tok-edge")).status).toBe(200);
    expect((await rpc(fallback.url, "tok-unknown")).status).toBe(401);
  });
});
