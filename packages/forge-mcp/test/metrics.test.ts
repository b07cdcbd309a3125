import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen } from "../src/server.js";
import { forgeAndMcp } from "./forge-and-mcp.js";
import { type Forge, startForge } from "./forge-sim.js";
import { postToolCall, type RunningForgeMcp, register, startForgeMcp } from "./helpers.js";
import { connectV1 } from "./sdk-clients.js";

/**
 * The operator's view (docs/forge-mcp.md, "Metrics and audit"): /metrics scraped in Prometheus
 * text format, on its own port or behind a bearer token, and one audit line per writing tool call.
 */

/** The value of one sample line (`name{labels} value`), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      return Number(line.split(" ").at(-1));
  }
  return 0;
}

describe("/metrics on its own port, REMOTE_AUTHORIZATION, and the audit log", () => {
  let forge: Forge;
  let mcp: RunningForgeMcp;
  let metricsServer: Server;
  let metricsUrl: string;
  let client: Client;
  beforeAll(async () => {
    forge = await startForge();
    mcp = await startForgeMcp({
      REMOTE_AUTHORIZATION: "true",
      FORGE_API_URL: forge.apiUrl,
      GITLAB_ALLOWED_PROJECT_IDS: "1,4",
      METRICS_PORT: "0",
    });
    metricsServer = await listen(mcp.server.metricsApp!, "127.0.0.1", 0);
    metricsUrl = `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}/metrics`;
    client = new Client({ name: "metrics", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), {
        requestInit: { headers: { "Private-Token": "sim-forge-pat" } },
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    metricsServer?.close();
    await mcp?.close();
    await forge?.close();
  });

  it("counts tool calls by tool and outcome, forge latency, token-cache hits; the main port serves no metrics", async () => {
    await client.callTool({ name: "get_project", arguments: { project_id: 1 } });
    await client.callTool({ name: "get_issue", arguments: { project_id: 1, issue_iid: 999 } });
    await client.callTool({ name: "get_project", arguments: { project_id: "acme/platform/infra" } });
    const r = await fetch(metricsUrl);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await r.text();
    expect(sample(text, "forge_mcp_tool_calls_total", { tool: "get_project", outcome: "ok" })).toBe(1);
    expect(sample(text, "forge_mcp_tool_calls_total", { tool: "get_issue", outcome: "error" })).toBe(1);
    expect(sample(text, "forge_mcp_tool_calls_total", { tool: "get_project", outcome: "refused" })).toBe(1);
    expect(
      sample(text, "forge_mcp_forge_request_duration_seconds_count", { method: "GET", status_class: "2xx" }),
    ).toBeGreaterThan(0);
    expect(
      sample(text, "forge_mcp_forge_request_duration_seconds_count", { method: "GET", status_class: "4xx" }),
    ).toBeGreaterThan(0);
    // one lookup per authenticated request, whichever way it was answered (the /mcp lane or the
    // route): initialize (the miss), notifications/initialized and the three calls
    expect(sample(text, "forge_mcp_token_cache_lookups_total", { cache: "remote", result: "miss" })).toBe(1);
    expect(sample(text, "forge_mcp_token_cache_lookups_total", { cache: "remote", result: "hit" })).toBe(4);
    expect(text).toContain("forge_mcp_process_cpu_seconds_total");
    expect(text).not.toContain("sim-forge-pat");
    expect((await fetch(`${mcp.url}/metrics`)).status).toBe(404);
  });

  it("writes one audit line per writing tool call (user, tool, project, outcome), with no body and no token", async () => {
    const before = mcp.logs.length;
    await client.callTool({ name: "get_project", arguments: { project_id: 1 } });
    await client.callTool({
      name: "create_issue",
      arguments: { project_id: "acme/widgets", title: "Audit me", description: "secret plan" },
    });
    await client.callTool({ name: "create_issue", arguments: { project_id: 2, title: "Elsewhere" } });
    const audits = mcp.logs
      .slice(before)
      .map((l) => JSON.parse(l))
      .filter((l) => l.audit);
    expect(audits.map((l) => l.audit)).toEqual([
      // the allow-list resolved the path: the line names the id the forge was called by
      { user: "alice", tool: "create_issue", project: "1", project_given: "acme/widgets", outcome: "ok" },
      { user: "alice", tool: "create_issue", project: "2", outcome: "refused" },
    ]);
    const text = mcp.logs.slice(before).join("");
    expect(text).not.toContain("secret plan");
    expect(text).not.toContain("Audit me");
    expect(text).not.toContain("sim-forge-pat");
  });
});

describe("/metrics behind a bearer token, with OAuth", () => {
  const TOKEN = "metrics-token-0123456789";
  const ctx = forgeAndMcp({
    FORGE_OAUTH_CALLBACK_PROXY: "true",
    METRICS_BEARER_TOKEN: TOKEN,
    OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: "2",
  });
  const scrape = (auth?: string) =>
    fetch(`${ctx.mcp.url}/metrics`, auth ? { headers: { authorization: auth } } : {});

  it("answers 401 without the token or with another, 200 with it", async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape("Bearer metrics-token-0123456780")).status).toBe(401);
    expect((await scrape(`Bearer ${TOKEN}`)).status).toBe(200);
  });

  it("counts OAuth requests, verified-token cache hits and rate-limit refusals", async () => {
    const { client } = await connectV1(ctx.mcp.url);
    await client.callTool({ name: "get_project", arguments: { project_id: 1 } });
    await client.callTool({ name: "get_project", arguments: { project_id: 1 } });
    await client.close();
    // the sign-in registered once; the budget of 2 an hour is spent by the next one
    await register(ctx.mcp.url, { redirect_uris: ["http://127.0.0.1:8765/callback"] });
    const refused = await register(ctx.mcp.url, { redirect_uris: ["http://127.0.0.1:8765/callback"] });
    expect(refused.status).toBe(429);
    const text = await (await scrape(`Bearer ${TOKEN}`)).text();
    expect(
      sample(text, "forge_mcp_oauth_requests_total", { endpoint: "/register", status_class: "2xx" }),
    ).toBe(2);
    expect(
      sample(text, "forge_mcp_oauth_requests_total", { endpoint: "/callback", status_class: "3xx" }),
    ).toBe(1);
    expect(sample(text, "forge_mcp_oauth_requests_total", { endpoint: "/token", status_class: "2xx" })).toBe(
      1,
    );
    // one lookup per authenticated request, whichever way it was answered (the /mcp lane or the
    // route): initialize (the miss), notifications/initialized and the two calls
    expect(sample(text, "forge_mcp_token_cache_lookups_total", { cache: "oauth", result: "miss" })).toBe(1);
    expect(sample(text, "forge_mcp_token_cache_lookups_total", { cache: "oauth", result: "hit" })).toBe(3);
    expect(sample(text, "forge_mcp_rate_limited_total", { endpoint: "/register" })).toBe(1);
    expect(sample(text, "forge_mcp_tool_calls_total", { tool: "get_project", outcome: "ok" })).toBe(2);
  });
});

describe("the audit line names the project the forge was called by (a path or URL resolved to its id)", () => {
  const TTL = 60_000;
  const alice = { "private-token": "sim-forge-pat" };
  // dave is a member of nothing: acme/platform/infra (project 2, private) is hidden from him
  const dave = { "private-token": "sim-forge-pat-dave" };
  let forge: Forge;
  let clock = Date.now();
  /** The servers whose controls bind ids, so a project named by path is resolved before the call. */
  let resolving: Array<[string, RunningForgeMcp]>;
  let plain: RunningForgeMcp;
  let mover: number;
  let taker: number;
  let dir: string;
  const forgeCall = async (method: string, path: string, body?: Record<string, unknown>) => {
    const r = await fetch(`${forge.apiUrl}${path}`, {
      method,
      headers: { ...alice, "content-type": "application/json" },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status}`);
    return (await r.json()) as { id: number } & Array<{ title: string }>;
  };
  /** Which project holds an issue of this title: where the write actually landed. */
  const holder = async (title: string) => {
    for (const id of [1, mover, taker])
      if ((await forgeCall("GET", `/projects/${id}/issues?search=${encodeURIComponent(title)}`)).length)
        return String(id);
    return "none";
  };
  const auditOf = async (
    mcp: RunningForgeMcp,
    tool: string,
    args: Record<string, unknown>,
    who: Record<string, string> = alice,
  ) => {
    const before = mcp.logs.length;
    await postToolCall(mcp, tool, args, who);
    const lines = mcp.logs
      .slice(before)
      .map((l) => JSON.parse(l))
      .filter((l) => l.audit);
    expect(lines).toHaveLength(1);
    return lines[0].audit as Record<string, unknown>;
  };

  beforeAll(async () => {
    forge = await startForge();
    mover = (await forgeCall("POST", "/projects", { path: "mover", namespace_path: "acme" })).id;
    taker = (await forgeCall("POST", "/projects", { path: "taker", namespace_path: "acme" })).id;
    const bound = [1, 2, mover, taker];
    dir = mkdtempSync(join(tmpdir(), "forge-mcp-audit-"));
    const policy = join(dir, "policy.json");
    writeFileSync(
      policy,
      JSON.stringify({
        version: 1,
        policyGroups: { all: { rules: [] } },
        bindings: [{ gitlabInstance: forge.origin, policyGroup: "all", projectIds: bound }],
      }),
    );
    const env = { REMOTE_AUTHORIZATION: "true", FORGE_API_URL: forge.apiUrl, FORGE_TOOLSETS: "issues" };
    const now = { now: () => clock };
    const [listed, masked, open] = await Promise.all([
      startForgeMcp({ ...env, GITLAB_ALLOWED_PROJECT_IDS: bound.join(",") }, now),
      startForgeMcp({ ...env, GITLAB_MASKING_ENABLED: "true", GITLAB_MASKING_POLICY_FILE: policy }, now),
      startForgeMcp(env, now),
    ]);
    resolving = [
      ["GITLAB_ALLOWED_PROJECT_IDS", listed!],
      ["a managed masking policy", masked!],
    ];
    plain = open!;
  });
  afterAll(async () => {
    await Promise.all([...(resolving ?? []).map(([, m]) => m.close()), plain?.close()]);
    await forge?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  type Row = {
    name: string;
    /** Run once before the row's calls (on the forge, or the servers' clock). */
    before?: () => Promise<void> | void;
    tool: string;
    args: (title: string) => Record<string, unknown>;
    who?: Record<string, string>;
    /** The audit line's project fields and outcome. */
    want: () => Record<string, unknown>;
    /** Where the write landed, when it ran: the project the line names. */
    landed?: boolean;
  };
  // the rows run in order: the last two rename acme/mover between them
  const rows: Row[] = [
    {
      name: "given by numeric id: that id, nothing else",
      tool: "create_issue",
      args: (title) => ({ project_id: 1, title }),
      want: () => ({ project: "1", outcome: "ok" }),
      landed: true,
    },
    {
      name: "given by path (any case): the id it resolved to, the path as given beside it",
      tool: "create_issue",
      args: (title) => ({ project_id: "ACME/Widgets", title }),
      want: () => ({ project: "1", project_given: "ACME/Widgets", outcome: "ok" }),
      landed: true,
    },
    {
      name: "given by URL-encoded path",
      tool: "create_issue",
      args: (title) => ({ project_id: "acme%2Fwidgets", title }),
      want: () => ({ project: "1", project_given: "acme%2Fwidgets", outcome: "ok" }),
      landed: true,
    },
    {
      name: "given by an issue's web URL: the id, the URL's project path beside it (not the URL)",
      tool: "create_issue_note",
      args: (body) => ({ url: `${forge.origin}/acme/widgets/-/issues/1#note_9`, body }),
      want: () => ({ project: "1", project_given: "acme/widgets", outcome: "ok" }),
    },
    {
      name: "an unknown path: refused before resolution, no id made up",
      tool: "create_issue",
      args: (title) => ({ project_id: "acme/nope", title }),
      want: () => ({ project: null, project_given: "acme/nope", outcome: "refused" }),
    },
    {
      name: "a path hidden from the caller: refused as an unknown one, no id made up",
      tool: "create_issue",
      args: (title) => ({ project_id: "acme/platform/infra", title }),
      who: dave,
      want: () => ({ project: null, project_given: "acme/platform/infra", outcome: "refused" }),
    },
    {
      name: "a path renamed since the last call, another project now at it: the id the call reached (the old one, within the look-up's 60 s)",
      before: async () => {
        for (const [, mcp] of resolving)
          await auditOf(mcp, "create_issue", { project_id: "acme/mover", title: "before the rename" });
        await forgeCall("PUT", `/projects/${mover}`, { path: "mover-old" });
        await forgeCall("PUT", `/projects/${taker}`, { path: "mover" });
      },
      tool: "create_issue",
      args: (title) => ({ project_id: "acme/mover", title }),
      want: () => ({ project: String(mover), project_given: "acme/mover", outcome: "ok" }),
      landed: true,
    },
    {
      name: "the same path once the look-up expired: the id of the project now at it",
      before: () => {
        clock += TTL + 1;
      },
      tool: "create_issue",
      args: (title) => ({ project_id: "acme/mover", title }),
      want: () => ({ project: String(taker), project_given: "acme/mover", outcome: "ok" }),
      landed: true,
    },
  ];

  it.each(rows.map((r, i) => ({ ...r, i })))("$name", async (row) => {
    await row.before?.();
    for (const [control, mcp] of resolving) {
      const title = `audit row ${row.i} ${control}`;
      const audit = await auditOf(mcp, row.tool, row.args(title), row.who);
      expect(audit, control).toEqual({
        user: row.who === dave ? "dave" : "alice",
        tool: row.tool,
        ...row.want(),
      });
      if (row.landed) expect(await holder(title), `${control}: where the write landed`).toBe(audit.project);
    }
  });

  it("without a control that resolves paths, the forge is called by the path, and the line names it", async () => {
    const audit = await auditOf(plain, "create_issue", {
      project_id: "acme/widgets",
      title: "by path, plain",
    });
    expect(audit).toEqual({ user: "alice", tool: "create_issue", project: "acme/widgets", outcome: "ok" });
  });
});
