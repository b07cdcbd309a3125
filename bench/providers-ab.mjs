#!/usr/bin/env node
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startSim } from "@agents/sims";
// The provider_a and provider_b adapters through the real CLI on their simulators, with injected
// latency: apply wall time, HTTP calls per resource and kind during apply, and the calls of the
// no-change plan that follows (the engine's goal is one read per resource; some kinds of these
// providers need more, and this says how many).
// Usage: npm run build && node bench/providers-ab.mjs [--per-kind N] [--latency MS] [--parallelism N]
import { applyBenchOptions, drainLog, runAgents } from "./lib.mjs";

const { perKind, latencyMs, parallelism } = applyBenchOptions({ perKind: "20", latency: "20" });
const results = fileURLToPath(new URL("./results/providers-ab.md", import.meta.url));

// Per provider: environment i, vault i (two credentials), agent i (→ vault/store), deployment i
// (→ agent i, environment i); provider_b also memory store i with two seeds.
function config(aUrl, bUrl) {
  const lines = [
    'version: "1"',
    "providers:",
    "  provider_a:",
    "    api_key: sim-provider-a-key",
    "    workspace_id: llm-bench",
    `    base_url: ${aUrl}`,
    "  provider_b:",
    "    api_key: sim-provider-b-key",
    `    gateway: ${bUrl}`,
  ];
  const kinds = {};
  const add = (kind, provider, body) => {
    kinds[kind] ??= [];
    for (let i = 0; i < perKind; i++)
      kinds[kind].push(`  ${provider.at(-1)}${i}:`, `    provider: ${provider}`, ...body(i));
  };
  const credential = (name) => [
    `      - name: ${name}`,
    "        type: environment_variable",
    `        secret_name: ${name.toUpperCase()}`,
    "        secret_value: bench-secret-value",
  ];
  for (const p of ["provider_a", "provider_b"]) {
    add("environments", p, () => ["    config:", "      type: cloud"]);
    add("vaults", p, () => ["    credentials:", ...credential("one"), ...credential("two")]);
  }
  add("memory_stores", "provider_b", (i) => [
    "    entries:",
    "      - key: a.md",
    `        content: first ${i}`,
    "      - key: b.md",
    `        content: second ${i}`,
  ]);
  add("agents", "provider_a", (i) => ["    model: qwen-max", `    instructions: Agent ${i}.`]);
  add("agents", "provider_b", (i) => [
    "    model: auto",
    `    instructions: Agent ${i}.`,
    `    vault: b${i}`,
    `    memory_stores: [b${i}]`,
  ]);
  for (const p of ["provider_a", "provider_b"]) {
    add("deployments", p, (i) => [
      `    agent: ${p.at(-1)}${i}`,
      `    environment: ${p.at(-1)}${i}`,
      "    initial_events:",
      "      - type: user.message",
      `        content: Run ${i}.`,
    ]);
  }
  for (const [kind, body] of Object.entries(kinds)) lines.push(`${kind}:`, ...body);
  return `${lines.join("\n")}\n`;
}

const agents = (dir, ...args) => runAgents(dir, args);

const kindOf = (path) =>
  /\/(environments|vaults|memory_stores|agents|deployments)\b/.exec(path)?.[1] ?? "other";

function perKindCalls(entries) {
  const out = {};
  for (const e of entries) out[kindOf(e.path)] = (out[kindOf(e.path)] ?? 0) + 1 / perKind;
  return Object.entries(out)
    .sort()
    .map(([k, v]) => `${k} ${v.toFixed(1)}`)
    .join(", ");
}

const faults = { latencyMs };
const a = await startSim("provider_a", { quiet: true, faults });
const b = await startSim("provider_b", { quiet: true, faults });
const dir = mkdtempSync(join(os.tmpdir(), "agents-bench-ab-"));
try {
  writeFileSync(join(dir, "agents.yaml"), config(a.url, b.url));
  const total = { provider_a: perKind * 4, provider_b: perKind * 5 };
  await Promise.all([drainLog(a), drainLog(b)]);
  const apply = await agents(dir, "apply", "-y", "--parallelism", String(parallelism));
  const applyCalls = { provider_a: await drainLog(a), provider_b: await drainLog(b) };
  const plan = await agents(dir, "plan", "--detailed-exitcode");
  const planCalls = { provider_a: await drainLog(a), provider_b: await drainLog(b) };
  const destroy = await agents(dir, "destroy", "-y", "--parallelism", String(parallelism));

  const figures = [
    `resources: ${total.provider_a} on provider_a, ${total.provider_b} on provider_b (${perKind} per kind)`,
    `injected latency: ${latencyMs} ms per call on both simulators; --parallelism ${parallelism}`,
    `apply: ${apply.seconds.toFixed(1)} s wall for ${total.provider_a + total.provider_b} resources`,
    ...["provider_a", "provider_b"].map(
      (p) =>
        `${p} apply calls per resource and kind: ${perKindCalls(applyCalls[p])} (total ${applyCalls[p].length})`,
    ),
    ...["provider_a", "provider_b"].map(
      (p) =>
        `${p} no-change plan: ${planCalls[p].length} calls for ${total[p]} resources (${(planCalls[p].length / total[p]).toFixed(2)} per resource: ${perKindCalls(planCalls[p])})`,
    ),
    `no-change plan: ${plan.seconds.toFixed(1)} s, exit ${plan.status}`,
    `destroy: ${destroy.seconds.toFixed(1)} s`,
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
  await Promise.all([a.close(), b.close()]);
  rmSync(dir, { recursive: true, force: true });
}
