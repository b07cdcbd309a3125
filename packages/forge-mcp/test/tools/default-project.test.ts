import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, forgeLogSeq, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "../helpers.js";

/**
 * gitlab-mcp's default project (docs/forge-mcp.md, "Narrowing what the model may do"): when
 * GITLAB_ALLOWED_PROJECT_IDS names exactly one project, a tool call may omit project_id and acts on
 * that project; with two or more, project_id stays required. Through the official MCP client.
 */

type ToolResult = { isError?: boolean; content: Array<{ text: string }> };

async function connect(mcp: RunningForgeMcp): Promise<Client> {
  const client = new Client({ name: "default-project", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`)));
  return client;
}

/** The forge paths requested since `seq`, without the query. */
async function pathsSince(forge: Forge, seq: number): Promise<string[]> {
  const r = (await (await fetch(`${forge.origin}/_sim/log?since=${seq}`)).json()) as {
    entries: Array<{ path: string }>;
  };
  return r.entries.map((e) => e.path.split("?")[0]!);
}

describe("GITLAB_ALLOWED_PROJECT_IDS as the default project", () => {
  let forge: Forge;
  let one: RunningForgeMcp;
  let two: RunningForgeMcp;
  let oneClient: Client;
  let twoClient: Client;
  beforeAll(async () => {
    forge = await startForge();
    const env = { FORGE_TOKEN: "sim-forge-pat", FORGE_API_URL: forge.apiUrl };
    one = await startForgeMcp({ ...env, GITLAB_ALLOWED_PROJECT_IDS: "acme/widgets" });
    two = await startForgeMcp({ ...env, GITLAB_ALLOWED_PROJECT_IDS: "acme/widgets,bob/dotfiles" });
    oneClient = await connect(one);
    twoClient = await connect(two);
  });
  afterAll(async () => {
    await oneClient?.close();
    await twoClient?.close();
    await one?.close();
    await two?.close();
    await forge?.close();
  });

  const call = async (c: Client, name: string, args: Record<string, unknown>) =>
    (await c.callTool({ name, arguments: args })) as ToolResult;

  it.each([
    ["get_project without project_id acts on the one project", "get_project", {}, "/api/v4/projects/1"],
    ["get_project naming it by id as well", "get_project", { project_id: 1 }, "/api/v4/projects/1"],
    [
      "list_issues without project_id lists that project's issues, not every project's",
      "list_issues",
      {},
      "/api/v4/projects/1/issues",
    ],
    [
      "a tool with more required fields still needs them, and gets the project",
      "get_issue",
      { issue_iid: 1 },
      "/api/v4/projects/1/issues/1",
    ],
  ])("one project: %s", async (_n, tool, args, path) => {
    const seq = await forgeLogSeq(forge);
    const r = await call(oneClient, tool, args);
    expect(r.isError, r.content[0]!.text).toBeFalsy();
    // the tool's one forge call, by the id the listed path was checked for (the scope may first
    // learn that id, once)
    expect((await pathsSince(forge, seq)).at(-1)).toBe(path);
  });

  it("one project: naming another project is still refused, without a forge call", async () => {
    const seq = await forgeLogSeq(forge);
    const r = await call(oneClient, "get_project", { project_id: "bob/dotfiles" });
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/outside GITLAB_ALLOWED_PROJECT_IDS/);
    expect(await pathsSince(forge, seq)).toEqual([]);
  });

  it.each([
    ["one project: project_id is optional and says what it defaults to", () => oneClient, false],
    ["two projects: project_id stays required", () => twoClient, true],
  ])("tools/list, %s", async (_n, client, required) => {
    const tools = (await client().listTools()).tools;
    const getProject = tools.find((t) => t.name === "get_project")!;
    expect((getProject.inputSchema.required ?? []).includes("project_id")).toBe(required);
    const described = JSON.stringify(getProject.inputSchema.properties?.project_id);
    if (required) expect(described).not.toMatch(/defaults to/);
    else expect(described).toMatch(/defaults to acme\/widgets/);
  });

  it("GITLAB_PROJECT_ID without an allow-list: the default, and other projects stay reachable", async () => {
    const mcp = await startForgeMcp({
      FORGE_TOKEN: "sim-forge-pat",
      FORGE_API_URL: forge.apiUrl,
      GITLAB_PROJECT_ID: "bob/dotfiles",
    });
    try {
      const c = await connect(mcp);
      const seq = await forgeLogSeq(forge);
      expect((await call(c, "get_project", {})).isError).toBeFalsy();
      expect((await call(c, "get_project", { project_id: "acme/widgets" })).isError).toBeFalsy();
      await c.close();
      expect(await pathsSince(forge, seq)).toEqual([
        "/api/v4/projects/bob%2Fdotfiles",
        "/api/v4/projects/acme%2Fwidgets",
      ]);
    } finally {
      await mcp.close();
    }
  });

  it("two projects: a call without project_id is refused before the forge is asked", async () => {
    const seq = await forgeLogSeq(forge);
    const r = await call(twoClient, "get_project", {});
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/project_id/);
    expect(await pathsSince(forge, seq)).toEqual([]);
  });
});
