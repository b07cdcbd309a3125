#!/usr/bin/env node
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startSim } from "@agents/sims";
// An apply through a provider's request limit: the apply.mjs project (five provider_c kinds) at
// 2,000 resources, against provider_c's simulator limiting the key to 20 requests per second
// (a token bucket of 20, docs/sims.md "Request limits"), through the real CLI. The bound is what
// the limit allows: the bucket's 20 at once, then 20 per second, for every call the provider
// served. Goals: wall ≤ 1.10 × bound, fewer than 2 % of requests answered 429, nothing failed.
// Usage: npm run build && node bench/ratelimit.mjs [--per-kind N] [--rate N] [--latency MS] [--parallelism N]
import { applyConfig } from "./apply-config.mjs";
import { applyBenchOptions, cliEnvironmentNote, drainLog, headline, runAgents } from "./lib.mjs";

const { perKind, latencyMs, parallelism, values } = applyBenchOptions(
  { perKind: "400" },
  { rate: { type: "string", default: "20" } },
);
const rate = Number(values.rate);
const results = fileURLToPath(new URL("./results/ratelimit.md", import.meta.url));
const load = os.loadavg()[0].toFixed(1);

const sim = await startSim("provider_c", {
  quiet: true,
  faults: { latencyMs, rateLimit: { limit: rate, periodSeconds: 1 } },
});
const dir = mkdtempSync(join(os.tmpdir(), "agents-bench-rate-"));
try {
  writeFileSync(join(dir, "agents.yaml"), applyConfig(sim.url, perKind));
  const total = perKind * 5;
  await drainLog(sim);
  const apply = await runAgents(dir, ["apply", "-y", "--parallelism", String(parallelism)], {
    env: { C_API_KEY: "sim-provider-c-key" },
    accept: [0, 1],
  });
  const calls = await drainLog(sim);
  const refused = calls.filter((c) => c.status === 429).length;
  const served = calls.length - refused;
  const failedCalls = calls.filter((c) => c.status >= 400 && c.status !== 429).length;
  const lines = apply.stdout.trim().split("\n");
  const summary = lines.at(-1) ?? "";
  const pauseLines = lines.filter((l) => l.includes("rate limited, resuming in")).length;
  // What the limit allows: the first `rate` calls at once (the full bucket), the rest at `rate`/s.
  const boundS = Math.max(0, served - rate) / rate;
  const ratio = apply.seconds / boundS;
  const refusedShare = refused / calls.length;
  const nothingFailed = apply.status === 0 && failedCalls === 0;

  const figures = [
    `resources: ${total} on provider_c (${perKind} each of environments, vaults, memory stores, agents, deployments); limit ${rate} requests/s per key (bucket of ${rate}); ${latencyMs} ms injected latency; --parallelism ${parallelism}`,
    `apply: ${apply.seconds.toFixed(1)} s wall (CLI start-up included), exit ${apply.status}: ${summary}`,
    `requests: ${calls.length} (${served} served, ${refused} answered 429 = ${(refusedShare * 100).toFixed(2)} %, ${failedCalls} other errors); ${pauseLines} "rate limited" lines printed`,
    `bound: (${served} served − ${rate} in the full bucket) ÷ ${rate}/s = ${boundS.toFixed(1)} s; apply/bound = ${ratio.toFixed(3)}`,
  ];
  for (const line of figures) console.log(line);
  headline(
    "ratelimit",
    `apply wall / limit bound (${total} resources, ${rate} req/s)`,
    ratio.toFixed(3),
    "≤ 1.10",
    ratio <= 1.1,
  );
  headline(
    "ratelimit",
    "requests answered 429",
    `${(refusedShare * 100).toFixed(2)} %`,
    "< 2 %",
    refusedShare < 0.02,
  );
  headline(
    "ratelimit",
    "failed",
    nothingFailed ? "none" : `exit ${apply.status}, ${failedCalls} errors`,
    "none",
    nothingFailed,
  );
  appendFileSync(
    results,
    `\n## ${new Date().toISOString()}\n\nmachine: ${os.availableParallelism()} cpus (${os.cpus()[0]?.model ?? "unknown"}), node ${process.version}, ${os.platform()}, load average ${load} at start (shared machine); ${cliEnvironmentNote()}\n\n` +
      figures.map((f) => `- ${f}`).join("\n") +
      "\n",
  );
} finally {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}
