// Shared by the benchmarks that drive the real CLI against in-process simulators.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

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
