#!/usr/bin/env node
// Cost of `agents sync` on provider_c's simulator: N agents (every 20 of them in one
// coordinator's roster) and N/4 vaults, plus the same number of agents owned by another project
// that sync must list and skip. Every agent's instructions are changed remotely, then the real
// CLI runs `sync --dry-run` and `sync`. Reports wall time, HTTP calls and the size of the diff.
// Usage: npm run build && node bench/sync.mjs [--agents N] [--latency MS]
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startSim } from "@agents/sims";

const { values } = parseArgs({
  options: { agents: { type: "string", default: "200" }, latency: { type: "string", default: "0" } },
});
const count = Number(values.agents);
const latencyMs = Number(values.latency);
const cli = fileURLToPath(new URL("../packages/agents/dist/cli/main.js", import.meta.url));
const results = fileURLToPath(new URL("./results/sync.md", import.meta.url));
const KEY = "sim-provider-c-key";

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

// Async spawn: the simulator runs in this process, so a synchronous spawn would starve it.
function agents(dir, project, ...args) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: dir,
      env: { ...process.env, AGENTS_STATE_KEY: "bench-key", AGENTS_PROJECT: project, C_API_KEY: KEY },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0 && code !== 2) reject(new Error(`agents ${args.join(" ")} exited ${code}:\n${stderr}`));
      else resolve({ seconds: (performance.now() - started) / 1000, stdout });
    });
  });
}

async function drainLog(sim) {
  const entries = (await (await fetch(`${sim.origin}/_sim/log`)).json()).entries;
  await fetch(`${sim.origin}/_sim/log`, { method: "DELETE" });
  return entries;
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
