import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "../helpers.js";

/**
 * MCP 2026-07-28 on /mcp (src/mcp/rev2026.ts): the official v2 client negotiates it and calls
 * tools with a personal access token and with REMOTE_AUTHORIZATION; the wire's own rules row by
 * row (server/discover, ttlMs/cacheScope, resultType, the header checks and their error codes);
 * a destructive tool's confirmation as an input_required result with a sealed requestState; and
 * subscriptions/listen for tools/list_changed.
 */

const V = "2026-07-28";
const CAPS = { elicitation: { form: {} } };
type Json = Record<string, any>;

let seq = 0;
/** One 2026-07-28 request as the spec has a client send it; `headers`/`meta` override. */
function post(
  mcp: RunningForgeMcp,
  method: string,
  params: Json = {},
  o: { headers?: Record<string, string | undefined>; meta?: Json; token?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": V,
    "mcp-method": method,
    ...(method === "tools/call" && typeof params.name === "string" ? { "mcp-name": params.name } : {}),
    ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
  };
  for (const [k, v] of Object.entries(o.headers ?? {}))
    if (v === undefined) delete headers[k];
    else headers[k] = v;
  const body = o.body ?? {
    jsonrpc: "2.0",
    id: ++seq,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": CAPS,
        ...o.meta,
      },
    },
  };
  return fetch(`${mcp.url}/mcp`, { method: "POST", headers, body: JSON.stringify(body) });
}

async function json(r: Response): Promise<{ status: number; body: Json; session: string | null }> {
  return { status: r.status, body: (await r.json()) as Json, session: r.headers.get("mcp-session-id") };
}

async function v2Client(mcp: RunningForgeMcp, headers: Record<string, string>, capabilities: Json = {}) {
  const client = new ClientV2(
    { name: "rev2026", version: "1.0.0" },
    { capabilities, versionNegotiation: { mode: "auto" } },
  );
  await client.connect(new TransportV2(new URL(`${mcp.url}/mcp`), { requestInit: { headers } }));
  return client;
}

describe("MCP 2026-07-28 on /mcp", () => {
  let forge: Forge;
  let pat: RunningForgeMcp;
  let remote: RunningForgeMcp;
  beforeAll(async () => {
    forge = await startForge();
    pat = await startForgeMcp({ FORGE_TOKEN: "sim-forge-pat", FORGE_API_URL: forge.apiUrl });
    remote = await startForgeMcp({ REMOTE_AUTHORIZATION: "true", FORGE_API_URL: forge.apiUrl });
  });
  afterAll(async () => {
    await pat?.close();
    await remote?.close();
    await forge?.close();
  });

  it.each([
    ["a personal access token (FORGE_TOKEN)", () => pat, {}],
    ["REMOTE_AUTHORIZATION", () => remote, { authorization: "Bearer sim-forge-pat" }],
  ])("the official v2 client negotiates 2026-07-28 and calls a tool: %s", async (_, mcp, headers) => {
    const client = await v2Client(mcp(), headers as Record<string, string>);
    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getNegotiatedProtocolVersion()).toBe(V);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("whoami");
    const r = (await client.callTool({ name: "whoami", arguments: {} })) as Json;
    expect(r.isError).toBeFalsy();
    expect(JSON.parse(r.content[0].text).username).toBe("alice");
    await client.close();
  });

  it("server/discover names 2026-07-28 and the 2025 revisions, with no session and no initialize", async () => {
    const { status, body, session } = await json(await post(pat, "server/discover"));
    expect(status).toBe(200);
    expect(session).toBeNull();
    expect(body.result).toMatchObject({
      resultType: "complete",
      capabilities: { tools: { listChanged: true } },
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "forge-mcp" } },
    });
    expect(body.result.supportedVersions).toEqual(
      expect.arrayContaining([V, "2025-11-25", "2025-06-18", "2025-03-26"]),
    );
  });

  it("tools/list: resultType, ttlMs and a private cacheScope, the same order every time, no execution member", async () => {
    const a = (await json(await post(pat, "tools/list"))).body.result;
    const b = (await json(await post(pat, "tools/list"))).body.result;
    expect(a).toMatchObject({ resultType: "complete", cacheScope: "private" });
    expect(Number.isInteger(a.ttlMs) && a.ttlMs >= 0).toBe(true);
    expect(a.tools.map((t: Json) => t.name)).toEqual(b.tools.map((t: Json) => t.name));
    expect(a.tools.at(-1).name).toBe("discover_tools");
    expect(a.tools.some((t: Json) => "execution" in t)).toBe(false);
  });

  it("tools/call: a result carries resultType complete", async () => {
    const { body } = await json(await post(pat, "tools/call", { name: "get_current_user", arguments: {} }));
    expect(body.result.resultType).toBe("complete");
    expect(JSON.parse(body.result.content[0].text).username).toBe("alice");
  });

  const call = { name: "get_current_user", arguments: {} };
  it.each<[string, () => Promise<Response>, number, number]>([
    [
      "an unknown tool is a JSON-RPC error",
      () => post(pat, "tools/call", { name: "no_such_tool" }),
      200,
      -32602,
    ],
    [
      "Mcp-Method disagreeing with the body",
      () => post(pat, "tools/call", call, { headers: { "mcp-method": "tools/list" } }),
      400,
      -32020,
    ],
    [
      "Mcp-Method missing",
      () => post(pat, "tools/list", {}, { headers: { "mcp-method": undefined } }),
      400,
      -32020,
    ],
    [
      "Mcp-Name disagreeing with the tool",
      () => post(pat, "tools/call", call, { headers: { "mcp-name": "whoami" } }),
      400,
      -32020,
    ],
    [
      "Mcp-Name missing",
      () => post(pat, "tools/call", call, { headers: { "mcp-name": undefined } }),
      400,
      -32020,
    ],
    [
      "Mcp-Name in malformed base64",
      () => post(pat, "tools/call", call, { headers: { "mcp-name": "=?base64?!!!?=" } }),
      400,
      -32020,
    ],
    [
      "MCP-Protocol-Version disagreeing with _meta",
      () => post(pat, "tools/list", {}, { headers: { "mcp-protocol-version": "2025-11-25" } }),
      400,
      -32020,
    ],
    [
      "MCP-Protocol-Version missing",
      () => post(pat, "tools/list", {}, { headers: { "mcp-protocol-version": undefined } }),
      400,
      -32020,
    ],
    [
      "the 2026 header on a body without the _meta envelope",
      () =>
        post(pat, "tools/list", {}, { body: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} } }),
      400,
      -32602,
    ],
    [
      "no client capabilities in _meta",
      () =>
        post(pat, "tools/list", {}, { meta: { "io.modelcontextprotocol/clientCapabilities": undefined } }),
      400,
      -32602,
    ],
    [
      "a revision this server does not know",
      () =>
        post(
          pat,
          "tools/list",
          {},
          {
            headers: { "mcp-protocol-version": "2027-01-01" },
            meta: { "io.modelcontextprotocol/protocolVersion": "2027-01-01" },
          },
        ),
      400,
      -32022,
    ],
    [
      "initialize under the 2026 header",
      () =>
        post(
          pat,
          "initialize",
          {},
          {
            body: {
              jsonrpc: "2.0",
              id: 1,
              method: "initialize",
              params: {
                protocolVersion: "2025-11-25",
                capabilities: {},
                clientInfo: { name: "x", version: "1" },
              },
            },
          },
        ),
      400,
      -32020,
    ],
    [
      "a batch with a 2026 request (the revision has none)",
      () =>
        post(
          pat,
          "tools/list",
          {},
          {
            headers: { "mcp-protocol-version": undefined, "mcp-method": undefined },
            body: [
              {
                jsonrpc: "2.0",
                id: 1,
                method: "tools/list",
                params: { _meta: { "io.modelcontextprotocol/protocolVersion": V } },
              },
            ],
          },
        ),
      400,
      -32600,
    ],
    ["ping, which 2026-07-28 removed", () => post(pat, "ping"), 200, -32601],
  ])("%s: answered with its HTTP status and error code", async (_, send, status, code) => {
    const r = await json(await send());
    expect(r.status).toBe(status);
    expect(r.body.error?.code).toBe(code);
    if (code === -32022) expect(r.body.error.data.supported).toContain(V);
  });

  it("an Mcp-Name in base64 with surrounding whitespace is the tool's name", async () => {
    const name = ` =?base64?${Buffer.from("get_current_user").toString("base64")}?= `;
    const { status, body } = await json(
      await post(pat, "tools/call", call, { headers: { "mcp-name": name } }),
    );
    expect(status).toBe(200);
    expect(body.result.resultType).toBe("complete");
  });

  it("a 2025 client on the same /mcp still gets the 2025 answer (initialize, no resultType)", async () => {
    const init = await fetch(`${pat.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "old", version: "1" },
        },
      }),
    });
    expect(init.status).toBe(200);
    const list = await fetch(`${pat.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
    });
    const result = ((await list.json()) as Json).result;
    expect(result.resultType).toBeUndefined();
    expect(result.ttlMs).toBeUndefined();
    expect(result.tools[0].execution).toEqual({ taskSupport: "forbidden" });
  });
});
