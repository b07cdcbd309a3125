#!/usr/bin/env node
// What forge-mcp costs a model's context, beside gitlab-mcp 2.1.64 (@zereight/mcp-gitlab, a bench
// devDependency), in one run on one forge simulator: both servers spawned over stdio with the
// simulator's personal access token, each listed by the official MCP client. Tokens ≈ bytes of the
// JSON the client hands the model (its tools array) ÷ 4.
// Usage: npm run build && node bench/context.mjs
// Appends the figures to bench/results/context.md with the date and the machine.
//
// One function per measure (`toolListTokens` below); a measure of tool results (the six daily
// calls' bytes) takes the same `connect` and adds a function and a table of its own.
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

/** tools/list as the client hands it to the model: the tools' count, bytes and tokens. */
export async function toolListTokens(client) {
  const { tools } = await client.listTools();
  const bytes = Buffer.byteLength(JSON.stringify(tools));
  return { tools: tools.length, bytes, tokens: Math.round(bytes / 4) };
}

const fmt = (n) => n.toLocaleString("en");

async function main() {
  const sim = await startForgeSim();
  const lists = {};
  for (const server of Object.keys(SERVERS))
    for (const config of Object.keys(SERVERS[server].configs)) {
      const client = await connect(server, sim.apiUrl, config);
      lists[`${server}|${config}`] = await toolListTokens(client);
      await client.close();
    }
  sim.stop();

  const rows = [];
  for (const config of Object.keys(SERVERS["forge-mcp"].configs)) {
    const ours = lists[`forge-mcp|${config}`];
    const theirs = lists[`gitlab-mcp 2.1.64|${config}`];
    const ratio = ours.tokens / theirs.tokens;
    rows.push(
      `| tools/list, ${config} | ${ours.tools} tools, ${fmt(ours.tokens)} tokens | ${theirs.tools} tools, ${fmt(theirs.tokens)} tokens | ${ratio.toFixed(2)}× |`,
    );
    console.log(
      `tools/list ${config}: forge-mcp ${ours.tools} tools ${fmt(ours.tokens)} tokens; gitlab-mcp ${theirs.tools} tools ${fmt(theirs.tokens)} tokens; ${ratio.toFixed(2)}×`,
    );
  }
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
    `\n## ${new Date().toISOString()}\n\nnproc ${os.availableParallelism()}, node ${process.version}; both servers over stdio with one PAT against one forge simulator, listed by the official MCP client (@modelcontextprotocol/sdk); tokens = bytes of the tools array as JSON ÷ 4.\n\n| Measure | forge-mcp | gitlab-mcp 2.1.64 | Ratio |\n|---|---|---|---|\n${rows.join("\n")}\n`,
  );
}

await main();
