#!/usr/bin/env node
// A/B of two or more builds of the CLI on the 500-resource project of apply.mjs: the runs
// alternate (apply, no-change plan, destroy per build per round) against one simulator, so a
// shared machine's drift hits every build alike. Prints the median wall time and the median CPU
// time (user + system of the CLI process, steadier than wall on a noisy host) per command.
// A build is a folder holding agents.mjs, agents.cjs and agents.cjs.cache, e.g. a copy of
// packages/agents/dist/ made before a change. Records nothing.
// Usage: node bench/cli-ab.mjs [--rounds N] DIR_A DIR_B [...]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startSim } from "@agents/sims";
import { applyConfig } from "./apply-config.mjs";
import { cpuReportHook, runBuild } from "./lib.mjs";

const { values, positionals } = parseArgs({
  options: { rounds: { type: "string", default: "6" } },
  allowPositionals: true,
});
const builds = positionals.map((p) => resolve(p));
if (builds.length < 2) {
  console.error("usage: node bench/cli-ab.mjs [--rounds N] DIR_A DIR_B [...]");
  process.exit(2);
}
const commands = {
  apply: ["apply", "-y", "--parallelism", "10"],
  plan: ["plan", "--detailed-exitcode"],
  destroy: ["destroy", "-y", "--parallelism", "10"],
};

const { NODE_EXTRA_CA_CERTS: _machineCa, ...inherited } = process.env;
const env = { ...inherited, AGENTS_STATE_KEY: "bench-key", C_API_KEY: "sim-provider-c-key" };

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sim = await startSim("provider_c", { quiet: true, faults: { latencyMs: 50 } });
const dir = mkdtempSync(join(os.tmpdir(), "agents-ab-"));
try {
  writeFileSync(join(dir, "agents.yaml"), applyConfig(sim.url, 100));
  const hook = cpuReportHook(dir);
  const figures = new Map(
    builds.map((b) => [b, Object.fromEntries(Object.keys(commands).map((c) => [c, []]))]),
  );
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const build of builds) {
      for (const [name, args] of Object.entries(commands))
        figures.get(build)[name].push(await runBuild(dir, build, args, { env, hook, accept: [0, 2] }));
    }
  }
  for (const [build, byCommand] of figures) {
    const cells = Object.entries(byCommand).map(
      ([name, runs]) =>
        `${name} ${median(runs.map((r) => r.wall)).toFixed(3)} s (CPU ${median(runs.map((r) => r.cpu)).toFixed(2)} s)`,
    );
    console.log(`${build}: ${cells.join(", ")}`);
  }
} finally {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}
