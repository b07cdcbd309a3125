import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, forgeLogSeq, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "../helpers.js";

/**
 * The edges of the emoji, variable, milestone, CI, webhook and Orbit tools that one table row per
 * tool does not reach: the bound of download_job_artifacts, a work item reaction removed by name
 * when several people reacted, a group milestone's items under the project allow-list, a webhook
 * secret a forge echoes, a forge without Orbit, and a pipeline trigger token, which reaches the model
 * once (create_pipeline_trigger's answer): never in the reads' text or structured content, never in a
 * forge URL (the simulator logs each path with its query), never in an error.
 */

type ToolResult = { isError?: boolean; content: Array<{ text: string }>; structuredContent?: unknown };
const P = "/api/v4/projects/1";

describe("emoji, milestone and CI tools at their edges", () => {
  let forge: Forge;
  let open: RunningForgeMcp;
  let scoped: RunningForgeMcp;
  let client: Client;
  let scopedClient: Client;
  const rest = async (method: string, path: string, body?: unknown, token = "sim-forge-pat") => {
    const r = await fetch(`${forge.origin}${path}`, {
      method,
      headers: { "private-token": token, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(r.status, `${method} ${path}`).toBeLessThan(300);
    return r.status === 204 ? undefined : r.json();
  };
  const calls = async (since: number) =>
    (
      (await (await fetch(`${forge.origin}/_sim/log?since=${since}`)).json()) as {
        entries: Array<{ method: string; path: string }>;
      }
    ).entries.map((e) => `${e.method} ${e.path.split("?")[0]}`);
  const connect = async (mcp: RunningForgeMcp) => {
    const c = new Client({ name: "edges", version: "1.0.0" });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`)));
    return c;
  };

  beforeAll(async () => {
    forge = await startForge();
    const env = {
      FORGE_TOKEN: "sim-forge-pat",
      FORGE_API_URL: forge.apiUrl,
      FORGE_TOOLSETS: "all",
      FORGE_MCP_CONFIRM_DESTRUCTIVE: "off",
    };
    open = await startForgeMcp(env);
    scoped = await startForgeMcp({ ...env, GITLAB_ALLOWED_PROJECT_IDS: "1" });
    client = await connect(open);
    scopedClient = await connect(scoped);
  });
  afterAll(async () => {
    await client?.close();
    await scopedClient?.close();
    await open?.close();
    await scoped?.close();
    await forge?.close();
  });

  it("download_job_artifacts refuses an archive larger than max_bytes, and sends one that fits whole", async () => {
    const jobs = (await rest("GET", `${P}/jobs?scope=success`)) as Array<{ id: number; name: string }>;
    const build = jobs.find((j) => j.name === "build")!.id;
    const small = (await client.callTool({
      name: "download_job_artifacts",
      arguments: { project_id: 1, job_id: build, max_bytes: 16 },
    })) as ToolResult;
    expect(small.isError).toBe(true);
    expect(small.content[0]!.text).toMatch(
      /larger than max_bytes \(16\); read single files with get_job_artifact_file/,
    );
    const fits = (await client.callTool({
      name: "download_job_artifacts",
      arguments: { project_id: 1, job_id: build },
    })) as ToolResult;
    const body = JSON.parse(fits.content[0]!.text);
    expect(Buffer.from(body.content_base64, "base64").subarray(0, 2).toString()).toBe("PK");
    // the bound is checked by the schema too
    const huge = (await client.callTool({
      name: "download_job_artifacts",
      arguments: { project_id: 1, job_id: build, max_bytes: 64 * 1024 * 1024 },
    })) as ToolResult;
    expect(huge.isError).toBe(true);
  });

  it("a work item reaction removed by name is the caller's own, also when others reacted alike", async () => {
    const path = `${P}/issues/2/award_emoji`;
    const bobs = (await rest("POST", path, { name: "heart" }, "sim-forge-pat-bob")) as { id: number };
    await rest("POST", path, { name: "heart" });
    const before = await forgeLogSeq(forge);
    const r = (await client.callTool({
      name: "delete_work_item_emoji_reaction",
      arguments: { project_id: 1, iid: 2, name: "heart" },
    })) as ToolResult;
    expect(r.isError, r.content[0]!.text).toBeFalsy();
    const seen = await calls(before);
    expect(seen.slice(0, 2)).toEqual([`GET ${path}`, "GET /api/v4/user"]);
    expect(seen[2]).toMatch(new RegExp(`^DELETE ${path}/\\d+$`));
    const left = (await rest("GET", path)) as Array<{ id: number; user: { username: string } }>;
    expect(left.map((a) => [a.id, a.user.username])).toEqual([[bobs.id, "bob"]]);

    // nothing of the caller's with that name: an answer, and no DELETE
    const since = await forgeLogSeq(forge);
    const none = (await client.callTool({
      name: "delete_work_item_emoji_reaction",
      arguments: { project_id: 1, iid: 2, name: "rocket" },
    })) as ToolResult;
    expect(none.isError).toBeFalsy();
    expect(none.content[0]!.text).toMatch(/no :rocket: reaction there; nothing was removed/);
    expect(await calls(since)).toEqual([`GET ${path}`]);
  });

  it("a group milestone's issues keep only the allowed projects' under GITLAB_ALLOWED_PROJECT_IDS", async () => {
    const ms = (await rest("POST", "/api/v4/groups/acme/milestones", { title: "Shared" })) as { id: number };
    const infra = (await rest("POST", "/api/v4/projects/acme%2Fplatform%2Finfra/issues", {
      title: "Infra work",
      milestone_id: ms.id,
    })) as { project_id: number };
    await rest("PUT", `${P}/issues/1`, { milestone_id: ms.id });
    const all = JSON.parse(
      (
        (await client.callTool({
          name: "get_group_milestone_issue",
          arguments: { group_id: "acme", milestone_id: ms.id },
        })) as ToolResult
      ).content[0]!.text,
    );
    expect(new Set(all.items.map((i: { project_id: number }) => i.project_id))).toEqual(
      new Set([1, infra.project_id]),
    );
    const r = (await scopedClient.callTool({
      name: "get_group_milestone_issue",
      arguments: { group_id: "acme", milestone_id: ms.id },
    })) as ToolResult;
    const kept = JSON.parse(r.content[0]!.text);
    expect(kept.items.map((i: { project_id: number; title: string }) => i.project_id)).toEqual([1]);
  });
  const tool = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as ToolResult;

  it("a trigger token is shown only when made, and travels in the request body", async () => {
    const made = await tool("create_pipeline_trigger", { project_id: 1, description: "bot" });
    const { id, token } = JSON.parse(made.content[0]!.text) as { id: number; token: string };
    expect(token).toMatch(/^glptt-/);
    for (const [name, args] of [
      ["list_pipeline_triggers", { project_id: 1 }],
      ["get_pipeline_trigger", { project_id: 1, trigger_id: id }],
      ["update_pipeline_trigger", { project_id: 1, trigger_id: id, description: "bot 2" }],
    ] as const) {
      const r = await tool(name, args);
      expect(r.isError, name).toBeFalsy();
      expect(JSON.stringify([r.content, r.structuredContent ?? null]), name).not.toContain("glptt");
    }
    const since = await forgeLogSeq(forge);
    const run = await tool("trigger_pipeline", { project_id: 1, token, ref: "main" });
    expect(run.content[0]!.text).toMatch(/"source":"trigger"/);
    const log = (await (await fetch(`${forge.origin}/_sim/log?since=${since}`)).json()) as {
      entries: Array<{ path: string }>;
    };
    expect(log.entries.map((e) => e.path)).toEqual([`${P}/trigger/pipeline`]);
  });

  it("a refused trigger token or ref is answered without the token", async () => {
    const token = "glptt-0000000000000000000000000000000000000000";
    const wrong = await tool("trigger_pipeline", { project_id: 1, token, ref: "main" });
    expect(wrong).toMatchObject({ isError: true, content: [{ text: "Forge error 404: 404 Not found" }] });
    const made = JSON.parse(
      (await tool("create_pipeline_trigger", { project_id: 1, description: "b" })).content[0]!.text,
    );
    const badRef = await tool("trigger_pipeline", { project_id: 1, token: made.token, ref: "no-such-ref" });
    expect(badRef.isError).toBe(true);
    expect(badRef.content[0]!.text).not.toContain(made.token);
  });

  // a forge answering its own body for one request (the simulator's fault rules)
  const answer = (method: string, path: string, status: number, body: unknown) =>
    fetch(`${forge.origin}/_sim/faults`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ rules: [{ method, path, action: { type: "status", status, body } }] }),
    });
  const noFaults = () => fetch(`${forge.origin}/_sim/faults`, { method: "DELETE" });

  it("a webhook's secret tokens never reach the model, even from a forge that echoes them", async () => {
    await answer("POST", "^/api/v4/projects/1/hooks$", 201, {
      id: 77,
      url: "https://ci.example/hook",
      token: "echoed-secret",
      signing_token: "whsec_echoed",
      push_events: true,
    });
    try {
      const r = (await client.callTool({
        name: "create_webhook",
        arguments: { project_id: 1, url: "https://ci.example/hook", token: "echoed-secret" },
      })) as ToolResult;
      expect(r.isError).toBeFalsy();
      expect(JSON.parse(r.content[0]!.text)).toEqual({
        id: 77,
        url: "https://ci.example/hook",
        push_events: true,
      });
    } finally {
      await noFaults();
    }
  });

  it("a forge without Orbit answers 404: the orbit tools say it is not available there", async () => {
    await answer("GET", "^/api/v4/orbit/status$", 404, { message: "404 Not Found" });
    try {
      const r = (await client.callTool({ name: "orbit_get_status", arguments: {} })) as ToolResult;
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toMatch(
        /^Forge error 404: Orbit \(the knowledge graph\) is not available on this forge/,
      );
    } finally {
      await noFaults();
    }
  });
});
