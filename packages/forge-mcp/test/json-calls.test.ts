import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JsonCallTransport } from "../src/json-calls.js";
import { type Forge, startForge } from "./forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "./helpers.js";

/**
 * /mcp answers a plain tools/call on its own JSON path (src/json-calls.ts) and everything else
 * through the SDK's Streamable HTTP transport: the wire is the same either way. One row per rule
 * of the transport (MCP 2025-06-18, "Streamable HTTP", and JSON-RPC 2.0 §5.1).
 */

const ACCEPT = "application/json, text/event-stream";
const call = (id: number | string, name = "whoami", args: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

interface Row {
  rule: string;
  headers?: Record<string, string>;
  body: unknown;
  status: number;
  /** what the answer's body must hold (toMatchObject), or null for none */
  answer: unknown;
}

const ROWS: Row[] = [
  {
    rule: "a tools/call is answered with its result as one JSON body",
    body: call(7),
    status: 200,
    answer: { jsonrpc: "2.0", id: 7, result: { content: [{ type: "text" }] } },
  },
  {
    rule: "a string id comes back as the same string",
    body: call("abc"),
    status: 200,
    answer: { jsonrpc: "2.0", id: "abc", result: { content: [{ type: "text" }] } },
  },
  {
    rule: "an unknown tool is a tool error inside a 200",
    body: call(2, "no_such_tool"),
    status: 200,
    answer: { id: 2, result: { isError: true } },
  },
  {
    rule: "a tool's invalid arguments are a tool error inside a 200",
    body: call(3, "create_issue_note", { project_id: "acme/widgets", issue_iid: "x", body: "b" }),
    status: 200,
    answer: { id: 3, result: { isError: true } },
  },
  {
    rule: "an unknown method is JSON-RPC -32601",
    body: { jsonrpc: "2.0", id: 4, method: "no/such", params: {} },
    status: 200,
    answer: { id: 4, error: { code: -32601 } },
  },
  {
    rule: "Accept must list text/event-stream as well: 406",
    headers: { accept: "application/json" },
    body: call(5),
    status: 406,
    answer: { error: { code: -32000 } },
  },
  {
    rule: "the body must be JSON: 415",
    headers: { "content-type": "text/plain" },
    body: call(6),
    status: 415,
    answer: { error: { code: -32000 } },
  },
  {
    rule: "an unsupported MCP-Protocol-Version: 400",
    headers: { "mcp-protocol-version": "1999-01-01" },
    body: call(8),
    status: 400,
    answer: { error: { code: -32000 } },
  },
  {
    rule: "a supported MCP-Protocol-Version is answered",
    headers: { "mcp-protocol-version": "2025-06-18" },
    body: call(9),
    status: 200,
    answer: { id: 9, result: { content: [{ type: "text" }] } },
  },
  {
    rule: "not a JSON-RPC message (jsonrpc 1.0): 400 -32700",
    body: { ...call(10), jsonrpc: "1.0" },
    status: 400,
    answer: { error: { code: -32700 } },
  },
  {
    rule: "a request with a member JSON-RPC does not define: 400 -32700",
    body: { ...call(11), extra: true },
    status: 400,
    answer: { error: { code: -32700 } },
  },
  {
    rule: "notifications only: 202 and no body",
    body: { jsonrpc: "2.0", method: "notifications/initialized" },
    status: 202,
    answer: null,
  },
  {
    rule: "a batch is answered with an array in the same order",
    body: [call(12), call(13)],
    status: 200,
    answer: [{ id: 12 }, { id: 13 }],
  },
  {
    rule: "initialize is answered with the server's info",
    body: {
      jsonrpc: "2.0",
      id: 14,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    },
    status: 200,
    answer: { id: 14, result: { serverInfo: { name: "forge-mcp" } } },
  },
];

describe("/mcp wire: the JSON path and the SDK's transport answer alike", () => {
  let forge: Forge;
  let mcp: RunningForgeMcp;
  beforeAll(async () => {
    forge = await startForge();
    mcp = await startForgeMcp({ FORGE_TOKEN: "sim-forge-pat", FORGE_API_URL: forge.apiUrl });
  });
  afterAll(async () => {
    await mcp?.close();
    await forge?.close();
  });
  const post = (body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
    fetch(`${mcp.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: ACCEPT, ...headers },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });

  it.each(ROWS)("$rule", async ({ headers, body, status, answer }) => {
    const r = await post(body, headers);
    expect(r.status).toBe(status);
    const text = await r.text();
    if (answer === null) return void expect(text).toBe("");
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(JSON.parse(text)).toMatchObject(answer as object);
  });

  it("the result is compact JSON: the forge's user, unindented", async () => {
    const r = (await (await post(call(20))).json()) as { result: { content: Array<{ text: string }> } };
    const text = r.result.content[0]!.text;
    expect(text).not.toMatch(/\n/);
    expect(JSON.parse(text)).toMatchObject({ username: expect.any(String) });
  });

  it("a caller that goes away mid-call leaves the next calls answered, and its server pooled again", async () => {
    await post(call(29)); // a server waits in the pool
    const before = mcp.server.mcpPool();
    expect(before.idle).toBeGreaterThan(0);
    await fetch(`${forge.origin}/_sim/faults`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ latencyMs: 300 }),
    });
    try {
      const gone = await post(call(30), {}, AbortSignal.timeout(50)).catch((e: Error) => e);
      expect(gone).toBeInstanceOf(Error);
    } finally {
      await fetch(`${forge.origin}/_sim/faults`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ latencyMs: 0 }),
      });
    }
    // the abandoned call's server comes back to the pool (while its forge call still runs), and
    // no server is built for it
    for (let i = 0; i < 100 && mcp.server.mcpPool().idle < before.idle; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(mcp.server.mcpPool()).toEqual(before);
    // the same id again, on that server: its own answer, not the abandoned call's
    expect(await (await post(call(30))).json()).toMatchObject({
      id: 30,
      result: { content: [{ type: "text" }] },
    });
    const answers = await Promise.all([31, 32, 33].map(async (id) => (await post(call(id))).json()));
    expect(answers).toMatchObject(
      [31, 32, 33].map((id) => ({ id, result: { content: [{ type: "text" }] } })),
    );
  });
});

describe("JsonCallTransport", () => {
  const request = (id: number) => ({
    jsonrpc: "2.0" as const,
    id,
    method: "tools/call",
    params: { name: "echo" },
  });

  async function connected(tool: () => Promise<unknown> = async () => {}) {
    const server = new McpServer({ name: "t", version: "1" });
    server.registerTool("echo", { description: "echo" }, async (extra) => {
      await extra.sendNotification({ method: "notifications/tools/list_changed" });
      await tool();
      return { content: [{ type: "text", text: "ok" }] };
    });
    const transport = new JsonCallTransport();
    await server.connect(transport);
    return { server, transport };
  }

  it("answers call after call on one connection, with the response and not the notifications sent meanwhile", async () => {
    const { transport } = await connected();
    for (const id of [1, 2, 3])
      expect(await transport.call(request(id), {})).toMatchObject({
        id,
        result: { content: [{ text: "ok" }] },
      });
  });

  it("carries one call at a time", async () => {
    let release: (() => void) | undefined;
    const { transport } = await connected(() => new Promise<void>((r) => (release = r)));
    const first = transport.call(request(1), {});
    expect(() => transport.call(request(2), {})).toThrow(/one call at a time/);
    for (let i = 0; i < 100 && !release; i++) await new Promise((r) => setTimeout(r, 1));
    release?.();
    expect(await first).toMatchObject({ id: 1 });
  });

  it("closing answers the call in flight with nothing, and aborts it", async () => {
    let signal: AbortSignal | undefined;
    const server = new McpServer({ name: "t", version: "1" });
    server.registerTool("echo", { description: "echo" }, async (extra) => {
      signal = extra.signal;
      await new Promise((r) => setTimeout(r, 50));
      return { content: [{ type: "text", text: "late" }] };
    });
    const transport = new JsonCallTransport();
    await server.connect(transport);
    const pending = transport.call(request(1), {});
    await new Promise((r) => setTimeout(r, 5));
    await server.close();
    expect(await pending).toBeUndefined();
    expect(signal?.aborted).toBe(true);
  });
});
