#!/usr/bin/env node
// The PostgreSQL state backend against the file backend: the same 500-resource apply (bench/
// apply-config.mjs) on provider_c's simulator at 50 ms per call, through the real CLI, alternating
// backends round by round so both see the same machine load. PostgreSQL runs with its durable
// defaults (fsync on), on loopback. Goal: Postgres within 10% of the file backend.
// Usage: npm run build && node --import tsx bench/state-postgres.mjs [--rounds N] [--per-kind N]
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startSim } from "@agents/sims";
import { startPostgres } from "../packages/agents/test/state/pg-server.ts";
import { applyConfig } from "./apply-config.mjs";
import { drainLog, headline, runAgents } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    "per-kind": { type: "string", default: "100" },
    latency: { type: "string", default: "50" },
  },
});
const rounds = Number(values.rounds);
const perKind = Number(values["per-kind"]);
const latencyMs = Number(values.latency);
const results = fileURLToPath(new URL("./results/state-postgres.md", import.meta.url));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const server = await startPostgres({ durable: true });
const sim = await startSim("provider_c", { quiet: true, faults: { latencyMs } });
const times = { file: [], postgres: [] };
try {
  for (let round = 0; round < rounds; round++) {
    for (const backend of round % 2 === 0 ? ["file", "postgres"] : ["postgres", "file"]) {
      await fetch(`${sim.origin}/_sim/reset`, { method: "POST" });
      // A reset clears the injected faults too: put the latency back.
      await fetch(`${sim.origin}/_sim/faults`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ latencyMs }),
      });
      const dir = mkdtempSync(join(os.tmpdir(), `agents-bench-${backend}-`));
      try {
        writeFileSync(join(dir, "agents.yaml"), applyConfig(sim.url, perKind));
        const env = {
          C_API_KEY: "sim-provider-c-key",
          ...(backend === "postgres" ? { AGENTS_STATE_URL: server.url } : {}),
        };
        await drainLog(sim);
        const apply = await runAgents(dir, ["apply", "-y", "--parallelism", "10"], { env });
        times[backend].push(apply.seconds);
        const plan = await runAgents(dir, ["plan", "--detailed-exitcode"], { env });
        if (plan.status !== 0) throw new Error(`${backend}: the plan after apply is not clean`);
        console.log(`round ${round + 1} ${backend}: apply ${apply.seconds.toFixed(2)} s`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
} finally {
  await sim.close();
  await server.stop();
}
const file = median(times.file);
const postgres = median(times.postgres);
const figures = [
  `resources: ${perKind * 5} on provider_c, ${latencyMs} ms per call, --parallelism 10, ${rounds} rounds alternating backends`,
  `apply, file backend: median ${file.toFixed(2)} s (${times.file.map((t) => t.toFixed(2)).join(", ")})`,
  `apply, postgres backend (loopback, fsync on): median ${postgres.toFixed(2)} s (${times.postgres.map((t) => t.toFixed(2)).join(", ")})`,
  `postgres / file = ${(postgres / file).toFixed(3)} (goal ≤ 1.10)`,
];
for (const line of figures) console.log(line);
headline(
  "state-postgres",
  `apply on the PostgreSQL state / on the file state (${perKind * 5} resources)`,
  (postgres / file).toFixed(3),
  "≤ 1.10",
  postgres / file <= 1.1,
);
mkdirSync(join(results, ".."), { recursive: true });
appendFileSync(
  results,
  `\n## ${new Date().toISOString()}\n\nmachine: ${os.cpus().length} cpus (nproc), ${os.cpus()[0]?.model ?? "unknown"}, node ${process.version}, ${os.platform()}, load average ${os.loadavg()[0].toFixed(1)} (shared machine)\n\n` +
    figures.map((f) => `- ${f}`).join("\n") +
    "\n",
);
