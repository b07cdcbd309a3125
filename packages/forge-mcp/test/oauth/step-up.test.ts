import { UnauthorizedError as UnauthorizedV2 } from "@modelcontextprotocol/client";
import { auth, UnauthorizedError as UnauthorizedV1 } from "@modelcontextprotocol/sdk/client/auth.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_CB, type Forge, oauthEnv, seedApp, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, SIGN_IN_MODES, startForgeMcp, testClock } from "../helpers.js";
import { connectV1, connectV2 } from "../sdk-clients.js";

/**
 * Scopes in the challenge and step-up per tool (docs/forge-mcp-oauth.md §12), with the official
 * clients against the forge simulator, in the three server modes.
 */

const modes = SIGN_IN_MODES;

type ToolResult = { isError?: boolean; content: Array<{ text: string }> };

/** The step-up challenge: 403 insufficient_scope naming api and the metadata URL, and its body. */
async function expectStepUp403(r: Response, mcpUrl: string) {
  expect(r.status).toBe(403);
  expect(r.headers.get("www-authenticate")).toBe(
    `Bearer error="insufficient_scope", error_description="The tool needs more access", scope="api", resource_metadata="${mcpUrl}/.well-known/oauth-protected-resource/mcp"`,
  );
  expect(await r.json()).toEqual({
    error: "insufficient_scope",
    error_description: "The tool needs more access",
  });
}

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
    await expectStepUp403(r, mcp.url);
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

/**
 * Step-up under MCP 2026-07-28 (src/mcp/rev2026.ts, docs/forge-mcp.md "Step-up under 2026-07-28"):
 * a writing tool called with a read-only token is asked about in an input_required result (a
 * form naming the scope, and a sealed requestState); once the person agrees, the retry is the
 * same 403 insufficient_scope as under 2025, on which the client's authorization layer steps up.
 * A client that cannot be asked in a form, and every 2025 client, gets the 403 at once.
 */
describe.each(modes.filter(([m]) => m !== "stateless proxy"))(
  "step-up under MCP 2026-07-28, %s mode",
  (mode, extra) => steppingUp2026(mode, extra, false),
);
describe("step-up under MCP 2026-07-28, stateless proxy mode", () => {
  const [mode, extra] = modes.find(([m]) => m === "stateless proxy")!;
  steppingUp2026(mode, extra, true);
});

function steppingUp2026(mode: string, extra: Record<string, string>, everyRow: boolean) {
  let forge: Forge;
  let mcp: RunningForgeMcp;
  const clock = testClock();
  const FORM = { elicitation: { form: {} } };

  beforeAll(async () => {
    forge = await startForge();
    mcp = await startForgeMcp(oauthEnv(forge, { FORGE_MCP_STEP_UP: "true", ...extra }), { now: clock.now });
    await seedApp(forge, mode === "passthrough" ? [CLIENT_CB] : [`${mcp.url}/callback`]);
  });
  afterAll(async () => {
    await mcp?.close();
    await forge?.close();
  });

  const note = (title: string) => ({
    name: "create_issue",
    arguments: { project_id: "acme/widgets", title },
  });
  /** How many issues of this title the forge has (asked of the forge itself). */
  const issues = async (title: string) => {
    const r = await fetch(
      `${forge.apiUrl}/projects/acme%2Fwidgets/issues?search=${encodeURIComponent(title)}`,
      {
        headers: { "private-token": "sim-forge-pat" },
      },
    );
    return ((await r.json()) as Array<{ title: string }>).filter((i) => i.title === title).length;
  };

  /** A 2026-07-28 tools/call as the v2 client sends it, with this token and these params. */
  const call2026 = (token: string, params: Record<string, unknown>, capabilities: object = FORM) =>
    fetch(`${mcp.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": String(params.name),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
          },
        },
      }),
    });

  /** A read-only token of the user (signed in once per user: the rows only read it). */
  const tokens = new Map<string, Promise<string>>();
  const readOnlyToken = (user = "alice"): Promise<string> => {
    let t = tokens.get(user);
    if (!t) {
      t = signIn(user);
      tokens.set(user, t);
    }
    return t;
  };
  async function signIn(user: string): Promise<string> {
    await forge.seed({ signedInUser: user });
    const { client, provider } = await connectV2(mcp.url, { revision: "2026" });
    await client.close();
    await forge.seed({ signedInUser: "alice" });
    expect(provider.saved.scope).toBe("read_api");
    return provider.saved.access_token;
  }

  it("v2 client 2.4.0 at 2026-07-28: asked in its elicitation handler, steps up on the 403 of the retry, and the write runs", async () => {
    const asked: Array<Record<string, any>> = [];
    const { client, provider, transport } = await connectV2(mcp.url, {
      revision: "2026",
      capabilities: FORM,
      setup: (c) =>
        c.setRequestHandler("elicitation/create", async (r) => {
          asked.push(r.params as Record<string, any>);
          return { action: "accept", content: {} };
        }),
    });
    expect(client.getNegotiatedProtocolVersion?.()).toBe("2026-07-28");
    const firstCode = provider.code;
    const write = () => client.callTool(note("Stepped up (2026)")) as Promise<ToolResult>;
    // asked in the result, agreed, retried: the 403 sends the client through /authorize again
    await expect(write()).rejects.toBeInstanceOf(UnauthorizedV2);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain("create_issue");
    expect(asked[0]!.message).toContain("scope api");
    expect(provider.code).not.toBe(firstCode);
    expect(await issues("Stepped up (2026)")).toBe(0);
    await transport.finishAuth(provider.callbackParams);
    expect(provider.saved.scope.split(" ").sort()).toEqual(["api", "read_api"]);
    const done = await write();
    expect(done.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(await issues("Stepped up (2026)")).toBe(1);
    await client.close();
  });

  // the rows below are the same in every sign-in mode: they run in the stateless one, whose
  // requestState is sealed with the secret every replica shares
  if (!everyRow) return;
  it("v2 client at 2026-07-28, the person declines: a tool error, no sign-in, no forge call", async () => {
    const { client, provider } = await connectV2(mcp.url, {
      revision: "2026",
      capabilities: FORM,
      setup: (c) => c.setRequestHandler("elicitation/create", async () => ({ action: "decline" })),
    });
    const firstCode = provider.code;
    const r = (await client.callTool(note("Declined (2026)"))) as ToolResult;
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/create_issue was not run: it needs the scope api/);
    expect(provider.code).toBe(firstCode);
    expect(await issues("Declined (2026)")).toBe(0);
    await client.close();
  });

  it.each([
    ["v2 client at 2026-07-28 without elicitation", "v2"],
    ["v1 client 1.32 at 2025-11-25 with form elicitation", "v1"],
  ] as const)("%s: the 403 at once, as before", async (_name, which) => {
    const asked: unknown[] = [];
    const setup = (c: { setRequestHandler(m: any, h: any): void }) =>
      c.setRequestHandler(which === "v1" ? ElicitRequestSchema : "elicitation/create", async (r: unknown) => {
        asked.push(r);
        return { action: "accept", content: {} };
      });
    const { client } =
      which === "v1"
        ? await connectV1(mcp.url, { capabilities: FORM, setup })
        : await connectV2(mcp.url, { revision: "2026" });
    const write = client.callTool(note(`At once (${which})`));
    if (which === "v1") await expect(write).rejects.toThrow(/403 after trying upscoping/);
    else await expect(write).rejects.toBeInstanceOf(UnauthorizedV2);
    expect(asked).toHaveLength(0);
    expect(await issues(`At once (${which})`)).toBe(0);
    await client.close();
  });

  /** Round one with a read-only token: the input_required result. */
  async function asked(token: string, title: string) {
    const r = await call2026(token, note(title));
    expect(r.status).toBe(200);
    return ((await r.json()) as { result: Record<string, any> }).result;
  }

  it("round one: input_required with the form and an opaque state; nothing reaches the forge", async () => {
    const token = await readOnlyToken();
    const r = await asked(token, "Round one");
    expect(r.resultType).toBe("input_required");
    expect(Object.keys(r.inputRequests)).toEqual(["step-up"]);
    expect(r.inputRequests["step-up"].method).toBe("elicitation/create");
    expect(r.inputRequests["step-up"].params.mode).toBe("form");
    expect(typeof r.requestState).toBe("string");
    expect(r.requestState).not.toContain(token);
    expect(await issues("Round one")).toBe(0);
  });

  const accept = { "step-up": { action: "accept", content: {} } };
  it.each<[string, (s: { state: string; alice: string; bob: () => Promise<string> }) => Promise<Response>]>([
    [
      "the state replayed with another user's token: refused",
      async ({ state, bob }) =>
        call2026(await bob(), { ...note("Attack"), inputResponses: accept, requestState: state }),
    ],
    [
      "a tampered state: refused",
      async ({ state, alice }) =>
        call2026(alice, {
          ...note("Attack"),
          inputResponses: accept,
          requestState: `${state.slice(0, -4)}${state.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`,
        }),
    ],
    [
      "an expired state: refused",
      async ({ state, alice }) => {
        clock.advance(11 * 60_000);
        return call2026(alice, { ...note("Attack"), inputResponses: accept, requestState: state });
      },
    ],
    [
      "the state of another call (other arguments): refused",
      async ({ state, alice }) =>
        call2026(alice, { ...note("Another"), inputResponses: accept, requestState: state }),
    ],
  ])("%s", async (_name, retry) => {
    const alice = await readOnlyToken();
    const first = await asked(alice, "Attack");
    const r = await retry({ state: first.requestState, alice, bob: () => readOnlyToken("bob") });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toMatch(/requestState/);
    expect(await issues("Attack")).toBe(0);
    expect(await issues("Another")).toBe(0);
  });

  it("agreed, same token: the retry is today's 403 insufficient_scope; the same state with the stepped-up token of the same user runs the call", async () => {
    const alice = await readOnlyToken();
    const first = await asked(alice, "Resent");
    const retry = { ...note("Resent"), inputResponses: accept, requestState: first.requestState };
    const r = await call2026(alice, retry);
    await expectStepUp403(r, mcp.url);
    // a client whose authorization layer stepped up by itself sends the same request again
    const { client, provider, transport } = await connectV2(mcp.url, { revision: "2026" });
    await expect(client.callTool(note("Stepping up"))).rejects.toBeInstanceOf(UnauthorizedV2);
    await transport.finishAuth(provider.callbackParams);
    await client.close();
    const again = await call2026(provider.saved.access_token, retry);
    const done = ((await again.json()) as { result: Record<string, any> }).result;
    expect(done.resultType).toBe("complete");
    expect(done.isError).toBeFalsy();
    expect(await issues("Resent")).toBe(1);
  });
}
