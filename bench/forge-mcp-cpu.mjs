#!/usr/bin/env node
// forge-mcp's own CPU time per tools/call, A against B on the same machine at the same moment: the
// figure a shared, loaded host changes least (wall-clock throughput there mostly measures how much
// of the cores the other jobs leave). One forge simulator (20 ms latency) and one forge-mcp process
// per build; rounds alternate between the builds, each round a fixed number of calls from 16
// closed-loop clients per tool, and the CPU time (user + system, from /proc) each forge-mcp spent
// on it is divided by the calls. Medians over the rounds, plus the resident set's peak.
// Usage: npm run build && node bench/forge-mcp-cpu.mjs [--a PATH] [--b PATH] [--rounds N]
//          [--calls N] [--node-option FLAG]... [--revision 2025|2026]
//   --a, --b: forge-mcp main.js of the two builds (a copy of an earlier packages/forge-mcp/dist
//     under node_modules/.bench-builds/NAME/, where it resolves the same packages and neither git
//     nor the linter sees it); --b defaults to this checkout's build, --a to none
//   --revision: the MCP revision the calls are made in (bench/forge-mcp-calls.mjs; 2025 by default)
//   --node-option: a node flag for both forge-mcp processes (say --max-semi-space-size=4)
//   --node-option-a, --node-option-b: a node flag for one of them only
//   --env-a, --env-b NAME=VALUE: an environment variable for one of them (say LOG_LEVEL=info; the
//     default is LOG_LEVEL=warn, where no line is written per call)
// Appends the table to bench/results/forge-mcp-cpu.md with the date, the machine and the load.
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import os from "node:os";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { mcpToolCall, succeeded } from "./forge-mcp-calls.mjs";

const { values } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string", default: "packages/forge-mcp/dist/main.js" },
    rounds: { type: "string", default: "5" },
    calls: { type: "string", default: "2000" },
    label: { type: "string" },
    revision: { type: "string", default: "2025" },
    "node-option": { type: "string", multiple: true, default: [] },
    "node-option-a": { type: "string", multiple: true, default: [] },
    "node-option-b": { type: "string", multiple: true, default: [] },
    "env-a": { type: "string", multiple: true, default: [] },
    "env-b": { type: "string", multiple: true, default: [] },
  },
});
const CLIENTS = 16;
const LATENCY_MS = 20;
const rounds = Number(values.rounds);
const calls = Number(values.calls);
const loadAtStart = os.loadavg()[0];

function spawnUntil(args, env, pattern) {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d.toString();
      const m = out.match(pattern);
      if (m) resolve({ child, match: m });
    });
    child.once("exit", (code) => reject(new Error(`${args.at(-1)} exited with ${code}: ${out.slice(-500)}`)));
  });
}
const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const p = probe.address().port;
      probe.close(() => resolve(p));
    });
  });
const proc = (pid, field) => readFileSync(`/proc/${pid}/${field}`, "utf8");
/** user + system CPU time of a process so far, ms (USER_HZ 100) */
const cpuMs = (pid) => {
  const f = proc(pid, "stat").split(") ")[1].split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
};
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(proc(pid, "status"))[1]) / 1024;
const hwmMiB = (pid) => Number(/VmHWM:\s+(\d+)/.exec(proc(pid, "status"))[1]) / 1024;

const sim = await spawnUntil(
  ["packages/sims/dist/cli.js", "forge", "--port", "0"],
  {},
  /forge (\S+)\n[\s\S]*ready/,
);
const forgeApi = sim.match[1];
await fetch(`${forgeApi.replace(/\/api\/v4$/, "")}/_sim/faults`, {
  method: "PUT",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ latencyMs: LATENCY_MS }),
});

async function startMcp(main, flags, env) {
  const port = await freePort();
  const child = spawn(process.execPath, [...values["node-option"], ...flags, main], {
    env: {
      PATH: process.env.PATH,
      MCP_TRANSPORT: "http",
      FORGE_TOKEN: "sim-forge-pat",
      FORGE_API_URL: forgeApi,
      PORT: String(port),
      LOG_LEVEL: "warn",
      ...Object.fromEntries(env.map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)])),
    },
    stdio: "ignore",
  });
  for (let i = 0; i < 200; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    main,
    flags,
    env,
    child,
    url: `http://127.0.0.1:${port}/mcp`,
    idle: rssMiB(child.pid),
    cpu: {},
    tput: {},
  };
}
const builds = [];
if (values.a) builds.push(await startMcp(values.a, values["node-option-a"], values["env-a"]));
builds.push(await startMcp(values.b, values["node-option-b"], values["env-b"]));

const tools = [
  { kind: "read", tool: "whoami", args: {} },
  {
    kind: "write",
    tool: "create_issue_note",
    args: { project_id: "acme/widgets", issue_iid: 1, body: "bench note" },
  },
];
const run = (opts) =>
  new Promise((resolve, reject) =>
    autocannon({ connections: CLIENTS, ...opts }, (e, r) => (e ? reject(e) : resolve(r))),
  );
const callOpts = (b, t, amount) => ({
  url: b.url,
  method: "POST",
  ...mcpToolCall(values.revision, t.tool, t.args),
  amount,
});
// one call of each first: an answer carrying an error would be measured as fast as a success
for (const b of builds)
  for (const t of tools) {
    const { headers, body } = mcpToolCall(values.revision, t.tool, t.args);
    const answer = await (await fetch(b.url, { method: "POST", headers, body })).json();
    if (!succeeded(values.revision, answer))
      throw new Error(`${t.tool} at ${values.revision}: ${JSON.stringify(answer).slice(0, 300)}`);
  }
// warm-up: every tool on every build (JIT, pools, heap at its working size)
for (const b of builds) for (const t of tools) await run(callOpts(b, t, calls));
for (let r = 0; r < rounds; r++) {
  for (const t of tools) {
    // alternate which build goes first, so neither always meets the same moment of the load
    for (const b of r % 2 ? [...builds].reverse() : builds) {
      const before = cpuMs(b.child.pid);
      const res = await run(callOpts(b, t, calls));
      if (res.non2xx > 0 || res.errors > 0)
        throw new Error(`${t.tool}: ${res.non2xx} non-2xx, ${res.errors} errors`);
      b.cpu[t.kind] = [...(b.cpu[t.kind] ?? []), (cpuMs(b.child.pid) - before) / res.requests.total];
      b.tput[t.kind] = [...(b.tput[t.kind] ?? []), res.requests.total / (res.duration || 1)];
    }
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = builds.map((b) => {
  const how = [...values["node-option"], ...b.flags, ...b.env];
  const name = `${b.main}${how.length ? ` (${how.join(" ")})` : ""}`;
  return `| ${name} | ${median(b.cpu.read).toFixed(2)} ms (${b.cpu.read.map((x) => x.toFixed(2)).join(", ")}) | ${median(b.cpu.write).toFixed(2)} ms (${b.cpu.write.map((x) => x.toFixed(2)).join(", ")}) | ${median(b.tput.read).toFixed(0)} / ${median(b.tput.write).toFixed(0)} calls/s | ${b.idle.toFixed(0)} → ${hwmMiB(b.child.pid).toFixed(0)} MiB |`;
});
const table = [
  "| forge-mcp build | CPU per read call (whoami), median (rounds) | CPU per write call (create_issue_note), median (rounds) | calls/s read / write (median, wall clock: noisy) | RSS idle → peak (VmHWM) |",
  "|---|---|---|---|---|",
  ...rows,
].join("\n");
console.log(table);
for (const b of builds) b.child.kill();
sim.child.kill();
appendFileSync(
  "bench/results/forge-mcp-cpu.md",
  `\n## ${new Date().toISOString()}${values.label ? ` — ${values.label}` : ""}\n\nnproc ${os.availableParallelism()}, node ${process.version}, ${os.cpus()[0]?.model ?? "cpu"}, load average ${loadAtStart.toFixed(1)} at start, ${os.loadavg()[0].toFixed(1)} at the end (machine shared with other jobs). MCP revision ${values.revision}; forge simulator at ${LATENCY_MS} ms, ${CLIENTS} closed-loop clients, ${calls} calls per tool per round, ${rounds} rounds alternating between the builds, after one unmeasured round each.\n\n${table}\n`,
);
