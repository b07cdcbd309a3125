#!/usr/bin/env node
// What forge-mcp costs a model's context, beside gitlab-mcp 2.1.64 (@zereight/mcp-gitlab, a bench
// devDependency) on the same forge simulator, both over stdio with one personal access token.
// One function per measure; each answers rows of { measure, forge, gitlab } and the run prints them
// with the ratio forge-mcp / gitlab-mcp.
//   dailyCallBytes: the bytes of the text the six daily calls answer (what a client that reads text
//   hands the model; forge-mcp's structuredContent holds the same object, and a client hands the
//   model one or the other), and how many of the six carry structuredContent.
// Usage: npm run build && node bench/context.mjs
// Appends the figures to bench/results/context.md with the date and the machine.
import { appendFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { startSim } from "../packages/sims/dist/index.js";
import { headline } from "./lib.mjs";

const require = createRequire(import.meta.url);
const FORGE_MCP = new URL("../packages/forge-mcp/bin/forge-mcp.js", import.meta.url).pathname;
const GITLAB_MCP = require.resolve("@zereight/mcp-gitlab/build/index.js");
const PAT = "sim-forge-pat";

/** The six calls a working developer makes every day, with the same arguments for both servers. */
const DAILY = [
  ["list_issues", { project_id: "1" }],
  ["get_issue", { project_id: "1", issue_iid: 1 }],
  ["list_merge_requests", { project_id: "1" }],
  ["get_merge_request", { project_id: "1", merge_request_iid: 1 }],
  ["list_pipelines", { project_id: "1" }],
  ["get_project", { project_id: "1" }],
];

/** An official MCP client on a server spawned over stdio. */
async function connect(script, env) {
  const client = new Client({ name: "context-bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [script],
      env: { PATH: process.env.PATH ?? "", ...env },
      stderr: "ignore",
    }),
  );
  return client;
}

/** The six daily calls on one server: bytes of their text, and how many answered structuredContent. */
async function dailyCalls(client) {
  await client.listTools(); // the official client validates structuredContent against the listed outputSchema
  let bytes = 0;
  let structured = 0;
  for (const [name, args] of DAILY) {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) throw new Error(`${name}: ${r.content?.[0]?.text}`);
    for (const c of r.content) if (c.type === "text") bytes += Buffer.byteLength(c.text);
    if (r.structuredContent) structured++;
  }
  return { bytes, structured };
}

export async function dailyCallBytes(servers) {
  const forge = await dailyCalls(servers.forge);
  const gitlab = await dailyCalls(servers.gitlab);
  return [
    { measure: "six daily calls, bytes of text", forge: forge.bytes, gitlab: gitlab.bytes, goal: 0.6 },
    { measure: "six daily calls with structuredContent", forge: forge.structured, gitlab: gitlab.structured },
  ];
}

const MEASURES = [dailyCallBytes];

async function main() {
  const sim = await startSim("forge", { port: 0 });
  const apiUrl = sim.url;
  const servers = {
    forge: await connect(FORGE_MCP, { GITLAB_PERSONAL_ACCESS_TOKEN: PAT, GITLAB_API_URL: apiUrl }),
    gitlab: await connect(GITLAB_MCP, { GITLAB_PERSONAL_ACCESS_TOKEN: PAT, GITLAB_API_URL: apiUrl }),
  };
  const rows = [];
  try {
    for (const measure of MEASURES) rows.push(...(await measure(servers)));
  } finally {
    await servers.forge.close();
    await servers.gitlab.close();
    await sim.close();
  }
  const lines = [
    "| measure | forge-mcp | gitlab-mcp 2.1.64 | ratio |",
    "|---|---|---|---|",
    ...rows.map((r) => {
      const ratio = r.gitlab ? (r.forge / r.gitlab).toFixed(2) : "–";
      const goal = r.goal === undefined ? "" : ` (goal ≤ ${r.goal})`;
      return `| ${r.measure} | ${r.forge.toLocaleString("en")} | ${r.gitlab.toLocaleString("en")} | ${ratio}${goal} |`;
    }),
  ];
  console.log(lines.join("\n"));
  for (const r of rows)
    if (r.goal !== undefined)
      headline(
        "context",
        r.measure,
        `${(r.forge / r.gitlab).toFixed(2)}×`,
        `≤ ${r.goal}×`,
        r.forge / r.gitlab <= r.goal,
      );
  appendFileSync(
    new URL("results/context.md", import.meta.url),
    `\n## ${new Date().toISOString().slice(0, 10)} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"} · Node ${process.version}\n\n${lines.join("\n")}\n`,
  );
}

await main();
