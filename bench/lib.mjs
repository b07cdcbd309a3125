// Shared by the benchmarks that drive the real CLI against in-process simulators.
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

export const cli = fileURLToPath(new URL("../packages/agents/dist/agents.mjs", import.meta.url));

/**
 * Runs the built CLI and resolves { seconds, stdout, status }. The spawn is asynchronous because the
 * simulators run in this process: a synchronous spawn would starve them. Exit 2 counts as success
 * with `--detailed-exitcode`, or whenever `accept` lists it.
 */
export function runAgents(dir, args, { env = {}, accept = [0] } = {}) {
  const started = performance.now();
  const ok = args.includes("--detailed-exitcode") ? [...accept, 2] : accept;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: dir,
      env: { ...process.env, AGENTS_STATE_KEY: "bench-key", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (status) => {
      const seconds = (performance.now() - started) / 1000;
      if (!ok.includes(status)) {
        reject(new Error(`agents ${args.join(" ")} exited ${status}:\n${stderr}\n${stdout.slice(-2000)}`));
      } else resolve({ seconds, stdout, status });
    });
  });
}

/** The simulator's request log since the last call (read, then cleared). */
export async function drainLog(sim) {
  const entries = (await (await fetch(`${sim.origin}/_sim/log`)).json()).entries;
  await fetch(`${sim.origin}/_sim/log`, { method: "DELETE" });
  return entries;
}

/**
 * Records a headline figure for `npm run bench`'s one table (bench/run.mjs sets BENCH_HEADLINES to
 * a file; run alone, a bench prints its figures and records nothing here). `goal` is the text of
 * the target, `met` whether the figure reaches it (undefined when there is no target).
 */
export function headline(bench, measure, value, goal = "", met = undefined) {
  const file = process.env.BENCH_HEADLINES;
  if (!file) return;
  appendFileSync(file, `${JSON.stringify({ bench, measure, value, goal, met })}\n`);
}

/** The options of the 500-resource apply benchmarks: resources per kind, latency, parallelism. */
export function applyBenchOptions() {
  const { values } = parseArgs({
    options: {
      "per-kind": { type: "string", default: "100" },
      latency: { type: "string", default: "50" },
      parallelism: { type: "string", default: "10" },
    },
  });
  return {
    perKind: Number(values["per-kind"]),
    latencyMs: Number(values.latency),
    parallelism: Number(values.parallelism),
  };
}
