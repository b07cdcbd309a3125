import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { Client, Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPClientTransport as TransportV1,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ForgeApi } from "../../src/forge/api.js";
import { createMcpServer } from "../../src/mcp/sdk-server.js";
import { createCatalogue, TOOL_ALIASES, TOOLSETS } from "../../src/tools/index.js";
import { APP_ID, type Forge, seedApp, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "../helpers.js";

/**
 * Tool names carried over from gitlab-mcp (today's earlier names stay callable, unlisted), toolsets
 * loaded on demand with discover_tools (the official client receives notifications/tools/list_changed
 * and sees the new tools), and the size of tools/list with everything enabled.
 */

type ToolResult = { isError?: boolean; content: Array<{ text: string }> };

async function connect(base: string, token: string) {
  const client = new Client({ name: "discover-test", version: "1.0.0" });
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changed++;
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return { client, changes: () => changed };
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

let forge: Forge;
let all: RunningForgeMcp;
let usersOnly: RunningForgeMcp;
beforeAll(async () => {
  forge = await startForge();
  const env = { FORGE_MCP_OAUTH: "true", FORGE_OAUTH_APP_ID: APP_ID, FORGE_API_URL: forge.apiUrl };
  all = await startForgeMcp({ ...env, FORGE_TOOLSETS: "all" });
  usersOnly = await startForgeMcp({ ...env, FORGE_TOOLSETS: "users" });
  await seedApp(forge, [`${all.url}/callback`]);
  await forge.seed({
    tokens: [
      { token: "tok-alice", application: APP_ID, user: "alice", scopes: ["api"] },
      { token: "tok-bob", application: APP_ID, user: "bob", scopes: ["api"] },
      { token: "tok-v1", application: APP_ID, user: "alice", scopes: ["api"] },
      { token: "tok-v2", application: APP_ID, user: "alice", scopes: ["api"] },
      { token: "tok-named", application: APP_ID, user: "bob", scopes: ["api"] },
    ],
  });
});
afterAll(async () => {
  await Promise.all([all, usersOnly].map((m) => m?.close()));
  await forge?.close();
});

describe("gitlab-mcp's names, and today's earlier names as aliases", () => {
  it("tools/list shows each tool once, by gitlab-mcp's name, and no alias", async () => {
    const { client } = await connect(all.url, "tok-alice");
    const listed = await names(client);
    expect(new Set(listed).size).toBe(listed.length);
    for (const [alias, name] of TOOL_ALIASES) {
      expect(listed).toContain(name);
      expect(listed).not.toContain(alias);
    }
    await client.close();
  });

  it.each([
    ["get_current_user", {}, /"username":"alice"/],
    ["get_file", { project_id: "acme/widgets", file_path: "README.md" }, /# Widgets/],
    ["list_repository_tree", { project_id: "acme/widgets", path: "src" }, /widget\.ts/],
    ["compare", { project_id: 1, from: "main", to: "feature/layout-cache" }, /src\/widget\.ts/],
    ["list_merge_request_notes", { project_id: 1, merge_request_iid: 1 }, /"body"/],
    ["list_merge_request_discussions", { project_id: 1, merge_request_iid: 1 }, /"notes"/],
    ["create_project", { name: "via-alias" }, /"path_with_namespace":"alice\/via-alias"/],
  ])("the alias %s still answers", async (alias, args, expected) => {
    const { client } = await connect(all.url, "tok-alice");
    const r = (await client.callTool({ name: alias, arguments: args })) as ToolResult;
    expect(r.isError, r.content[0]!.text).toBeFalsy();
    expect(r.content[0]!.text).toMatch(expected);
    await client.close();
  });

  it("every alias is callable (a missing argument is the tool's own validation, not an unknown tool)", async () => {
    const { client } = await connect(all.url, "tok-alice");
    for (const alias of TOOL_ALIASES.keys()) {
      const r = (await client.callTool({ name: alias, arguments: {} })) as ToolResult;
      expect(r.content[0]!.text, alias).not.toMatch(/not found|not loaded/);
    }
    await client.close();
  });
});

describe("an earlier name in the allow-list and the deny regex", () => {
  it.each([
    [
      "GITLAB_TOOLS=get_current_user serves whoami",
      { FORGE_TOOLSETS: "none", GITLAB_TOOLS: "get_current_user" },
      ["whoami", "search_tools", "discover_tools"],
    ],
    [
      "GITLAB_DENIED_TOOLS_REGEX=^get_current_user$ denies whoami",
      { FORGE_TOOLSETS: "users", GITLAB_DENIED_TOOLS_REGEX: "^get_current_user$" },
      TOOLSETS.users
        .map((t) => t.name)
        .filter((n) => n !== "whoami")
        .concat("search_tools", "discover_tools"),
    ],
  ])("%s", async (_n, env, expected) => {
    const mcp = await startForgeMcp({ FORGE_TOKEN: "sim-forge-pat", FORGE_API_URL: forge.apiUrl, ...env });
    const client = new Client({ name: "alias-lists", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`)));
    expect(await names(client)).toEqual(expected);
    const served = expected.includes("whoami");
    for (const name of ["whoami", "get_current_user"]) {
      const call = client.callTool({ name, arguments: {} });
      // a tool this server does not serve is the JSON-RPC error -32602, not a tool result
      if (served) expect(Boolean(((await call) as ToolResult).isError), name).toBe(false);
      else await expect(call, name).rejects.toMatchObject({ code: -32602 });
    }
    await client.close();
    await mcp.close();
  });
});

describe("discover_tools: toolsets loaded on demand", () => {
  it("starts with FORGE_TOOLSETS, loads a toolset, notifies, and then lists and runs its tools", async () => {
    const { client, changes } = await connect(usersOnly.url, "tok-bob");
    const before = await names(client);
    expect(before.sort()).toEqual(
      [...TOOLSETS.users.map((t) => t.name), "search_tools", "discover_tools"].sort(),
    );

    // not listed, but served: callable by name (what search_tools answers), before any load
    const unlisted = (await client.callTool({
      name: "list_labels",
      arguments: { project_id: 1 },
    })) as ToolResult;
    expect(unlisted.isError, unlisted.content[0]!.text).toBeFalsy();
    expect(unlisted.content[0]!.text).toMatch(/"name":"bug"/);

    const loaded = (await client.callTool({
      name: "discover_tools",
      arguments: { category: "labels" },
    })) as ToolResult;
    expect(JSON.parse(loaded.content[0]!.text)).toMatchObject({ loaded: "labels", already_active: false });
    expect(changes()).toBe(1);
    const after = await names(client);
    expect(after).toEqual(expect.arrayContaining(TOOLSETS.labels.map((t) => t.name)));
    expect(after).not.toContain("list_pipelines");
    const labels = (await client.callTool({
      name: "list_labels",
      arguments: { project_id: 1 },
    })) as ToolResult;
    expect(labels.isError).toBeFalsy();
    expect(labels.content[0]!.text).toMatch(/"name":"bug"/);

    // loading it again changes nothing and sends nothing
    const again = (await client.callTool({
      name: "discover_tools",
      arguments: { category: "labels" },
    })) as ToolResult;
    expect(JSON.parse(again.content[0]!.text)).toMatchObject({ already_active: true });
    expect(changes()).toBe(1);
    await client.close();
  });

  it("a load is the caller's own: another user's list is unchanged", async () => {
    const a = await connect(usersOnly.url, "tok-alice");
    await a.client.callTool({ name: "discover_tools", arguments: { category: "wiki" } });
    const b = await connect(usersOnly.url, "tok-bob");
    expect(await names(b.client)).not.toContain("list_wiki_pages");
    expect(await names(a.client)).toContain("list_wiki_pages");
    await Promise.all([a.client.close(), b.client.close()]);
  });

  it.each([
    [
      "no category lists the toolsets and which are active",
      {},
      false,
      /"toolset":"pipelines",\s*"active":false/,
    ],
    ["gitlab-mcp's name ci loads pipelines", { category: "ci" }, false, /"loaded":"pipelines"/],
    [
      "an unknown toolset is an error naming the known ones",
      { category: "nope" },
      true,
      /known: projects, issues/,
    ],
  ])("%s", async (_n, args, isError, expected) => {
    const { client } = await connect(usersOnly.url, "tok-bob");
    const r = (await client.callTool({ name: "discover_tools", arguments: args })) as ToolResult;
    expect(Boolean(r.isError)).toBe(isError);
    expect(r.content[0]!.text).toMatch(expected);
    await client.close();
  });

  it("in one process (stdio's shape: no shared store) a load notifies and lists too", async () => {
    const server = createMcpServer(
      createCatalogue(
        { readOnly: true, toolsets: ["users"] },
        () => new ForgeApi(forge.apiUrl, "sim-forge-pat", 5000),
      ),
    );
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "in-process", version: "1.0.0" });
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    await Promise.all([server.connect(a), client.connect(b)]);
    expect(await names(client)).not.toContain("list_releases");
    await client.callTool({ name: "discover_tools", arguments: { category: "releases" } });
    expect(changed).toBe(1);
    const listed = await names(client);
    expect(listed).toContain("list_releases");
    // read-only: the writers of a loaded toolset stay out
    expect(listed).not.toContain("create_release");
    await client.close();
    await server.close();
  });
});

describe("clients that follow notifications/tools/list_changed", () => {
  // the official SDK clients re-list on their own when given listChanged.tools (both default to
  // autoRefresh): after discover_tools their tool list holds the loaded toolset, with no call of ours
  it.each([
    ["v1 (@modelcontextprotocol/sdk 1.32)", "tok-v1", ClientV1, TransportV1],
    ["v2 (@modelcontextprotocol/client 2.4.0)", "tok-v2", ClientV2, TransportV2],
  ] as const)("the %s client re-lists after discover_tools", async (_n, token, ClientOf, TransportOf) => {
    let resolveTools: (names: string[]) => void = () => {};
    const relisted = new Promise<string[]>((r) => {
      resolveTools = r;
    });
    const client = new (ClientOf as typeof ClientV1)(
      { name: "list-changed", version: "1.0.0" },
      {
        listChanged: {
          tools: {
            debounceMs: 0,
            onChanged: (err, tools) => {
              if (!err && tools) resolveTools(tools.map((t) => t.name));
            },
          },
        },
      },
    );
    await client.connect(
      new (TransportOf as typeof TransportV1)(new URL(`${usersOnly.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    await client.callTool({ name: "discover_tools", arguments: { category: "milestones" } });
    // a client that never re-lists fails here in 5 s, not at the suite's timeout
    const within = new Promise<string[]>((r) => setTimeout(() => r([]), 5000).unref());
    expect(await Promise.race([relisted, within])).toContain("list_milestones");
    await client.close();
  });

  it("discover_tools loads single tools by name, and says which names it does not know", async () => {
    const { client, changes } = await connect(usersOnly.url, "tok-named");
    const r = (await client.callTool({
      name: "discover_tools",
      arguments: { tools: ["list_labels", "get_current_user", "no_such_tool"] },
    })) as ToolResult;
    expect(JSON.parse(r.content[0]!.text)).toEqual({
      loaded_tools: ["list_labels", "whoami"],
      unknown: ["no_such_tool"],
    });
    // whoami is in the users toolset, listed already: only list_labels is new
    expect(changes()).toBe(1);
    const listed = await names(client);
    expect(listed).toContain("list_labels");
    expect(listed).not.toContain("get_label");
    await client.close();
  });
});

describe("tools/list with every toolset", () => {
  it("is one response under 1 MB", async () => {
    const res = await fetch(`${all.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: "Bearer tok-alice",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(res.headers.get("content-type")).toContain("application/json");
    const bytes = Buffer.byteLength(await res.text());
    expect(bytes).toBeLessThan(1_000_000);
    expect(bytes).toBeGreaterThan(10_000);
  });
});
