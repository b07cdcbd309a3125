#!/usr/bin/env node
// What forge-mcp costs a model's context, beside gitlab-mcp 2.1.64 (@zereight/mcp-gitlab, a bench
// devDependency), in one run on one forge simulator: both servers spawned over stdio with the
// simulator's personal access token, each listed by the official MCP client. Tokens ≈ bytes of the
// JSON the client hands the model ÷ 4: of each tool, its name, description and inputSchema (what
// an MCP host turns into the model's tool definition; outputSchema is for the client, which
// validates results with it, and annotations are for the host), with the whole tools array beside.
// Usage: npm run build && node bench/context.mjs
// Appends the figures to bench/results/context.md with the date and the machine.
//
// One function per measure: `toolListTokens` (tools/list by configuration) and `dailyCallBytes`
// (the bytes of the text the six daily calls answer, and how many carry structuredContent).
import { appendFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { headline, startForgeSim } from "./lib.mjs";

const require = createRequire(import.meta.url);
const PAT = "sim-forge-pat";

/** The two servers, each as a command and the environment a configuration adds. */
export const SERVERS = {
  "forge-mcp": {
    command: ["packages/forge-mcp/bin/forge-mcp.js"],
    env: (apiUrl) => ({ FORGE_API_URL: apiUrl, FORGE_TOKEN: PAT }),
    configs: {
      default: {},
      "read-only": { FORGE_READ_ONLY: "true" },
      "every toolset": { FORGE_TOOLSETS: "all" },
    },
  },
  "gitlab-mcp 2.1.64": {
    command: [require.resolve("@zereight/mcp-gitlab/build/index.js")],
    env: (apiUrl) => ({ GITLAB_API_URL: apiUrl, GITLAB_PERSONAL_ACCESS_TOKEN: PAT }),
    configs: {
      default: {},
      "read-only": { GITLAB_READ_ONLY_MODE: "true" },
      "every toolset": { GITLAB_TOOLSETS: "all" },
    },
  },
};

/** The official client connected over stdio to one server in one configuration. */
export async function connect(server, apiUrl, config) {
  const s = SERVERS[server];
  const client = new Client({ name: "context-bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: s.command,
      env: { PATH: process.env.PATH, ...s.env(apiUrl), ...s.configs[config] },
      stderr: "ignore",
    }),
  );
  return client;
}

/**
 * tools/list as the model reads it: the tools' count, and bytes and tokens of what a host hands the
 * model (name, description, inputSchema), with the whole array's tokens beside.
 */
export async function toolListTokens(client) {
  const { tools } = await client.listTools();
  const modelSees = tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  const bytes = Buffer.byteLength(JSON.stringify(modelSees));
  const whole = Buffer.byteLength(JSON.stringify(tools));
  return { tools: tools.length, bytes, tokens: Math.round(bytes / 4), wholeTokens: Math.round(whole / 4) };
}

/** The six calls a working developer makes every day, with the same arguments for both servers. */
const DAILY = [
  ["list_issues", { project_id: "1" }],
  ["get_issue", { project_id: "1", issue_iid: 1 }],
  ["list_merge_requests", { project_id: "1" }],
  ["get_merge_request", { project_id: "1", merge_request_iid: 1 }],
  ["list_pipelines", { project_id: "1" }],
  ["get_project", { project_id: "1" }],
];

/**
 * The six daily calls on one server: bytes of their text (what a client that reads text hands the
 * model; structuredContent holds the same object, and a client hands the model one or the other),
 * and how many answered structuredContent.
 */
export async function dailyCallBytes(client) {
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

const fmt = (n) => n.toLocaleString("en");

async function main() {
  const sim = await startForgeSim();
  const lists = {};
  const daily = {};
  for (const server of Object.keys(SERVERS))
    for (const config of Object.keys(SERVERS[server].configs)) {
      const client = await connect(server, sim.apiUrl, config);
      lists[`${server}|${config}`] = await toolListTokens(client);
      if (config === "default") daily[server] = await dailyCallBytes(client);
      await client.close();
    }
  sim.stop();

  const rows = [];
  for (const config of Object.keys(SERVERS["forge-mcp"].configs)) {
    const ours = lists[`forge-mcp|${config}`];
    const theirs = lists[`gitlab-mcp 2.1.64|${config}`];
    const ratio = ours.tokens / theirs.tokens;
    rows.push(
      `| tools/list, ${config} | ${ours.tools} tools, ${fmt(ours.tokens)} tokens (whole array ${fmt(ours.wholeTokens)}) | ${theirs.tools} tools, ${fmt(theirs.tokens)} tokens (whole array ${fmt(theirs.wholeTokens)}) | ${ratio.toFixed(2)}× |`,
    );
    console.log(
      `tools/list ${config}: forge-mcp ${ours.tools} tools ${fmt(ours.tokens)} tokens; gitlab-mcp ${theirs.tools} tools ${fmt(theirs.tokens)} tokens; ${ratio.toFixed(2)}×`,
    );
  }
  const ours = daily["forge-mcp"];
  const theirs = daily["gitlab-mcp 2.1.64"];
  const callRatio = ours.bytes / theirs.bytes;
  rows.push(
    `| six daily calls, bytes of text | ${fmt(ours.bytes)} | ${fmt(theirs.bytes)} | ${callRatio.toFixed(2)}× |`,
    `| six daily calls with structuredContent | ${ours.structured} of 6 | ${theirs.structured} of 6 | – |`,
  );
  console.log(
    `six daily calls: forge-mcp ${fmt(ours.bytes)} bytes (${ours.structured}/6 structured); gitlab-mcp ${fmt(theirs.bytes)} bytes (${theirs.structured}/6); ${callRatio.toFixed(2)}×`,
  );
  headline(
    "forge-mcp",
    "six daily calls' bytes ÷ gitlab-mcp's",
    callRatio.toFixed(2),
    "≤ 0.6",
    callRatio <= 0.6,
  );
  headline(
    "forge-mcp",
    "six daily calls with structuredContent",
    String(ours.structured),
    "6",
    ours.structured === 6,
  );
  const def = lists["forge-mcp|default"];
  const every = lists["forge-mcp|every toolset"].tokens / lists["gitlab-mcp 2.1.64|every toolset"].tokens;
  headline("forge-mcp", "tools/list tokens, default", fmt(def.tokens), "≤ 8,000", def.tokens <= 8000);
  headline(
    "forge-mcp",
    "tools/list tokens, every toolset ÷ gitlab-mcp's",
    every.toFixed(2),
    "≤ 0.5",
    every <= 0.5,
  );
  appendFileSync(
    "bench/results/context.md",
    `\n## ${new Date().toISOString()}\n\nnproc ${os.availableParallelism()}, node ${process.version}; both servers over stdio with one PAT against one forge simulator, listed by the official MCP client (@modelcontextprotocol/sdk); tokens = bytes of name, description and inputSchema of every tool as JSON ÷ 4 (the whole array, outputSchema and annotations included, in brackets); the six daily calls' bytes are those of their text.\n\n| Measure | forge-mcp | gitlab-mcp 2.1.64 | Ratio |\n|---|---|---|---|\n${rows.join("\n")}\n`,
  );
}

await main();
