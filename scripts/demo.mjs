#!/usr/bin/env node
// `npm run demo`: the main job, end to end, against the embedded simulators on loopback.
// Each product ships its own demo script; this runs them in order and stops at the first failure.
// The last one leaves a playground of the demo project: its URL is the demo's last line; on a
// terminal it stays up until Ctrl-C, elsewhere it is checked and stopped (docs/playground.md).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const parts = [
  [
    "agents: validate, plan, apply, edit, destroy on provider_c and provider_d, then a provider_b Forward agent with an identity, a channel and its default memory store",
    "packages/agents/demo/engine-demo.mjs",
  ],
  [
    "forge-mcp: OAuth callback proxy with the official MCP client, then a tool call",
    "packages/forge-mcp/demo/demo.mjs",
  ],
  [
    "agents playground: the graph, plans, apply and chat in a browser, on examples/provider-c",
    "packages/agents/demo/playground-demo.mjs",
  ],
];
// Ctrl-C is for the playground (the last part stops on it and cleans up): this waits for it.
process.on("SIGINT", () => {});

for (const [title, script] of parts) {
  const path = `${root}/${script}`;
  if (!existsSync(path)) {
    console.error(`demo: ${script} is missing`);
    process.exit(1);
  }
  console.log(`\n━━━ ${title}\n`);
  const run = spawnSync(process.execPath, [path], { stdio: "inherit", cwd: root });
  if (run.status !== 0) {
    console.error(`\ndemo: ${script} failed (exit ${run.status ?? run.signal})`);
    process.exit(1);
  }
}
// Nothing after the last part: its last line, the playground's URL, is the demo's last line.
