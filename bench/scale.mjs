#!/usr/bin/env node
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startSim } from "@agents/sims";
// 5,000 resources spread over the four providers (environments and agents on each, the kinds every
// provider has), with 50 ms injected latency, through the real CLI: apply against its bound on the
// simulators' measured round trip, the no-change plan's HTTP calls per resource and wall time,
// and the apply's peak RSS (GNU time). Goals from issue 29 item 2: plan ≤ 0.1 calls/resource and
// ≤ 1.5 s, apply ≤ 1.08 × bound, peak RSS ≤ 250 MB.
// Usage: npm run build && node bench/scale.mjs [--per-kind N] [--latency MS] [--parallelism N]
//   [--cpu-prof-dir DIR]: run the unbundled CLI (dist/cli/main.js, so a profile names our source
//   files) under `node --cpu-prof`, one .cpuprofile per command in DIR/<command>/; summarise one
//   with `node bench/cpuprofile-top.mjs FILE`. Wall figures taken this way include the profiler.
import {
  applyBenchOptions,
  cli,
  cliEnvironmentNote,
  drainLog,
  headline,
  simRoundTripMs,
  spawnCli,
} from "./lib.mjs";
import { PROVIDERS, scaleConfig } from "./scale-config.mjs";

const { perKind, latencyMs, parallelism, values } = applyBenchOptions(
  { perKind: "625" },
  { "cpu-prof-dir": { type: "string" } },
);
const profDir = values["cpu-prof-dir"];
const unbundled = fileURLToPath(new URL("./cli-unbundled.mjs", import.meta.url));
const results = fileURLToPath(new URL("./results/scale.md", import.meta.url));
const load = os.loadavg()[0].toFixed(1);

/**
 * The CLI under GNU time: wall seconds, exit status, peak RSS (MB) and the CPU seconds it used
 * (user + system): on a shared machine the CPU time says what the command costs whatever the load.
 */
async function runMeasured(dir, args, env) {
  const started = performance.now();
  const rssFile = join(dir, ".rss");
  const program = profDir ? ["--cpu-prof", `--cpu-prof-dir=${join(profDir, args[0])}`, unbundled] : [cli];
  const { status, stdout, stderr } = await spawnCli(
    dir,
    "/usr/bin/time",
    ["-f", "%M %U %S", "-o", rssFile, process.execPath, ...program, ...args],
    env,
  );
  const seconds = (performance.now() - started) / 1000;
  const [rssKb, user, system] = readFileSync(rssFile, "utf8").trim().split("\n").pop().split(" ");
  return {
    seconds,
    status,
    stdout,
    stderr,
    rssMb: Number(rssKb) / 1024,
    cpuS: Number(user) + Number(system),
  };
}

const sims = {};
for (const name of Object.keys(PROVIDERS))
  sims[name] = await startSim(name, { quiet: true, faults: { latencyMs } });
const dir = mkdtempSync(join(os.tmpdir(), "agents-bench-scale-"));
try {
  const urls = Object.fromEntries(Object.entries(sims).map(([n, s]) => [n, s.url]));
  writeFileSync(join(dir, "agents.yaml"), scaleConfig(urls, perKind));
  const env = { AGENTS_BASE_URL_PROVIDER_D: sims.provider_d.url };
  const total = perKind * 2 * Object.keys(PROVIDERS).length;
  const roundTripMs = await simRoundTripMs(sims.provider_c, "/agents?limit=1", {
    "x-api-key": "sim-provider-c-key",
  });
  const drainEach = async () =>
    Object.fromEntries(
      await Promise.all(Object.entries(sims).map(async ([n, sim]) => [n, await drainLog(sim)])),
    );
  const drainAll = async () => Object.values(await drainEach()).flat();
  await drainAll();

  // `agents validate` of the same agents.yaml, the real CLI from start to exit: no network, no state.
  const validateRuns = [];
  for (let i = 0; i < (profDir ? 1 : 5); i++) {
    const run = await runMeasured(dir, ["validate"], env);
    if (run.status !== 0) throw new Error(`validate exited ${run.status}: ${run.stderr.slice(-2000)}`);
    validateRuns.push(run);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  // The start-up every command pays (`agents --version`: the program loaded, nothing read), to
  // tell validate's own work from it.
  const versionRuns = [];
  for (let i = 0; i < (profDir ? 1 : 5); i++) versionRuns.push(await runMeasured(dir, ["--version"], env));
  const validate = {
    ms: median(validateRuns.map((r) => r.seconds * 1000)),
    cpuMs: median(validateRuns.map((r) => r.cpuS * 1000)),
    startCpuMs: median(versionRuns.map((r) => r.cpuS * 1000)),
  };

  const apply = await runMeasured(dir, ["apply", "-y", "--parallelism", String(parallelism)], env);
  const applyCalls = (await drainAll()).length;
  const plan = await runMeasured(dir, ["plan", "--detailed-exitcode"], env);
  const planEach = await drainEach();
  const planCalls = Object.values(planEach).flat();
  const byProvider = Object.fromEntries(Object.entries(planEach).map(([n, calls]) => [n, calls.length]));

  // Environments and agents do not depend on each other here: the bound is the calls at
  // `parallelism` in flight, each costing the measured round trip.
  const boundS = (applyCalls * roundTripMs) / 1000 / parallelism;
  const applyRatio = apply.seconds / boundS;
  const planPerResource = planCalls.length / total;
  const figures = [
    `validate (the CLI, start-up included, median of ${validateRuns.length}): ${validate.ms.toFixed(0)} ms wall, ${validate.cpuMs.toFixed(0)} ms CPU (user + system) (goal ≤ 400 ms); \`agents --version\` ${validate.startCpuMs.toFixed(0)} ms CPU (median of ${versionRuns.length})`,
    `resources: ${total} (${perKind} environments and ${perKind} agents on each of provider_a, provider_b, provider_c, provider_d); ${latencyMs} ms injected latency; --parallelism ${parallelism}`,
    `apply: ${apply.seconds.toFixed(1)} s wall (start-up included), exit ${apply.status}, ${applyCalls} HTTP calls, peak RSS ${apply.rssMb.toFixed(0)} MB (goal ≤ 250 MB), CPU ${apply.cpuS.toFixed(1)} s (user + system)`,
    `apply bound: ${applyCalls} calls × ${roundTripMs.toFixed(1)} ms measured round trip ÷ ${parallelism} = ${boundS.toFixed(1)} s; apply/bound = ${applyRatio.toFixed(2)} (goal ≤ 1.08)`,
    `no-change plan: ${plan.seconds.toFixed(2)} s (goal ≤ 1.5 s), exit ${plan.status}, ${planCalls.length} HTTP calls = ${planPerResource.toFixed(3)} per resource (goal ≤ 0.1); by provider: ${Object.entries(
      byProvider,
    )
      .map(([n, c]) => `${n} ${c}`)
      .join(", ")}; peak RSS ${plan.rssMb.toFixed(0)} MB, CPU ${plan.cpuS.toFixed(2)} s (user + system)`,
  ];
  for (const line of figures) console.log(line);
  if (profDir) console.log(`profiles in ${profDir}/apply and ${profDir}/plan (figures not recorded)`);
  else record(figures, { applyRatio, boundS, apply, planPerResource, plan, total, validate });
  if (apply.status !== 0) console.error(apply.stderr.slice(-2000), apply.stdout.slice(-2000));
} finally {
  await Promise.all(Object.values(sims).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
}

/** The headline rows for `npm run bench` and the figures appended to bench/results/scale.md. */
function record(figures, { applyRatio, boundS, apply, planPerResource, plan, total, validate }) {
  const where = `${total} resources over 4 providers`;
  headline(
    "scale",
    `validate (${where}), CLI start to exit: median wall`,
    `${validate.ms.toFixed(0)} ms`,
    "≤ 400 ms",
    validate.ms <= 400,
  );
  headline(
    "scale",
    "validate: median CPU (user + system)",
    `${validate.cpuMs.toFixed(0)} ms`,
    "≤ 400 ms",
    validate.cpuMs <= 400,
  );
  headline("scale", "start-up (`agents --version`): median CPU", `${validate.startCpuMs.toFixed(0)} ms`);
  headline(
    "scale",
    `apply wall / bound (${where})`,
    `${applyRatio.toFixed(2)} (${apply.seconds.toFixed(1)} s against a ${boundS.toFixed(1)} s bound)`,
    "≤ 1.08",
    applyRatio <= 1.08,
  );
  headline("scale", "apply peak RSS", `${apply.rssMb.toFixed(0)} MB`, "≤ 250 MB", apply.rssMb <= 250);
  headline(
    "scale",
    "no-change plan: calls per resource",
    planPerResource.toFixed(3),
    "≤ 0.1",
    planPerResource <= 0.1,
  );
  headline("scale", "no-change plan: wall", `${plan.seconds.toFixed(2)} s`, "≤ 1.5 s", plan.seconds <= 1.5);
  // On a shared machine the wall time follows the load; the CPU the plan used does not.
  headline(
    "scale",
    "no-change plan: CPU (user + system)",
    `${plan.cpuS.toFixed(2)} s`,
    "≤ 1.5 s",
    plan.cpuS <= 1.5,
  );
  headline("scale", "apply: CPU (user + system)", `${apply.cpuS.toFixed(1)} s`);
  appendFileSync(
    results,
    `\n## ${new Date().toISOString()}\n\nmachine: ${os.availableParallelism()} cpus (${os.cpus()[0]?.model ?? "unknown"}), node ${process.version}, ${os.platform()}, load average ${load} at start (shared machine); ${cliEnvironmentNote()}\n\n` +
      figures.map((f) => `- ${f}`).join("\n") +
      "\n",
  );
}
