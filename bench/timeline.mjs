#!/usr/bin/env node
// Where an apply's wall time goes: the 500-resource apply of bench/apply.mjs, with the moments
// of the run taken from the simulator's request log. Prints the time before the first request
// (start-up, config, state, plan), the span of the requests with how full the parallelism was
// kept, and the time after the last answer (final state write, exit). Then the same for the
// no-change plan and the destroy.
// Usage: npm run build && node bench/timeline.mjs [--per-kind N] [--latency MS] [--parallelism N]
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startSim } from "@agents/sims";
import { applyConfig } from "./apply-config.mjs";
import { applyBenchOptions, cliEnvironmentNote, runAgents } from "./lib.mjs";

const { perKind, latencyMs, parallelism } = applyBenchOptions();

const results = fileURLToPath(new URL("./results/timeline.md", import.meta.url));
const lines = [];

const sim = await startSim("provider_c", { quiet: true, faults: { latencyMs } });
const dir = mkdtempSync(join(os.tmpdir(), "agents-timeline-"));

async function entries() {
  const body = await (await fetch(`${sim.origin}/_sim/log`)).json();
  await fetch(`${sim.origin}/_sim/log`, { method: "DELETE" });
  return body.entries.map((e) => {
    const end = Date.parse(e.at);
    return { start: end - e.durationMs, end };
  });
}

async function timeline(label, args) {
  await entries();
  const started = Date.now();
  const run = await runAgents(dir, args, { env: { C_API_KEY: "sim-provider-c-key" }, accept: [0, 2] });
  const ended = started + run.seconds * 1000;
  const log = await entries();
  if (log.length === 0) {
    lines.push(`${label}: ${run.seconds.toFixed(2)} s, no requests`);
    console.log(lines.at(-1));
    return;
  }
  const first = Math.min(...log.map((e) => e.start));
  const last = Math.max(...log.map((e) => e.end));
  const busy = log.reduce((sum, e) => sum + (e.end - e.start), 0);
  const span = last - first;
  lines.push(
    `${label}: ${run.seconds.toFixed(2)} s wall, ${log.length} requests | before the first ${((first - started) / 1000).toFixed(2)} s | ` +
      `requests ${(span / 1000).toFixed(2)} s at ${(busy / span).toFixed(1)} in flight on average (limit ${parallelism}) | ` +
      `after the last ${((ended - last) / 1000).toFixed(2)} s`,
  );
  console.log(lines.at(-1));
}

try {
  writeFileSync(join(dir, "agents.yaml"), applyConfig(sim.url, perKind));
  await timeline("validate", ["validate"]);
  await timeline("apply", ["apply", "-y", "--parallelism", String(parallelism)]);
  await timeline("plan", ["plan", "--detailed-exitcode"]);
  await timeline("destroy", ["destroy", "-y", "--parallelism", String(parallelism)]);
  appendFileSync(
    results,
    `\n## ${new Date().toISOString()}\n\nmachine: ${os.cpus().length} cpus, ${os.cpus()[0]?.model ?? "unknown"}, node ${process.version}, ${os.platform()}, load average ${os.loadavg()[0].toFixed(1)}; ${cliEnvironmentNote()}; ` +
      `${perKind * 5} resources on provider_c, ${latencyMs} ms per call, --parallelism ${parallelism}\n\n` +
      lines.map((l) => `- ${l}`).join("\n") +
      "\n",
  );
} finally {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}
