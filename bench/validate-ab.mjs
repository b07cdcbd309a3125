#!/usr/bin/env node
// A/B of two or more builds of the CLI on `agents validate` of the 5,000-resource file that
// scale.mjs writes (scale-config.mjs), and on `agents --version` (the start-up alone). The builds
// run alternately, one round after another, so a shared machine's drift hits each alike; each run
// is timed as scale.mjs times it (GNU time: wall, and the CPU of user + system). Prints, per build
// and command, the median wall and CPU and the smallest CPU, and the median of the paired CPU
// differences against the first build; checks that every build prints the same output and exit
// code. A build is a folder holding agents.mjs, agents.cjs and agents.cjs.cache, e.g. a copy of
// packages/agents/dist/ made before a change. Records nothing.
// Usage: node bench/validate-ab.mjs [--rounds N] [--per-kind N] DIR_A DIR_B [...]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { spawnCli } from "./lib.mjs";
import { PROVIDERS, scaleConfig } from "./scale-config.mjs";

const { values, positionals } = parseArgs({
  options: { rounds: { type: "string", default: "7" }, "per-kind": { type: "string", default: "625" } },
  allowPositionals: true,
});
const builds = positionals.map((p) => resolve(p));
if (builds.length < 2) {
  console.error("usage: node bench/validate-ab.mjs [--rounds N] [--per-kind N] DIR_A DIR_B [...]");
  process.exit(2);
}
const perKind = Number(values["per-kind"]);
const rounds = Number(values.rounds);
const dir = mkdtempSync(join(os.tmpdir(), "agents-bench-validate-ab-"));
// validate reaches no provider: the URLs only have to be well formed.
const urls = Object.fromEntries(
  Object.keys(PROVIDERS).map((name, i) => [name, `http://127.0.0.1:${40001 + i}`]),
);
writeFileSync(join(dir, "agents.yaml"), scaleConfig(urls, perKind));
const env = { AGENTS_BASE_URL_PROVIDER_D: urls.provider_d };
const commands = { [`validate, ${perKind * 8} resources`]: ["validate"], "--version": ["--version"] };

async function run(build, args) {
  const timeFile = join(dir, ".time");
  const started = performance.now();
  const { status, stdout, stderr } = await spawnCli(
    dir,
    "/usr/bin/time",
    ["-f", "%U %S", "-o", timeFile, process.execPath, join(build, "agents.mjs"), ...args],
    env,
  );
  const wallMs = performance.now() - started;
  const [user, system] = readFileSync(timeFile, "utf8").trim().split("\n").pop().split(" ").map(Number);
  return { wallMs, cpuMs: (user + system) * 1000, output: `${status}\n${stdout}\n${stderr}` };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const loadBefore = os.loadavg()[0];
try {
  for (const [command, args] of Object.entries(commands)) {
    const results = builds.map(() => []);
    for (let round = 0; round < rounds; round++) {
      // Alternate which build goes first, so neither always runs on the warmer cache.
      const order = builds.map((_, i) => i);
      if (round % 2 === 1) order.reverse();
      for (const i of order) results[i].push(await run(builds[i], args));
    }
    const outputs = new Set(results.map((runs) => runs[0].output));
    console.log(`\n${command} (${rounds} rounds)${outputs.size === 1 ? "" : "  OUTPUTS DIFFER"}`);
    results.forEach((runs, i) => {
      const paired =
        i === 0
          ? ""
          : `, paired CPU difference ${median(runs.map((r, k) => r.cpuMs - results[0][k].cpuMs)).toFixed(0)} ms`;
      console.log(
        `  ${builds[i]}: wall ${median(runs.map((r) => r.wallMs)).toFixed(0)} ms, CPU ${median(runs.map((r) => r.cpuMs)).toFixed(0)} ms (min ${Math.min(...runs.map((r) => r.cpuMs)).toFixed(0)})${paired}`,
      );
    });
  }
  console.log(
    `\nload average ${loadBefore.toFixed(1)} before, ${os.loadavg()[0].toFixed(1)} after; ${os.availableParallelism()} cpus, node ${process.version}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
