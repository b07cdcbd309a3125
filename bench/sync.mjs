#!/usr/bin/env node
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startSim } from "@agents/sims";
// Cost of `agents sync` on provider_c's simulator: N agents (every 20 of them in one
// coordinator's roster) and N/4 vaults, plus the same number of agents owned by another project
// that sync must list and skip. Every agent's instructions are changed remotely, then the real
// CLI runs `sync --dry-run` and `sync`. Reports wall time, HTTP calls and the size of the diff.
// Usage: npm run build && node bench/sync.mjs [--agents N] [--latency MS]
import { drainLog, runAgents } from "./lib.mjs";

const { values } = parseArgs({
  options: { agents: { type: "string", default: "200" }, latency: { type: "string", default: "0" } },
});
const count = Number(values.agents);
const latencyMs = Number(values.latency);
const results = fileURLToPath(new URL("./results/sync.md", import.meta.url));
const KEY = "sim-provider-c-key";

const agents = (dir, project, ...args) =>
  runAgents(dir, args, { env: { AGENTS_PROJECT: project, C_API_KEY: KEY }, accept: [0, 2] });

function config(baseUrl) {
  const lines = [
    'version: "1"',
    "providers:",
    "  provider_c:",
    "    api_key: ${C_API_KEY}",
    `    base_url: ${baseUrl}`,
  ];
  lines.push("vaults:");
  for (let v = 0; v < count / 4; v++)
    lines.push(`  v${v}: # vault ${v}`, "    provider: provider_c", `    display_name: Vault ${v}`);
  lines.push("agents:");
  for (let i = 0; i < count; i++) {
    const lead = i % 21 === 0;
    lines.push(
      `  a${i}: # agent ${i}`,
      "    provider: provider_c",
      "    model: claude-sonnet-4-5",
      `    instructions: Agent ${i}.`,
    );
    if (lead && i + 20 < count) {
      lines.push("    multiagent:", "      type: coordinator", "      agents:");
      for (let m = i + 1; m <= i + 20; m++) lines.push(`        - a${m}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

const headers = {
  "x-api-key": KEY,
  "anthropic-version": "2023-06-01",
  "anthropic-beta": "managed-agents-2026-04-01",
  "content-type": "application/json",
};
async function call(sim, method, path, body) {
  const res = await fetch(`${sim.url}${path}`, { method, headers, body: body && JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

const sim = await startSim("provider_c", { quiet: true });
const dir = mkdtempSync(join(os.tmpdir(), "agents-bench-sync-"));
const otherDir = mkdtempSync(join(os.tmpdir(), "agents-bench-sync-other-"));
try {
  writeFileSync(join(dir, "agents.yaml"), config(sim.url));
  writeFileSync(join(otherDir, "agents.yaml"), config(sim.url));
  await agents(dir, "bench", "apply", "-y");
  await agents(otherDir, "other", "apply", "-y");
  // Change every agent of the benched project "outside agents".
  let page;
  do {
    const list = await call(sim, "GET", `/agents?limit=100${page ? `&page=${page}` : ""}`);
    for (const a of list.data)
      if (a.metadata?.["agents.project"] === "bench")
        await call(sim, "POST", `/agents/${a.id}`, {
          version: a.version,
          system: `${a.system} Changed remotely.`,
        });
    page = list.next_page;
  } while (page);
  if (latencyMs > 0)
    await fetch(`${sim.origin}/_sim/faults`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ latencyMs }),
    });
  await drainLog(sim);
  const dry = await agents(dir, "bench", "sync", "--dry-run");
  const dryCalls = await drainLog(sim);
  const sync = await agents(dir, "bench", "sync");
  const syncCalls = await drainLog(sim);
  if (process.env.SHOW_DIFF) console.log(dry.stdout);
  const diffLines = dry.stdout.split("\n").filter((l) => /^[-+] /.test(l) || /^[-+]\s/.test(l)).length;
  const figures = [
    `objects: ${count} agents + ${count / 4} vaults per project, 2 projects on one provider_c simulator (${Math.floor(count / 21)} coordinators with 20 members each)`,
    `injected latency: ${latencyMs} ms per call`,
    `sync --dry-run: ${dry.seconds.toFixed(2)} s wall, ${dryCalls.length} HTTP calls, ${diffLines} diff lines`,
    `sync (write): ${sync.seconds.toFixed(2)} s wall, ${syncCalls.length} HTTP calls`,
  ];
  for (const line of figures) console.log(line);
  mkdirSync(join(results, ".."), { recursive: true });
  appendFileSync(
    results,
    `\n## ${new Date().toISOString()}\n\nmachine: ${os.cpus().length} cpus (nproc), ${os.cpus()[0]?.model ?? "unknown"}, node ${process.version}, ${os.platform()}\n\n` +
      figures.map((f) => `- ${f}`).join("\n") +
      "\n",
  );
} finally {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(otherDir, { recursive: true, force: true });
}
