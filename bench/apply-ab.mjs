#!/usr/bin/env node
// A/B of two or more builds of the CLI on apply.mjs's measure: apply and destroy of the
// 500-resource project against the dependency-graph bound on the simulator's measured round trip.
// The builds alternate (A, B, A, B, ...) against one simulator, so a shared machine's drift hits
// every build alike, and every run is printed (not only medians): apply and destroy wall, the
// CLI's own CPU time (user + system), the HTTP calls, both ratios on the round trip measured just
// before that run, and the 1-minute load average. A build is a folder holding agents.mjs,
// agents.cjs and agents.cjs.cache, e.g. a copy of packages/agents/dist/ from another commit.
// Records nothing.
// Usage: node bench/apply-ab.mjs [--rounds N] [--per-kind N] [--latency MS] [--parallelism N] DIR_A DIR_B [...]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startSim } from "@agents/sims";
import { applyConfig } from "./apply-config.mjs";
import { cpuReportHook, drainLog, runBuild, simRoundTripMs } from "./lib.mjs";

const { values, positionals } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    "per-kind": { type: "string", default: "100" },
    latency: { type: "string", default: "50" },
    parallelism: { type: "string", default: "10" },
  },
  allowPositionals: true,
});
const builds = positionals.map((p) => resolve(p));
if (builds.length < 2) {
  console.error("usage: node bench/apply-ab.mjs [--rounds N] DIR_A DIR_B [...]");
  process.exit(2);
}
const perKind = Number(values["per-kind"]);
const latencyMs = Number(values.latency);
const parallelism = Number(values.parallelism);

const { NODE_EXTRA_CA_CERTS: _machineCa, ...inherited } = process.env;
const env = { ...inherited, AGENTS_STATE_KEY: "bench-key", C_API_KEY: "sim-provider-c-key" };

const kindOf = (path) =>
  /\/(environments|vaults|memory_stores|agents|deployments)\b/.exec(path)?.[1] ?? "other";
/**
 * Where a run's wall time went, from the simulator's log (as timeline.mjs): seconds before the
 * first request, the span of the requests and how many were in flight on average, seconds after
 * the last answer.
 */
function phases(log, startedAt, wall) {
  const calls = log.map((e) => {
    const end = Date.parse(e.at);
    return { start: end - e.durationMs, end };
  });
  const first = Math.min(...calls.map((e) => e.start));
  const last = Math.max(...calls.map((e) => e.end));
  const busy = calls.reduce((sum, e) => sum + (e.end - e.start), 0);
  return {
    before: (first - startedAt) / 1000,
    span: (last - first) / 1000,
    inFlight: busy / (last - first),
    after: (startedAt + wall * 1000 - last) / 1000,
  };
}
const phaseText = (p) =>
  `[before ${p.before.toFixed(2)} s, requests ${p.span.toFixed(2)} s at ${p.inFlight.toFixed(1)} in flight, after ${p.after.toFixed(2)} s]`;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const sim = await startSim("provider_c", { quiet: true, faults: { latencyMs } });
const dir = mkdtempSync(join(os.tmpdir(), "agents-apply-ab-"));
try {
  const hook = cpuReportHook(dir);
  const rows = new Map(builds.map((b) => [b, []]));
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const build of builds) {
      // A project folder per run: the builds may write different state versions.
      const project = mkdtempSync(join(dir, "run-"));
      writeFileSync(join(project, "agents.yaml"), applyConfig(sim.url, perKind));
      const roundTripMs = await simRoundTripMs(sim, "/agents?limit=1", { "x-api-key": "sim-provider-c-key" });
      await drainLog(sim);
      const load = os.loadavg()[0];
      const applyAt = Date.now();
      const apply = await runBuild(project, build, ["apply", "-y", "--parallelism", String(parallelism)], {
        env,
        hook,
        stdout: "count",
      });
      const applyCalls = await drainLog(sim);
      const destroyAt = Date.now();
      const destroy = await runBuild(
        project,
        build,
        ["destroy", "-y", "--parallelism", String(parallelism)],
        {
          env,
          hook,
          stdout: "count",
        },
      );
      const destroyCalls = await drainLog(sim);
      // As apply.mjs: the longest chain is max(vault, memory store, environment) → agent → deployment.
      const per = {};
      for (const e of applyCalls) per[kindOf(e.path)] = (per[kindOf(e.path)] ?? 0) + 1 / perKind;
      const c = (k) => per[k] ?? 0;
      const chain =
        Math.max(c("vaults"), c("memory_stores"), c("environments")) + c("agents") + c("deployments");
      const bound = (calls, chainCalls) =>
        Math.max((chainCalls * roundTripMs) / 1000, (calls * roundTripMs) / 1000 / parallelism);
      const row = {
        roundTripMs,
        load,
        apply,
        destroy,
        applyRatio: apply.wall / bound(applyCalls.length, chain),
        destroyRatio: destroy.wall / bound(destroyCalls.length, 3),
        calls: `${applyCalls.length}/${destroyCalls.length}`,
        applyPhases: phases(applyCalls, applyAt, apply.wall),
        destroyPhases: phases(destroyCalls, destroyAt, destroy.wall),
      };
      rows.get(build).push(row);
      console.log(
        `round ${round + 1} ${build}: load ${load.toFixed(2)}, rtt ${roundTripMs.toFixed(1)} ms, ` +
          `apply ${apply.wall.toFixed(2)} s (CPU ${apply.cpu.toFixed(2)} s) ratio ${row.applyRatio.toFixed(3)} ${phaseText(row.applyPhases)} stdout ${apply.bytes} B in ${apply.writes} reads, ` +
          `destroy ${destroy.wall.toFixed(2)} s (CPU ${destroy.cpu.toFixed(2)} s) ratio ${row.destroyRatio.toFixed(3)} ${phaseText(row.destroyPhases)}, calls ${row.calls}`,
      );
    }
  }
  for (const [build, rs] of rows) {
    console.log(
      `median ${build}: apply ratio ${median(rs.map((r) => r.applyRatio)).toFixed(3)} ` +
        `(wall ${median(rs.map((r) => r.apply.wall)).toFixed(2)} s, CPU ${median(rs.map((r) => r.apply.cpu)).toFixed(2)} s), ` +
        `apply phases median [before ${median(rs.map((r) => r.applyPhases.before)).toFixed(2)} s, ` +
        `requests ${median(rs.map((r) => r.applyPhases.span)).toFixed(2)} s, after ${median(rs.map((r) => r.applyPhases.after)).toFixed(2)} s], ` +
        `destroy ratio ${median(rs.map((r) => r.destroyRatio)).toFixed(3)} ` +
        `(wall ${median(rs.map((r) => r.destroy.wall)).toFixed(2)} s, CPU ${median(rs.map((r) => r.destroy.cpu)).toFixed(2)} s)`,
    );
  }
} finally {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}
