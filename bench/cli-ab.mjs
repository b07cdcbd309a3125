#!/usr/bin/env node
// A/B of two or more builds of the CLI on the 500-resource project of apply.mjs: the runs
// alternate (apply, no-change plan, destroy per build per round) against one simulator, so a
// shared machine's drift hits every build alike. Prints the median wall time and the median CPU
// time (user + system of the CLI process, steadier than wall on a noisy host) per command.
// A build is a folder holding agents.mjs, agents.cjs and agents.cjs.cache, e.g. a copy of
// packages/agents/dist/ made before a change. Records nothing.
// Usage: node bench/cli-ab.mjs [--rounds N] DIR_A DIR_B [...]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startSim } from "@agents/sims";
import { applyConfig } from "./apply-config.mjs";

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

/**
 * Runs one command of one build; resolves { wall, cpu } in seconds. The CLI reports its own CPU
 * time on a pipe as it exits (a preloaded hook: Node 20 gives a parent no child's resource usage).
 */
function run(dir, build, args, hook) {
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--require", hook, join(build, "agents.mjs"), ...args], {
      cwd: dir,
      env,
      stdio: ["ignore", "ignore", "ignore", "pipe"],
    });
    let report = "";
    child.stdio[3].on("data", (chunk) => {
      report += chunk;
    });
    child.on("error", fail);
    child.on("close", (code) => {
      const wall = (performance.now() - started) / 1000;
      if (code !== 0 && code !== 2)
        return fail(new Error(`${build}: agents ${args.join(" ")} exited ${code}`));
      const { user, system } = JSON.parse(report);
      done({ wall, cpu: (user + system) / 1e6 });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sim = await startSim("provider_c", { quiet: true, faults: { latencyMs: 50 } });
const dir = mkdtempSync(join(os.tmpdir(), "agents-ab-"));
try {
  writeFileSync(join(dir, "agents.yaml"), applyConfig(sim.url, 100));
  const hook = join(dir, "cpu-report.cjs");
  writeFileSync(
    hook,
    'process.on("exit", () => require("node:fs").writeSync(3, JSON.stringify(process.cpuUsage())));\n',
  );
  const figures = new Map(
    builds.map((b) => [b, Object.fromEntries(Object.keys(commands).map((c) => [c, []]))]),
  );
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const build of builds) {
      for (const [name, args] of Object.entries(commands))
        figures.get(build)[name].push(await run(dir, build, args, hook));
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
