import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen } from "../src/server.js";
import { forgeAndMcp } from "./forge-and-mcp.js";
import { type Forge, startForge } from "./forge-sim.js";
import { type RunningForgeMcp, register, startForgeMcp } from "./helpers.js";
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
      { user: "alice", tool: "create_issue", project: "acme/widgets", outcome: "ok" },
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
