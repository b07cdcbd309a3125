import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, startForgeMcp, testClock } from "../helpers.js";

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

/** A 2025 client's initialize. */
const INITIALIZE_2025 = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "old", version: "1" } },
};

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
  /** A request naming `version` in its header and its envelope alike. */
  const unknownRevision = (method: string, version: string) =>
    post(
      pat,
      method,
      {},
      {
        headers: { "mcp-protocol-version": version },
        meta: { "io.modelcontextprotocol/protocolVersion": version },
      },
    );
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
    ["a revision this server does not know", () => unknownRevision("tools/list", "2027-01-01"), 400, -32022],
    [
      "a version name that is no revision at all",
      () => unknownRevision("server/discover", "v999.0.0"),
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
            body: INITIALIZE_2025,
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
    ["ping, which 2026-07-28 removed", () => post(pat, "ping"), 404, -32601],
    [
      "initialize with a 2026 envelope (the revision has no handshake)",
      () =>
        post(pat, "initialize", {
          protocolVersion: V,
          capabilities: {},
          clientInfo: { name: "x", version: "1" },
        }),
      404,
      -32601,
    ],
  ])("%s: answered with its HTTP status and error code", async (_, send, status, code) => {
    const r = await json(await send());
    expect(r.status).toBe(status);
    expect(r.body.error?.code).toBe(code);
    // the error answers the request's id (a batch has none to answer)
    if (code !== -32600) expect(typeof r.body.id).toBe("number");
    if (code === -32022) expect(r.body.error.data.supported).toContain(V);
  });

  it("a view's tool-name prefix: tools/list shows the prefixed names, and a call by one (Mcp-Name as sent) runs the tool", async () => {
    const headers = { "x-gitlab-mcp-server-tool-name-prefix": "gl_" };
    const list = (await json(await post(pat, "tools/list", {}, { headers }))).body.result;
    expect(list.tools.map((t: Json) => t.name)).toContain("gl_whoami");
    const r = (await json(await post(pat, "tools/call", { name: "gl_whoami", arguments: {} }, { headers })))
      .body;
    expect(r.result.resultType).toBe("complete");
    expect(JSON.parse(r.result.content[0].text).username).toBe("alice");
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
      body: JSON.stringify(INITIALIZE_2025),
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
  });
});

/**
 * A destructive tool's confirmation under 2026-07-28: the first call answers input_required with
 * the yes/no form and a requestState; the retry with the answer and that state runs it (or not).
 * The state is sealed to the caller's token, the tool and its arguments, and expires.
 */
describe("MCP 2026-07-28: confirming a destructive tool with input_required", () => {
  let forge: Forge;
  let mcp: RunningForgeMcp;
  const clock = testClock();
  const alice = "sim-forge-pat";
  const bob = "sim-forge-pat-bob";
  beforeAll(async () => {
    forge = await startForge();
    mcp = await startForgeMcp(
      { REMOTE_AUTHORIZATION: "true", FORGE_API_URL: forge.apiUrl },
      { now: clock.now },
    );
  });
  afterAll(async () => {
    await mcp?.close();
    await forge?.close();
  });

  const result = async (r: Promise<Response>) => (await json(await r)).body;
  async function newIssue(title: string): Promise<number> {
    const r = await result(
      post(
        mcp,
        "tools/call",
        { name: "create_issue", arguments: { project_id: "acme/widgets", title } },
        { token: alice },
      ),
    );
    expect(r.result.isError).toBeFalsy();
    return JSON.parse(r.result.content[0].text).iid;
  }
  const exists = async (iid: number) => {
    const r = await result(
      post(
        mcp,
        "tools/call",
        { name: "get_issue", arguments: { project_id: "acme/widgets", issue_iid: iid } },
        { token: alice },
      ),
    );
    return !r.result.isError;
  };
  const del = (iid: number) => ({
    name: "delete_issue",
    arguments: { project_id: "acme/widgets", issue_iid: iid },
  });

  it("asks with input_required: the form names the tool and target, the state is opaque, nothing ran", async () => {
    const iid = await newIssue("asked");
    const r = (await result(post(mcp, "tools/call", del(iid), { token: alice }))).result;
    expect(r.resultType).toBe("input_required");
    const [key, ask] = Object.entries(r.inputRequests as Record<string, Json>)[0]!;
    expect(key).toBeTruthy();
    expect(ask.method).toBe("elicitation/create");
    expect(ask.params.message).toContain("delete_issue");
    expect(ask.params.message).toContain(`issue_iid=${iid}`);
    expect(typeof r.requestState).toBe("string");
    expect(r.requestState).not.toContain("sim-forge");
    expect(await exists(iid)).toBe(true);
  });

  /** Round one, then the retry `retry` makes of its answer and state. */
  async function twoRounds(
    answer: Json,
    retry: (state: string) => { state: string; token: string } = (state) => ({ state, token: alice }),
  ) {
    const iid = await newIssue("to delete");
    const first = (await result(post(mcp, "tools/call", del(iid), { token: alice }))).result;
    const key = Object.keys(first.inputRequests)[0]!;
    const { state, token } = retry(first.requestState);
    const second = await result(
      post(
        mcp,
        "tools/call",
        { ...del(iid), inputResponses: { [key]: answer }, requestState: state },
        { token },
      ),
    );
    return { iid, second };
  }
  const yes = { action: "accept", content: { confirm: true } };

  it.each<
    [string, Json, ((s: string) => { state: string; token: string }) | undefined, "ran" | "refused" | "error"]
  >([
    ["confirmed: the tool runs", yes, undefined, "ran"],
    ["declined: a tool error, nothing runs", { action: "decline" }, undefined, "refused"],
    [
      "answered no: a tool error, nothing runs",
      { action: "accept", content: { confirm: false } },
      undefined,
      "refused",
    ],
    ["the state replayed by another token: refused", yes, (state) => ({ state, token: bob }), "error"],
    [
      "a tampered state: refused",
      yes,
      (state) => ({
        state: `${state.slice(0, -4)}${state.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`,
        token: alice,
      }),
      "error",
    ],
    [
      "an expired state: refused",
      yes,
      (state) => {
        clock.advance(11 * 60_000);
        return { state, token: alice };
      },
      "error",
    ],
  ])("%s", async (_, answer, retry, outcome) => {
    const { iid, second } = await twoRounds(answer, retry);
    if (outcome === "error") {
      expect(second.error.code).toBe(-32602);
      expect(second.error.message).toMatch(/requestState/);
      expect(await exists(iid)).toBe(true);
      return;
    }
    expect(second.result.resultType).toBe("complete");
    expect(Boolean(second.result.isError)).toBe(outcome === "refused");
    expect(await exists(iid)).toBe(outcome === "refused");
  });

  it("the state of one call does not confirm another (another issue)", async () => {
    const a = await newIssue("a");
    const b = await newIssue("b");
    const first = (await result(post(mcp, "tools/call", del(a), { token: alice }))).result;
    const key = Object.keys(first.inputRequests)[0]!;
    const r = await result(
      post(
        mcp,
        "tools/call",
        { ...del(b), inputResponses: { [key]: yes }, requestState: first.requestState },
        { token: alice },
      ),
    );
    expect(r.error.code).toBe(-32602);
    expect(await exists(b)).toBe(true);
  });

  it("the official v2 client answers the form through its elicitation handler and the tool runs", async () => {
    const iid = await newIssue("v2");
    const asked: string[] = [];
    const client = await v2Client(mcp, { authorization: `Bearer ${alice}` }, { elicitation: { form: {} } });
    client.setRequestHandler("elicitation/create", async (r) => {
      asked.push((r.params as Json).message);
      return { action: "accept", content: { confirm: true } };
    });
    const r = (await client.callTool(del(iid))) as Json;
    expect(r.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(await exists(iid)).toBe(false);
    await client.close();
  });
});

/** subscriptions/listen: a caller's stream hears its own tools/list change, another caller's does not. */
describe("MCP 2026-07-28: subscriptions/listen for tools/list_changed", () => {
  let forge: Forge;
  let mcp: RunningForgeMcp;
  beforeAll(async () => {
    forge = await startForge();
    mcp = await startForgeMcp({
      REMOTE_AUTHORIZATION: "true",
      FORGE_API_URL: forge.apiUrl,
      FORGE_TOOLSETS: "users",
    });
  });
  afterAll(async () => {
    await mcp?.close();
    await forge?.close();
  });

  /** Opens a listen stream; `events` fills as messages arrive. */
  async function listen(token: string, notifications: Json) {
    const ctrl = new AbortController();
    const res = await fetch(`${mcp.url}/mcp`, {
      method: "POST",
      signal: ctrl.signal,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": V,
        "mcp-method": "subscriptions/listen",
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "listen-1",
        method: "subscriptions/listen",
        params: {
          notifications,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const events: Json[] = [];
    const reader = res.body!.getReader();
    void (async () => {
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        buf += new TextDecoder().decode(value);
        const parts = buf.split("\n\n");
        buf = parts.pop()!;
        for (const p of parts) {
          const line = p.split("\n").find((l) => l.startsWith("data: "));
          if (line) events.push(JSON.parse(line.slice(6)));
        }
      }
    })();
    return { events, close: () => ctrl.abort() };
  }
  const until = async (cond: () => boolean) => {
    for (let i = 0; i < 100 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
  };

  it("acknowledges what it honours, then tells the caller (only) when discover_tools changes its list", async () => {
    const mine = await listen("sim-forge-pat", { toolsListChanged: true, promptsListChanged: true });
    const other = await listen("sim-forge-pat-bob", { toolsListChanged: true });
    await until(() => mine.events.length > 0 && other.events.length > 0);
    expect(mine.events[0]).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        notifications: { toolsListChanged: true },
        _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1" },
      },
    });
    const before = (await json(await post(mcp, "tools/list", {}, { token: "sim-forge-pat" }))).body.result;
    expect(before.ttlMs).toBe(0);
    const loaded = await json(
      await post(
        mcp,
        "tools/call",
        { name: "discover_tools", arguments: { category: "issues" } },
        { token: "sim-forge-pat" },
      ),
    );
    expect(loaded.body.result.isError).toBeFalsy();
    await until(() => mine.events.length > 1);
    expect(mine.events[1]).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1" } },
    });
    const after = (await json(await post(mcp, "tools/list", {}, { token: "sim-forge-pat" }))).body.result;
    expect(after.tools.length).toBeGreaterThan(before.tools.length);
    await new Promise((r) => setTimeout(r, 100));
    expect(other.events).toHaveLength(1);
    mine.close();
    other.close();
  });

  it("a stopping server ends an open listen with its result, and closes its connection", async () => {
    const open = await listen("sim-forge-pat", { toolsListChanged: true });
    await until(() => open.events.length > 0);
    await mcp.server.close();
    await until(() => open.events.length > 1);
    expect(open.events[1]).toEqual({
      jsonrpc: "2.0",
      id: "listen-1",
      result: { resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1" } },
    });
    open.close();
  });
});
