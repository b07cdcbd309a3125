#!/usr/bin/env node
// A/B of two or more builds of the CLI on the no-change plan of bench/scale.mjs's project (5,000
// resources over the four providers by default). The project is applied once with the first
// build at no injected latency (to save the half minute the apply costs at 50 ms), then the
// latency is set and the builds' `plan --detailed-exitcode` runs alternate, round after round, so
// a shared machine's drift hits every build alike. Prints, per build, the median wall time (start
// to exit), the median CPU time (user + system, reported by the CLI process itself as it exits)
// and the plan's exit status and stdout's hash (the builds must print the same plan).
// A build is a folder holding agents.mjs (e.g. a copy of packages/agents/dist/ made before a
// change). Records nothing.
// Usage: node bench/scale-plan-ab.mjs [--per-kind N] [--latency MS] [--rounds N] DIR_A DIR_B [...]
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startSim } from "@agents/sims";
import { PROVIDERS, scaleConfig } from "./scale-config.mjs";

const { values, positionals } = parseArgs({
  options: {
    "per-kind": { type: "string", default: "625" },
    latency: { type: "string", default: "50" },
    rounds: { type: "string", default: "6" },
  },
  allowPositionals: true,
});
const builds = positionals.map((p) => resolve(p));
if (builds.length < 1) {
  console.error(
    "usage: node bench/scale-plan-ab.mjs [--per-kind N] [--latency MS] [--rounds N] DIR_A [DIR_B ...]",
  );
  process.exit(2);
}

const { NODE_EXTRA_CA_CERTS: _machineCa, ...inherited } = process.env;

/** One command of one build: { wall, cpu } in seconds, exit status and stdout. */
function run(dir, build, args, env, hook) {
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--require", hook, join(build, "agents.mjs"), ...args], {
      cwd: dir,
      env,
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    let report = "";
    let stdout = "";
    let stderr = "";
    child.stdio[3].on("data", (chunk) => {
      report += chunk;
    });
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", fail);
    child.on("close", (code) => {
      const wall = (performance.now() - started) / 1000;
      if (code !== 0 && code !== 2)
        return fail(new Error(`${build}: agents ${args.join(" ")} exited ${code}: ${stderr.slice(-2000)}`));
      const { user, system } = JSON.parse(report);
      done({ wall, cpu: (user + system) / 1e6, code, stdout });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sims = {};
for (const name of Object.keys(PROVIDERS)) sims[name] = await startSim(name, { quiet: true });
const dir = mkdtempSync(join(os.tmpdir(), "agents-plan-ab-"));
try {
  const urls = Object.fromEntries(Object.entries(sims).map(([n, s]) => [n, s.url]));
  writeFileSync(join(dir, "agents.yaml"), scaleConfig(urls, Number(values["per-kind"])));
  const env = {
    ...inherited,
    AGENTS_STATE_KEY: "bench-key",
    AGENTS_BASE_URL_PROVIDER_D: sims.provider_d.url,
  };
  const hook = join(dir, "cpu-report.cjs");
  writeFileSync(
    hook,
    'process.on("exit", () => require("node:fs").writeSync(3, JSON.stringify(process.cpuUsage())));\n',
  );
  await run(dir, builds[0], ["apply", "-y", "--parallelism", "10"], env, hook);
  for (const sim of Object.values(sims)) sim.faults.set({ latencyMs: Number(values.latency) });
  const figures = new Map(builds.map((b) => [b, []]));
  for (let round = 0; round < Number(values.rounds); round++)
    for (const build of builds)
      figures.get(build).push(await run(dir, build, ["plan", "--detailed-exitcode"], env, hook));
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  for (const [build, runs] of figures) {
    const outputs = new Set(
      runs.map((r) => `${r.code} ${createHash("sha256").update(r.stdout).digest("hex").slice(0, 12)}`),
    );
    console.log(
      `${build}: plan ${median(runs.map((r) => r.wall)).toFixed(3)} s wall (runs ${runs.map((r) => r.wall.toFixed(2)).join(" ")}), CPU ${median(runs.map((r) => r.cpu)).toFixed(2)} s (runs ${runs.map((r) => r.cpu.toFixed(2)).join(" ")}); exit+stdout ${[...outputs].join(", ")}`,
    );
  }
} finally {
  await Promise.all(Object.values(sims).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
}
