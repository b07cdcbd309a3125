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
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startSim } from "@agents/sims";
import { cpuReportHook, runBuild } from "./lib.mjs";
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
  const hook = cpuReportHook(dir);
  await runBuild(dir, builds[0], ["apply", "-y", "--parallelism", "10"], { env, hook, accept: [0, 2] });
  for (const sim of Object.values(sims)) sim.faults.set({ latencyMs: Number(values.latency) });
  const figures = new Map(builds.map((b) => [b, []]));
  for (let round = 0; round < Number(values.rounds); round++)
    for (const build of builds)
      figures.get(build).push(
        await runBuild(dir, build, ["plan", "--detailed-exitcode"], {
          env,
          hook,
          accept: [0, 2],
          stdout: "keep",
        }),
      );
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
