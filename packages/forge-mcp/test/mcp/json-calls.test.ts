import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, JSONRPCRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Catalogue, CatalogueTool, ToolResult } from "../../src/mcp/catalogue.js";
import { JsonCallTransport, simpleToolCall, ToolDispatch } from "../../src/mcp/json-calls.js";
import { createMcpServer } from "../../src/mcp/sdk-server.js";
import { type Forge, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "../helpers.js";

/**
 * /mcp answers a plain tools/call on its own JSON path (src/mcp/json-calls.ts) and everything else
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
    rule: "an unknown tool is JSON-RPC -32602 (not a tool result: the tool never ran)",
    body: call(2, "no_such_tool"),
    status: 200,
    answer: { id: 2, error: { code: -32602, message: "Unknown tool: no_such_tool" } },
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

  it("a simple call is answered by ToolDispatch, with no server taken from the pool; invalid arguments by a pooled server", async () => {
    await post(call(40)); // the dispatcher's server is built at the first simple call
    const before = mcp.server.mcpPool();
    expect((await post(call(41))).status).toBe(200);
    // answered by the lane (src/mcp-lane.ts) and by ToolDispatch, and no server left the pool
    expect(mcp.server.mcpPool()).toEqual({ ...before, direct: before.direct + 1, lane: before.lane + 1 });
    const invalid = await post(
      call(42, "create_issue_note", { project_id: "acme/widgets", issue_iid: "x", body: "b" }),
    );
    expect(await invalid.json()).toMatchObject({ id: 42, result: { isError: true } });
    expect(mcp.server.mcpPool().direct).toBe(before.direct + 1);
  });

  it("the result is compact JSON: the forge's user, unindented", async () => {
    const r = (await (await post(call(20))).json()) as { result: { content: Array<{ text: string }> } };
    const text = r.result.content[0]!.text;
    expect(text).not.toMatch(/\n/);
    expect(JSON.parse(text)).toMatchObject({ username: expect.any(String) });
  });

  it("a caller that goes away mid-call leaves the next calls answered, and its server pooled again", async () => {
    // a call with _meta is not a simple one: a pooled server answers it, not ToolDispatch
    const pooled = (id: number) => ({
      ...call(id),
      params: { ...call(id).params, _meta: { progressToken: id } },
    });
    await post(pooled(29)); // a server waits in the pool
    const before = mcp.server.mcpPool();
    expect(before.idle).toBeGreaterThan(0);
    await fetch(`${forge.origin}/_sim/faults`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ latencyMs: 300 }),
    });
    try {
      const gone = await post(pooled(30), {}, AbortSignal.timeout(50)).catch((e: Error) => e);
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
    const { built, idle } = mcp.server.mcpPool();
    expect({ built, idle }).toEqual({ built: before.built, idle: before.idle });
    // the same id again, on that server: its own answer, not the abandoned call's
    expect(await (await post(pooled(30))).json()).toMatchObject({
      id: 30,
      result: { content: [{ type: "text" }] },
    });
    const answers = await Promise.all([31, 32, 33].map(async (id) => (await post(pooled(id))).json()));
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

/**
 * ToolDispatch against the SDK: every simple call it answers, it answers as the SDK's McpServer
 * serving the same catalogue answers the same request through its protocol layer (compared as
 * parsed JSON); every call it leaves (undefined) is one the SDK answers with an error of its own.
 * One row per case.
 */
describe("ToolDispatch answers as the SDK does, or leaves the call to it", () => {
  const text = (t: string): ToolResult => ({ content: [{ type: "text" as const, text: t }] });
  const annotations = {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  };
  const tool = (
    name: string,
    input: CatalogueTool["input"],
    handler: (args: Record<string, unknown>) => Promise<unknown>,
  ): CatalogueTool => ({
    name,
    toolset: "t",
    description: "d",
    input,
    annotations,
    handler: handler as CatalogueTool["handler"],
  });
  const tools = [
    tool("plain", { n: z.number().int() }, async ({ n }) => text(`n=${n}`)),
    tool("fails", {}, async () => {
      throw new Error("it broke");
    }),
    tool("throws-a-string", {}, async () => {
      throw "a string";
    }),
    tool("tool-error", {}, async () => ({ isError: true, ...text("refused") })),
    tool("rich", {}, async () => ({
      content: [{ type: "text" as const, text: "t", annotations: { priority: 1 } }],
      extra: 1,
    })),
    tool("bad-result", {}, async () => ({ content: "not a list" })),
    tool("strips", { keep: z.string().optional() }, async (args) => text(JSON.stringify(args))),
    tool("not-for-you", {}, async () => text("ran")),
  ];
  const catalogue: Catalogue = {
    tools: new Map(tools.map((t) => [t.name, t])),
    listed: () => tools,
    refusal: (name) => (name === "not-for-you" ? "not loaded" : undefined),
  };
  const rows: Array<{
    rule: string;
    name: string;
    args?: Record<string, unknown>;
    direct: boolean | "unknown";
  }> = [
    { rule: "a tool's result", name: "plain", args: { n: 3 }, direct: true },
    { rule: "a throw becomes a tool error with its message", name: "fails", direct: true },
    { rule: "a thrown non-Error becomes a tool error with its text", name: "throws-a-string", direct: true },
    { rule: "a tool error returned as such", name: "tool-error", direct: true },
    { rule: "a result beyond plain text blocks, as the SDK's schema reads it", name: "rich", direct: true },
    { rule: "a result the SDK's schema refuses is its -32602", name: "bad-result", direct: true },
    {
      rule: "arguments the schema does not name are dropped",
      name: "strips",
      args: { keep: "k", drop: 1 },
      direct: true,
    },
    { rule: "no arguments at all are an empty object", name: "strips", direct: true },
    {
      rule: "a tool the catalogue refuses this caller: its refusal as a tool error",
      name: "not-for-you",
      direct: true,
    },
    { rule: "invalid arguments: left to the SDK", name: "plain", args: { n: "x" }, direct: false },
    { rule: "an unknown tool: JSON-RPC -32602, answered here", name: "nope", direct: "unknown" },
    { rule: "an inherited property name is no tool", name: "constructor", direct: "unknown" },
  ];
  let dispatch: ToolDispatch;
  let transport: JsonCallTransport;
  beforeAll(async () => {
    dispatch = new ToolDispatch(catalogue);
    transport = new JsonCallTransport();
    await createMcpServer(catalogue).connect(transport);
  });

  it.each(rows)("$rule", async ({ name, args, direct }) => {
    const call = { id: 9, name, args };
    const request = {
      jsonrpc: "2.0" as const,
      id: 9,
      method: "tools/call",
      params: args === undefined ? { name } : { name, arguments: args },
    };
    const answered = dispatch.answered;
    const mine = await dispatch.call(call, { signal: new AbortController().signal });
    if (direct === "unknown") {
      expect(mine).toEqual({
        jsonrpc: "2.0",
        id: 9,
        error: { code: -32602, message: `Unknown tool: ${name}` },
      });
      expect(dispatch.answered).toBe(answered);
      return;
    }
    const sdk = await transport.call(request, {});
    if (!direct) {
      expect(mine).toBeUndefined();
      expect(dispatch.answered).toBe(answered);
      return;
    }
    expect(dispatch.answered).toBe(answered + 1);
    expect(JSON.parse(JSON.stringify(mine))).toEqual(JSON.parse(JSON.stringify(sdk)));
  });
});

describe("simpleToolCall: the calls ToolDispatch may take", () => {
  const base = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t", arguments: { a: 1 } } };
  const rows: Array<{ rule: string; body: unknown; simple: boolean }> = [
    { rule: "name and arguments", body: base, simple: true },
    { rule: "a string id", body: { ...base, id: "x" }, simple: true },
    { rule: "no arguments", body: { ...base, params: { name: "t" } }, simple: true },
    {
      rule: "a fractional id (JSON-RPC ids here are strings or integers)",
      body: { ...base, id: 1.5 },
      simple: false,
    },
    { rule: "a null id", body: { ...base, id: null }, simple: false },
    {
      rule: "no id (a notification)",
      body: { jsonrpc: "2.0", method: "tools/call", params: base.params },
      simple: false,
    },
    { rule: "another JSON-RPC version", body: { ...base, jsonrpc: "1.0" }, simple: false },
    { rule: "another method", body: { ...base, method: "tools/list" }, simple: false },
    { rule: "a member beyond the four", body: { ...base, extra: 1 }, simple: false },
    { rule: "_meta in params", body: { ...base, params: { ...base.params, _meta: {} } }, simple: false },
    { rule: "a task in params", body: { ...base, params: { ...base.params, task: {} } }, simple: false },
    {
      rule: "arguments that are a list",
      body: { ...base, params: { name: "t", arguments: [1] } },
      simple: false,
    },
    {
      rule: "arguments that are null",
      body: { ...base, params: { name: "t", arguments: null } },
      simple: false,
    },
    { rule: "a name that is not a string", body: { ...base, params: { name: 1 } }, simple: false },
    { rule: "params that are a list", body: { ...base, params: [] }, simple: false },
    { rule: "a batch", body: [base], simple: false },
  ];
  it.each(rows)("$rule", ({ body, simple }) => {
    expect(simpleToolCall(body) !== undefined).toBe(simple);
    // whatever it takes, the SDK's schemas take too
    if (simple)
      expect(
        CallToolRequestSchema.safeParse(body).success && JSONRPCRequestSchema.safeParse(body).success,
      ).toBe(true);
  });
});
