import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { operationTypes } from "../../src/tools/graphql.js";
import { CORE_TOOLS, DEFAULT_TOOLSETS, TOOLSETS } from "../../src/tools/index.js";
import { type Forge, startForge } from "../forge-sim.js";
import { postToolsList, type RunningForgeMcp, startForgeMcp } from "../helpers.js";

/** Read-only mode, annotations, toolset selection (gitlab-mcp names), GraphQL and size bounds. */

type Result = { isError?: boolean; content: Array<{ text: string }> };
const all = Object.values(TOOLSETS).flat();
const byName = new Map(all.map((t) => [t.name, t]));
const main = new URL("../../dist/forge-mcp.mjs", import.meta.url).pathname;

async function connect(url: string) {
  const client = new Client({ name: "modes", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

describe("tool modes against the forge simulator", () => {
  let forge: Forge;
  const servers: Record<string, RunningForgeMcp> = {};
  const clients: Client[] = [];
  const start = async (name: string, env: Record<string, string>) => {
    servers[name] = await startForgeMcp({
      MCP_TRANSPORT: "http",
      FORGE_TOKEN: "sim-forge-pat",
      FORGE_API_URL: forge.apiUrl,
      ...env,
    });
    const c = await connect(servers[name]!.url);
    clients.push(c);
    urls.set(c, servers[name]!.url);
    return c;
  };
  const urls = new Map<Client, string>();
  // a client's tools/list; over HTTP a plain POST to its server (helpers.ts: postToolsList)
  const listTools = async (c: Client) => {
    const url = urls.get(c);
    return url ? postToolsList(url) : (await c.listTools()).tools;
  };
  // the forge tools listed (the meta tools, always listed, are proven in tools/discover.test.ts)
  const forgeTools = async (c: Client) =>
    (await listTools(c)).filter((t) => t.name !== "discover_tools" && t.name !== "search_tools");
  const names = async (c: Client) => (await forgeTools(c)).map((t) => t.name).sort();

  beforeAll(async () => {
    forge = await startForge();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(Object.values(servers).map((s) => s.close()));
    await forge?.close();
  });

  it("FORGE_READ_ONLY=true hides every writing tool and keeps every reader", async () => {
    const c = await start("ro", { FORGE_READ_ONLY: "true", FORGE_TOOLSETS: "all" });
    const listed = await forgeTools(c);
    expect(listed.map((t) => t.name).sort()).toEqual(
      all
        .filter((t) => !t.write)
        .map((t) => t.name)
        .sort(),
    );
    for (const t of listed) expect(t.annotations?.readOnlyHint, t.name).toBe(true);
    // A writer cannot be called either: it does not exist (JSON-RPC -32602, not a tool result).
    await expect(
      c.callTool({ name: "delete_issue", arguments: { project_id: 1, issue_iid: 1 } }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("every tool carries annotations that match its registry entry", async () => {
    const c = await start("all", { FORGE_TOOLSETS: "all" });
    const listed = await forgeTools(c);
    expect(listed).toHaveLength(all.length);
    for (const t of listed) {
      const def = byName.get(t.name)!;
      // only what differs from the spec's defaults (openWorldHint true; idempotentHint and
      // destructiveHint mean nothing on a reader), and destructiveHint on every writer
      expect(t.annotations, t.name).toEqual(
        def.write
          ? { readOnlyHint: false, destructiveHint: def.destructive ?? false }
          : { readOnlyHint: true },
      );
      if (t.name.startsWith("delete_")) expect(t.annotations?.destructiveHint, t.name).toBe(true);
    }
  });

  it("lists the core by default, and serves every toolset but graphql and variables when named", async () => {
    const c = await start("default", {});
    expect(await names(c)).toEqual([...CORE_TOOLS].sort());
    const wide = await start("wide", { FORGE_TOOLSETS: DEFAULT_TOOLSETS.join(",") });
    expect(await names(wide)).toEqual(DEFAULT_TOOLSETS.flatMap((s) => TOOLSETS[s].map((t) => t.name)).sort());
    expect(await names(wide)).not.toContain("graphql_query");
    // CI/CD variables are secrets: opt-in, as in gitlab-mcp
    expect(await names(wide)).not.toContain("list_project_variables");
    expect(await names(wide)).toContain("list_issue_emoji_reactions");
  });

  it("accepts gitlab-mcp's toolset names: wiki, milestones, ci (= pipelines), branches (= repository), workitems", async () => {
    const c = await start("gl", { FORGE_TOOLSETS: "wiki,milestones,ci,branches,workitems,nosuchset" });
    expect(await names(c)).toEqual(
      [
        ...TOOLSETS.wiki,
        ...TOOLSETS.milestones,
        ...TOOLSETS.pipelines,
        ...TOOLSETS.repository,
        ...TOOLSETS.workitems,
      ]
        .map((t) => t.name)
        .sort(),
    );
  });

  it.each([
    ["wiki,milestones", ["wiki", "milestones"], []],
    ["repositories,branches", ["repository"], []],
    ["ci, Pipelines", ["pipelines"], []],
    ["all", Object.keys(TOOLSETS), []],
    ["issues,workitems,webhooks,nosuchset,typo", ["issues", "workitems", "webhooks"], ["nosuchset", "typo"]],
  ])("FORGE_TOOLSETS=%s → %j, unknown %j", (raw, toolsets, unknown) => {
    const c = loadConfig({ FORGE_TOOLSETS: raw });
    expect(c.toolsets).toEqual(toolsets);
    expect(c.unknownToolsets).toEqual(unknown);
    expect(loadConfig({ GITLAB_TOOLSETS: raw }).toolsets).toEqual(toolsets);
  });

  it("names unknown toolsets in a start-up warning and starts anyway (the binary, stdio)", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [main],
      env: {
        PATH: process.env.PATH ?? "",
        FORGE_TOKEN: "sim-forge-pat",
        FORGE_API_URL: forge.apiUrl,
        FORGE_TOOLSETS: "labels,nosuchset",
      },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d) => {
      stderr += String(d);
    });
    const c = new Client({ name: "stdio-modes", version: "1.0.0" });
    await c.connect(transport);
    expect(await names(c)).toEqual(TOOLSETS.labels.map((t) => t.name).sort());
    await c.close();
    expect(stderr).toMatch(/does not have \(ignored\): nosuchset/);
  });

  it("graphql_query (opt-in) answers queries and refuses mutations without calling the forge", async () => {
    const c = await start("gql", { FORGE_TOOLSETS: "graphql" });
    expect(await names(c)).toEqual(["execute_graphql", "graphql_query"]);
    await fetch(`${forge.origin}/_sim/log`, { method: "DELETE" });
    for (const query of [
      'mutation { createIssue(input: {projectPath: "acme/widgets", title: "x"}) { errors } }',
      "# a comment\nsubscription S { issueUpdated { id } }",
      "query Q { currentUser { username } } mutation M { x }",
    ]) {
      const r = (await c.callTool({ name: "graphql_query", arguments: { query } })) as Result;
      expect(r.isError, query).toBe(true);
      expect(r.content[0]!.text).toMatch(/only runs queries/);
    }
    const { entries } = (await (await fetch(`${forge.origin}/_sim/log`)).json()) as { entries: unknown[] };
    expect(entries.filter((e) => !(e as { path: string }).path.startsWith("/_sim"))).toEqual([]);
    const ok = (await c.callTool({
      name: "graphql_query",
      arguments: {
        query: '{ project(fullPath: "acme/widgets") { mergeRequests(first: 1) { count nodes { title } } } }',
      },
    })) as Result;
    expect(JSON.parse(ok.content[0]!.text).data.project.mergeRequests).toMatchObject({ count: 2 });
    const bad = (await c.callTool({ name: "graphql_query", arguments: { query: "{ nope }" } })) as Result;
    expect(bad.isError).toBe(true);
    expect(bad.content[0]!.text).toMatch(/Field 'nope' doesn't exist on type 'Query'/);
  });

  it.each([
    ["{ a }", ["query"]],
    ['query { a(s: "mutation { x }") }', ["query"]],
    ['"""mutation""" query Q { a }', ["query"]],
    ["fragment F on User { id } query { ...F }", ["fragment", "query"]],
    ["mutation { a }", ["mutation"]],
    ["query A { a } subscription B { b }", ["query", "subscription"]],
  ])("operationTypes(%j) = %j", (doc, ops) => {
    expect(operationTypes(doc)).toEqual(ops);
  });

  it("bounds job logs (tail_lines, max_bytes) and artifact files (max_bytes)", async () => {
    const c = clients[1]!; // the "all" server
    const jobs = (await (
      await fetch(`${forge.apiUrl}/projects/1/pipelines/1/jobs`, {
        headers: { "private-token": "sim-forge-pat" },
      })
    ).json()) as Array<{ id: number; name: string }>;
    const build = jobs.find((j) => j.name === "build")!.id;
    const full = (await c.callTool({
      name: "get_pipeline_job_output",
      arguments: { project_id: 1, job_id: build },
    })) as Result;
    const cut = (await c.callTool({
      name: "get_pipeline_job_output",
      arguments: { project_id: 1, job_id: build, max_bytes: 10 },
    })) as Result;
    expect(cut.content[0]!.text).toMatch(/^\[log cut to its last 10 of \d+ bytes\]\n/);
    expect(full.content[0]!.text.endsWith(cut.content[0]!.text.split("\n").slice(1).join("\n"))).toBe(true);
    const art = (await c.callTool({
      name: "get_job_artifact_file",
      arguments: { project_id: 1, job_id: build, artifact_path: "build/summary.txt", max_bytes: 5 },
    })) as Result;
    expect(art.content[0]!.text).toMatch(/^job b\n\[artifact cut to its first 5 of \d+ bytes\]$/);
    const big = (await c.callTool({
      name: "get_pipeline_job_output",
      arguments: { project_id: 1, job_id: build, max_bytes: 2 * 1024 * 1024 },
    })) as Result;
    expect(big.isError).toBe(true);
  });

  it("pages the repository tree by keyset: next_page_token leads to the next page", async () => {
    const c = clients[1]!;
    const seen: string[] = [];
    let token: string | undefined;
    for (let i = 0; i < 20; i++) {
      const r = (await c.callTool({
        name: "get_repository_tree",
        arguments: {
          project_id: 1,
          recursive: true,
          pagination: "keyset",
          per_page: 2,
          ...(token ? { page_token: token } : {}),
        },
      })) as Result;
      const body = JSON.parse(r.content[0]!.text);
      const items = (body.items ?? body) as Array<{ path: string }>;
      seen.push(...items.map((x) => x.path));
      token = body.next_page_token;
      if (!token) break;
    }
    expect(seen).toContain("src/widget.ts");
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThan(2);
  });

  it("refuses a diff position without a line before calling the forge", async () => {
    const c = clients[1]!;
    const r = (await c.callTool({
      name: "create_merge_request_thread",
      arguments: {
        project_id: 1,
        merge_request_iid: 1,
        body: "x",
        position: { base_sha: "a", start_sha: "a", head_sha: "b", new_path: "README.md" },
      },
    })) as Result;
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/new_line, old_line or both/);
  });
});
