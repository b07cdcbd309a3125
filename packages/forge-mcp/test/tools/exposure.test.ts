import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORE_TOOLS, DEFAULT_TOOLSETS, selectTools, startTools } from "../../src/tools/index.js";
import { type Forge, forgeLogSeq, startForge } from "../forge-sim.js";
import { postToolsList, type RunningForgeMcp, startForgeMcp } from "../helpers.js";

/**
 * The exposure controls of a gitlab-mcp deployment (docs/forge-mcp.md, "Narrowing what the model
 * may do"), against the forge simulator through the official MCP client: the permission modes, the
 * single tools of GITLAB_TOOLS, the deny regex, and the project allow-list on every tool that names
 * a project and on every list across projects.
 */

type ToolResult = { isError?: boolean; content: Array<{ text: string }> };
type Schema = {
  type?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  items?: Schema;
  minItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
};

async function connect(mcp: RunningForgeMcp): Promise<Client> {
  const client = new Client({ name: "exposure", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`)));
  return client;
}

/** The names a server with `env` lists (a plain tools/list: names are what the rows check). */
async function listed(forge: Forge, env: Record<string, string>): Promise<string[]> {
  const mcp = await startForgeMcp({ FORGE_TOKEN: "sim-forge-pat", FORGE_API_URL: forge.apiUrl, ...env });
  try {
    const names = (await postToolsList(mcp.url)).map((t) => t.name);
    // the meta tools are always listed, last (tools/discover.test.ts); the rest is what is exposed
    expect(names.slice(-2)).toEqual(["search_tools", "discover_tools"]);
    return names.slice(0, -2);
  } finally {
    await mcp.close();
  }
}

describe("which tools are exposed", () => {
  let forge: Forge;
  beforeAll(async () => {
    forge = await startForge();
  });
  afterAll(async () => {
    await forge?.close();
  });
  // every toolset served without FORGE_TOOLSETS before the core list, named explicitly
  const all = selectTools({ readOnly: false, toolsets: [...DEFAULT_TOOLSETS] });
  const wide = { FORGE_TOOLSETS: DEFAULT_TOOLSETS.join(",") };
  const writers = all.filter((t) => t.write).map((t) => t.name);
  const destructive = all.filter((t) => t.destructive).map((t) => t.name);

  it.each([
    ["unset: the core list", {}, startTools({ readOnly: false, toolsets: undefined }).map((t) => t.name)],
    ["full (default)", wide, all.map((t) => t.name)],
    ["GITLAB_PERMISSION_MODE=full", { ...wide, GITLAB_PERMISSION_MODE: "full" }, all.map((t) => t.name)],
    [
      "GITLAB_PERMISSION_MODE=modify: no destructive tool",
      { ...wide, GITLAB_PERMISSION_MODE: "modify" },
      all.filter((t) => !t.destructive).map((t) => t.name),
    ],
    [
      "FORGE_PERMISSION_MODE=readonly: no writing tool",
      { ...wide, FORGE_PERMISSION_MODE: "readonly" },
      all.filter((t) => !t.write).map((t) => t.name),
    ],
    [
      "GITLAB_READ_ONLY_MODE=true wins over GITLAB_PERMISSION_MODE=full",
      { ...wide, GITLAB_READ_ONLY_MODE: "true", GITLAB_PERMISSION_MODE: "full" },
      all.filter((t) => !t.write).map((t) => t.name),
    ],
    [
      "GITLAB_DENIED_TOOLS_REGEX=^(delete|merge)_",
      { ...wide, GITLAB_DENIED_TOOLS_REGEX: "^(delete|merge)_" },
      all.filter((t) => !/^(delete|merge)_/.test(t.name)).map((t) => t.name),
    ],
    [
      "GITLAB_TOOLSETS=labels plus GITLAB_TOOLS=get_project,graphql_query (graphql is opt-in)",
      { GITLAB_TOOLSETS: "labels", GITLAB_TOOLS: "get_project,graphql_query" },
      [
        ...selectTools({ readOnly: false, toolsets: ["labels"] }).map((t) => t.name),
        "get_project",
        "graphql_query",
      ],
    ],
    [
      "FORGE_TOOLSETS=none with GITLAB_TOOLS: exactly those tools",
      { FORGE_TOOLSETS: "none", GITLAB_TOOLS: "get_issue,list_issues" },
      ["list_issues", "get_issue"],
    ],
    [
      "GITLAB_TOOLS does not bypass the permission mode",
      { FORGE_TOOLSETS: "none", GITLAB_TOOLS: "get_issue,delete_issue", GITLAB_PERMISSION_MODE: "modify" },
      ["get_issue"],
    ],
  ])("%s", async (_name, env, expected) => {
    expect([...startTools({ readOnly: false, toolsets: undefined }).map((t) => t.name)].sort()).toEqual(
      [...CORE_TOOLS].sort(),
    );
    expect(writers.length).toBeGreaterThan(destructive.length);
    expect(destructive.length).toBeGreaterThan(0);
    expect(await listed(forge, env as Record<string, string>)).toEqual(expected);
  });

  it("a tool that is not exposed cannot be called either, and the forge is not asked", async () => {
    const mcp = await startForgeMcp({
      FORGE_TOKEN: "sim-forge-pat",
      FORGE_API_URL: forge.apiUrl,
      GITLAB_PERMISSION_MODE: "modify",
    });
    const client = await connect(mcp);
    const before = await forgeLogSeq(forge);
    // a tool this server does not serve is the JSON-RPC error -32602, not a tool result
    await expect(
      client.callTool({ name: "delete_issue", arguments: { project_id: "acme/widgets", issue_iid: 1 } }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown tool: delete_issue/) });
    expect(await forgeLogSeq(forge)).toBe(before);
    await client.close();
    await mcp.close();
  });
});

/** A value the tool's input schema accepts, for the required parameters the test does not care about. */
function sample(s: Schema): unknown {
  if (s.enum) return s.enum[0];
  if (s.anyOf) return sample(s.anyOf[0]!);
  switch (s.type) {
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return false;
    case "array":
      return s.minItems && s.items ? [sample(s.items)] : [];
    case "object": {
      const o: Record<string, unknown> = {};
      for (const r of s.required ?? []) o[r] = sample(s.properties![r]!);
      return o;
    }
    default:
      return "x";
  }
}

const takesStrings = (s: Schema) => JSON.stringify(s).includes('"string"');

describe("GITLAB_ALLOWED_PROJECT_IDS", () => {
  let forge: Forge;
  let mcp: RunningForgeMcp;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as ToolResult;
  const json = async (name: string, args: Record<string, unknown>) => {
    const r = await call(name, args);
    if (r.isError) throw new Error(`${name}: ${r.content[0]!.text}`);
    return JSON.parse(r.content[0]!.text);
  };
  const logSince = async (seq: number) =>
    (
      (await (await fetch(`${forge.origin}/_sim/log?since=${seq}`)).json()) as {
        entries: Array<{ method: string; path: string }>;
      }
    ).entries;

  beforeAll(async () => {
    forge = await startForge();
    // acme/widgets is project 1, listed by id; labs/experiments (4) by path. acme/platform/infra (2)
    // and bob/dotfiles (3) are outside.
    mcp = await startForgeMcp({
      FORGE_TOKEN: "sim-forge-pat",
      FORGE_API_URL: forge.apiUrl,
      GITLAB_ALLOWED_PROJECT_IDS: "1,labs/experiments",
      GITLAB_TOOLSETS: "all",
      FORGE_MCP_CONFIRM_DESTRUCTIVE: "off",
    });
    client = await connect(mcp);
  });
  afterAll(async () => {
    await client?.close();
    await mcp?.close();
    await forge?.close();
  });

  it("every tool that names a project refuses one outside the list, in every form, before the forge sees it", async () => {
    const tools = await postToolsList(mcp.url);
    const cases: Array<[string, string, unknown]> = [];
    for (const t of tools) {
      const props = (t.inputSchema as Schema).properties ?? {};
      for (const [param, schema] of Object.entries(props)) {
        if (!/(^|_)project_id$/.test(param)) continue;
        const forms: unknown[] = [
          2,
          ...(takesStrings(schema) ? ["acme/platform/infra", "acme%2Fplatform%2Finfra"] : []),
        ];
        for (const form of forms) cases.push([t.name, param, form]);
      }
    }
    // the table covers every tool that takes a project (well over half of them) in every form
    const covered = new Set(cases.map(([name]) => name));
    expect(covered.size).toBeGreaterThan(tools.length / 2);
    for (const name of ["get_project", "create_issue_link", "list_todos", "search", "list_issues"])
      expect(covered).toContain(name);

    const before = await forgeLogSeq(forge);
    const one = async ([name, param, form]: [string, string, unknown]) => {
      const t = tools.find((x) => x.name === name)!;
      const schema = t.inputSchema as Schema;
      const args: Record<string, unknown> = {};
      for (const req of schema.required ?? []) args[req] = sample(schema.properties![req]!);
      // a tool that takes the object's web url takes project_id and the id instead of it
      const props = schema.properties ?? {};
      const byUrl = [
        "project_id",
        "issue_iid",
        "merge_request_iid",
        "iid",
        "incident_iid",
        "pipeline_id",
        "job_id",
      ];
      if ("url" in props) for (const k of byUrl) if (k in props && !(k in args)) args[k] = sample(props[k]!);
      // the other project parameters name the allowed project: only `param` is outside
      for (const p of Object.keys(schema.properties ?? {}))
        if (/(^|_)project_id$/.test(p) && p in args) args[p] = 1;
      args[param] = form;
      const r = await call(name, args);
      return [`${name} ${param}=${JSON.stringify(form)}`, r.isError ? r.content[0]!.text : "served"];
    };
    const results: string[][] = [];
    for (let i = 0; i < cases.length; i += 8)
      results.push(...(await Promise.all(cases.slice(i, i + 8).map(one))));
    const notRefused = results.filter(([, text]) => !/outside GITLAB_ALLOWED_PROJECT_IDS/.test(text!));
    expect(notRefused).toEqual([]);
    expect(results).toHaveLength(cases.length);
    // the forge saw only the look-ups of the listed projects, never a request about another one
    const seen = await logSince(before);
    expect(seen.length).toBeGreaterThan(0);
    for (const e of seen)
      expect(`${e.method} ${e.path}`).toMatch(/^GET \/api\/v4\/projects\/(1|labs%2Fexperiments)$/);
  });

  it.each([
    ["numeric id", 1],
    ["numeric id as text", "1"],
    ["full path", "acme/widgets"],
    ["full path in another case", "Acme/Widgets"],
    ["URL-encoded full path", "acme%2Fwidgets"],
    ["the entry listed by path, by its id", 4],
  ])("a listed project is served by %s", async (_name, form) => {
    const p = await json("get_project", { project_id: form });
    expect([1, 4]).toContain(p.id);
  });

  it("lists across projects keep only the listed projects' items", async () => {
    const projects = await json("list_projects", { per_page: 100 });
    expect(projects.items.map((p: { id: number }) => p.id).sort()).toEqual([1, 4]);
    const group = await json("list_group_projects", { group_id: "acme", include_subgroups: true });
    expect(group.items.map((p: { id: number }) => p.id)).toEqual([1]);
    const issues = await json("list_issues", { scope: "all" });
    expect(issues.items.length).toBeGreaterThan(0);
    expect(new Set(issues.items.map((i: { project_id: number }) => i.project_id))).toEqual(new Set([1]));
    const events = await json("list_events", {});
    expect(events.items.length).toBeGreaterThan(0);
    for (const e of events.items) expect([1, 4]).toContain(e.project_id);
  });

  it("a global search for project objects is run in the listed projects only", async () => {
    const before = await forgeLogSeq(forge);
    const found = await json("search", { scope: "issues", search: "a" });
    const items = Array.isArray(found) ? found : found.items;
    expect(items.length).toBeGreaterThan(0);
    for (const i of items) expect([1, 4]).toContain(i.project_id);
    const paths = (await logSince(before)).map((e) => e.path.split("?")[0]);
    expect(paths).not.toContain("/api/v4/search");
    expect(paths).toContain("/api/v4/projects/1/search");
  });

  it("code search across the instance or a group answers only the listed projects' files", async () => {
    const before = await forgeLogSeq(forge);
    const code = (await json("search_code", { search: "innerHTML" })).items;
    expect(code.length).toBeGreaterThan(0);
    for (const i of code) expect([1, 4]).toContain(i.project_id);
    const paths = (await logSince(before)).map((e) => e.path.split("?")[0]);
    expect(paths).not.toContain("/api/v4/search");
    expect(paths).toContain("/api/v4/projects/1/search");
    const group = await json("search_group_code", { group_id: "acme", search: "a" });
    const items = Array.isArray(group) ? group : group.items;
    expect(items.length).toBeGreaterThan(0);
    for (const i of items) expect([1, 4]).toContain(i.project_id);
  });

  it("the GraphQL tools reach only the listed projects: work items by project, a vulnerability by its project", async () => {
    await forge.seed({
      vulnerabilities: [
        { project: "acme/widgets", title: "Listed finding", severity: "high" },
        { project: "acme/platform/infra", title: "Unlisted finding", severity: "high" },
      ],
    });
    const items = await json("list_work_items", { project_id: "acme/widgets" });
    expect(items.nodes.length).toBeGreaterThan(0);
    const listed = await json("list_project_vulnerabilities", { project_id: 1 });
    const id = listed.nodes.find((v: { title: string }) => v.title === "Listed finding").id;
    expect((await json("get_vulnerability", { vulnerability_id: id })).title).toBe("Listed finding");
    // the other finding's id is the listed one's + 1 (seeded in order); its project is looked up first
    const other = `gid://gitlab/Vulnerability/${Number(id.split("/").pop()) + 1}`;
    for (const [name, args] of [
      ["get_vulnerability", { vulnerability_id: other }],
      ["dismiss_vulnerability", { vulnerability_id: other, reason: "false_positive" }],
    ] as const) {
      const r = await call(name, args);
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toMatch(/outside GITLAB_ALLOWED_PROJECT_IDS/);
    }
    const unseen = await call("confirm_vulnerability", { vulnerability_id: 999_999 });
    expect(unseen.content[0]!.text).toMatch(
      /could not be read, so it cannot be checked against GITLAB_ALLOWED/,
    );
    const moved = await call("move_work_item", {
      project_id: 1,
      iid: 1,
      target_project_id: "acme/platform/infra",
    });
    expect(moved.content[0]!.text).toMatch(/outside GITLAB_ALLOWED_PROJECT_IDS/);
    // a document of the caller's own is still refused
    const q = await call("graphql_query", { query: "{ currentUser { username } }" });
    expect(q.content[0]!.text).toMatch(/GraphQL is not served while GITLAB_ALLOWED_PROJECT_IDS/);
  });

  it("creating a project and GraphQL are refused: both could reach beyond the list", async () => {
    const created = await call("create_project", { name: "elsewhere" });
    expect(created.isError).toBe(true);
    expect(created.content[0]!.text).toMatch(/creating a project is refused/);
    const q = await call("graphql_query", { query: '{ project(fullPath: "acme/platform/infra") { id } }' });
    expect(q.isError).toBe(true);
    expect(q.content[0]!.text).toMatch(/GraphQL is not served while GITLAB_ALLOWED_PROJECT_IDS/);
  });
});
