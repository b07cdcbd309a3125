// Shared by the benchmarks that drive the real CLI against in-process simulators.
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

export const cli = fileURLToPath(new URL("../packages/agents/dist/agents.mjs", import.meta.url));

/**
 * Spawns `program argv` (the CLI, or the CLI under a wrapper such as GNU time) in `dir` with the
 * benches' CLI environment and resolves { status, stdout, stderr } when it exits. The spawn is
 * asynchronous because the simulators run in this process: a synchronous spawn would starve them.
 */
export function spawnCli(dir, program, argv, env = {}) {
  return new Promise((resolve, reject) => {
    const { NODE_EXTRA_CA_CERTS: _machineCa, ...inherited } = process.env;
    const child = spawn(program, argv, {
      cwd: dir,
      // See cliEnvironmentNote: the simulators are plain http on loopback, no CA is needed.
      env: { ...inherited, AGENTS_STATE_KEY: "bench-key", ...env },
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
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * Runs the built CLI and resolves { seconds, stdout, status }. Exit 2 counts as success with
 * `--detailed-exitcode`, or whenever `accept` lists it.
 */
export async function runAgents(dir, args, { env = {}, accept = [0] } = {}) {
  const started = performance.now();
  const ok = args.includes("--detailed-exitcode") ? [...accept, 2] : accept;
  const { status, stdout, stderr } = await spawnCli(dir, process.execPath, [cli, ...args], env);
  const seconds = (performance.now() - started) / 1000;
  if (!ok.includes(status))
    throw new Error(`agents ${args.join(" ")} exited ${status}:\n${stderr}\n${stdout.slice(-2000)}`);
  return { seconds, stdout, status };
}

/**
 * Said beside every CLI figure: a machine that sets NODE_EXTRA_CA_CERTS (this one does, for its
 * package proxy) makes every Node process parse that CA bundle at start, about 50 ms here, which
 * is the machine's cost and not the CLI's. The benches run the CLI without it; `node -e 0` start-up
 * with and without it is measured and printed so the difference stays visible.
 */
export function cliEnvironmentNote() {
  if (!process.env.NODE_EXTRA_CA_CERTS) return "CLI environment as inherited";
  const time = (env) => {
    const runs = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      spawnSync(process.execPath, ["-e", "0"], { env });
      runs.push(performance.now() - t);
    }
    return runs.sort((a, b) => a - b)[2].toFixed(0);
  };
  const { NODE_EXTRA_CA_CERTS: _ca, ...without } = process.env;
  return `CLI run without this machine's NODE_EXTRA_CA_CERTS (node -e 0 starts in ${time(process.env)} ms with it, ${time(without)} ms without)`;
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

/**
 * The options of the apply benchmarks: resources per kind, latency (ms), parallelism, with the
 * bench's own `defaults` (the 500-resource apply's unless given) and any `extra` parseArgs options,
 * whose values come back in `values`.
 */
export function applyBenchOptions(defaults = {}, extra = {}) {
  const { values } = parseArgs({
    options: {
      "per-kind": { type: "string", default: defaults.perKind ?? "100" },
      latency: { type: "string", default: defaults.latency ?? "50" },
      parallelism: { type: "string", default: defaults.parallelism ?? "10" },
      ...extra,
    },
  });
  return {
    perKind: Number(values["per-kind"]),
    latencyMs: Number(values.latency),
    parallelism: Number(values.parallelism),
    values,
  };
}

/**
 * The simulator's own round trip at its injected latency: `calls` sequential GETs of a one-item
 * list with a bare keep-alive node:http client, median in ms. The graph bounds count exactly the
 * injected latency per call; a real server adds its own handling and a timer fires a little late,
 * so this is what one call costs at the least on this machine, whatever the client.
 */
export async function simRoundTripMs(sim, path, headers, calls = 31) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(`${sim.url}${path}`);
  const once = () =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const req = http.request(url, { agent, headers }, (res) => {
        res.resume();
        res.on("end", () => resolve(performance.now() - started));
      });
      req.on("error", reject);
      req.end();
    });
  try {
    await once();
    const times = [];
    for (let i = 0; i < calls; i++) times.push(await once());
    return times.sort((a, b) => a - b)[Math.floor(calls / 2)];
  } finally {
    agent.destroy();
  }
}

/**
 * Writes, in `dir`, the preload with which a build of the CLI reports its own CPU time on fd 3 as
 * it exits (Node 20 gives a parent no child's resource usage); returns its path, for runBuild.
 */
export function cpuReportHook(dir) {
  const hook = join(dir, "cpu-report.cjs");
  writeFileSync(
    hook,
    'process.on("exit", () => require("node:fs").writeSync(3, JSON.stringify(process.cpuUsage())));\n',
  );
  return hook;
}

/**
 * Runs one command of one build of the CLI (a folder holding agents.mjs, e.g. a copy of
 * packages/agents/dist/) in `dir`, with `env` and the cpuReportHook preloaded. Resolves { wall,
 * cpu } in seconds with the exit `code`, and stdout as `stdout: "keep"` (the text), `"count"`
 * (how many chunks and bytes it wrote: still a pipe, which costs a writer more than /dev/null) or
 * `"ignore"` asks. An exit code not in `accept` rejects, with the end of stderr.
 */
export function runBuild(dir, build, args, { env, hook, accept = [0], stdout = "ignore" }) {
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--require", hook, join(build, "agents.mjs"), ...args], {
      cwd: dir,
      env,
      stdio: ["ignore", stdout === "ignore" ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let report = "";
    let text = "";
    let writes = 0;
    let bytes = 0;
    let stderr = "";
    child.stdio[3].on("data", (chunk) => {
      report += chunk;
    });
    child.stdout?.on("data", (chunk) => {
      writes++;
      bytes += chunk.length;
      if (stdout === "keep") text += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", fail);
    child.on("close", (code) => {
      const wall = (performance.now() - started) / 1000;
      if (!accept.includes(code))
        return fail(new Error(`${build}: agents ${args.join(" ")} exited ${code}: ${stderr.slice(-2000)}`));
      const { user, system } = JSON.parse(report);
      done({ wall, cpu: (user + system) / 1e6, code, stdout: text, writes, bytes });
    });
  });
}

/**
 * The forge simulator in a process of its own (run from the repository's root); resolves its API
 * URL and a function that stops it (also called when this process exits).
 */
export async function startForgeSim() {
  const sim = spawn(process.execPath, ["packages/sims/dist/cli.js", "forge", "--port", "0"], {
    env: { PATH: process.env.PATH },
    stdio: ["ignore", "pipe", "ignore"],
  });
  const stop = () => sim.kill();
  process.on("exit", stop);
  const apiUrl = await new Promise((resolve, reject) => {
    let out = "";
    sim.stdout.on("data", (d) => {
      out += d;
      const m = /forge (\S+)\n[\s\S]*ready/.exec(out);
      if (m) resolve(m[1]);
    });
    sim.once("exit", (c) => reject(new Error(`forge simulator exited ${c}`)));
  });
  return { apiUrl, stop };
}
