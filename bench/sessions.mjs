#!/usr/bin/env node
// Sessions (issue 27): two figures on provider_c's simulator.
//
// (a) Time from `send` to the first printed token, over the simulator's injected latency: the
//     library path `agents session send` takes (Conversation.turn: the history listed, the stream
//     opened, the message posted, events parsed and printed by the CLI's own event printer) against
//     a bare node:http client making the same three requests and reading the same stream until the
//     first reply chunk. Both pay the same injected latency (per request, and per reply step), so the
//     difference of the medians is our own time. Rounds alternate between the two, each on a fresh
//     session so the history is the same size. Goal: under 5 ms of our own.
// (b) A 10,000-event stream printed with `--json` by the real CLI (`session send --json`, a reply of
//     10,000 chunks, each a delta event): peak RSS under GNU time at 1,000, 10,000 and 30,000
//     events, as is and with the JS heap capped at 16 MB (old space) and 1 MB (semi-space). As is,
//     V8 grows its young generation before it collects, so RSS rises with N whatever the program
//     keeps; capped, a run that kept its output or its events would die out of memory (before the
//     stdout drain fix, 30,000 events did). Goal: every capped run completes, and 1,000 → 30,000
//     events adds at most 10 MB.
//
// Usage: npm run build && node bench/sessions.mjs [--latency MS] [--chunk MS] [--rounds N]
//   [--sizes 1000,10000,30000] [--fixed="NODE FLAGS"] [--stdout pipe|file]
import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { agentScript, startSim } from "@agents/sims";
import { eventPrinter } from "../packages/agents/dist/cli/session-output.js";
import { Conversation, createSession, loadProject, openSession } from "../packages/agents/dist/index.js";
import { cli, cliEnvironmentNote, headline, runAgents } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    latency: { type: "string", default: "20" },
    chunk: { type: "string", default: "10" },
    rounds: { type: "string", default: "25" },
    sizes: { type: "string", default: "1000,10000,30000" },
    fixed: { type: "string", default: "--max-old-space-size=16 --max-semi-space-size=1" },
    stdout: { type: "string", default: "pipe" },
  },
});
const latencyMs = Number(values.latency);
const chunkMs = Number(values.chunk);
const rounds = Number(values.rounds);
const KEY = "sim-provider-c-key";
const results = fileURLToPath(new URL("./results/sessions.md", import.meta.url));

const yaml = (url) => `version: "1"
providers:
  provider_c:
    api_key: \${C_API_KEY}
    base_url: ${url}
environments:
  env-c: { config: { type: cloud } }
agents:
  talk:
    model: claude-sonnet-4-5
    instructions: Be brief.
    environment: env-c
`;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const sim = await startSim("provider_c", { quiet: true, faults: { latencyMs } });
const dir = mkdtempSync(join(os.tmpdir(), "agents-bench-sessions-"));
const load = os
  .loadavg()
  .map((l) => l.toFixed(2))
  .join(", ");
try {
  writeFileSync(join(dir, "agents.yaml"), yaml(sim.url));
  const env = { ...process.env, C_API_KEY: KEY, AGENTS_STATE_KEY: "bench-key" };
  await runAgents(dir, ["apply", "-y"], { env: { C_API_KEY: KEY } });
  const options = async () => ({ project: await loadProject({ file: join(dir, "agents.yaml"), env }), env });
  const o = await options();

  // ── (a) send → first printed token ──────────────────────────────────────────────────────────
  agentScript(sim).chunkMs = chunkMs;
  const agent = new http.Agent({ keepAlive: true });
  const headers = {
    "x-api-key": KEY,
    "anthropic-version": "2023-06-01",
    "anthropic-beta": "managed-agents-2026-04-01",
  };
  const url = (path) => new URL(`${sim.url}${path}`);
  const get = (path) =>
    new Promise((resolve, reject) => {
      http
        .get(url(path), { agent, headers }, (res) => {
          res.resume();
          res.on("end", resolve);
        })
        .on("error", reject);
    });
  const post = (path, body) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        url(path),
        { method: "POST", agent, headers: { ...headers, "content-type": "application/json" } },
        (res) => {
          res.resume();
          res.on("end", resolve);
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(body));
    });

  /** The bare client: list, open the stream, post, read until the first reply chunk. */
  async function bare(id) {
    const started = performance.now();
    await get(`/sessions/${id}/events?limit=100`);
    let firstAt;
    await new Promise((resolve, reject) => {
      const req = http.get(
        url(`/sessions/${id}/events/stream?event_deltas=agent.message`),
        { headers: { ...headers, accept: "text/event-stream" } },
        (res) => {
          res.setEncoding("utf8");
          let buffered = "";
          res.on("data", (chunk) => {
            buffered += chunk;
            if (firstAt === undefined && buffered.includes("(simulated) ")) {
              firstAt = performance.now();
              req.destroy();
              resolve();
            }
          });
          post(`/sessions/${id}/events`, {
            events: [{ type: "user.message", content: [{ type: "text", text: "hello" }] }],
          }).catch(reject);
        },
      );
      req.on("error", (e) => (firstAt === undefined ? reject(e) : undefined));
    });
    return firstAt - started;
  }

  /** Ours: what `agents session send ID hello` runs once the session is open. */
  async function ours(id) {
    const open = await openSession(o, id);
    let firstAt;
    const done = new AbortController();
    const printer = eventPrinter({
      json: false,
      secrets: o.project.secrets,
      write: (text) => {
        if (firstAt === undefined && text.includes("(simulated) ")) {
          firstAt = performance.now();
          done.abort();
        }
      },
    });
    const started = performance.now();
    await new Conversation(open).turn("hello", { onEvent: printer.print, signal: done.signal });
    return firstAt - started;
  }

  const fresh = async () => (await createSession(o, "talk")).id;
  for (let i = 0; i < 3; i++) {
    await ours(await fresh());
    await bare(await fresh());
  }
  const oursMs = [];
  const bareMs = [];
  for (let i = 0; i < rounds; i++) {
    oursMs.push(await ours(await fresh()));
    bareMs.push(await bare(await fresh()));
  }
  agent.destroy();
  const ownMs = median(oursMs) - median(bareMs);
  const pairedMs = median(oursMs.map((t, i) => t - bareMs[i]));

  // ── (b) 10,000 events printed with --json: peak RSS ─────────────────────────────────────────
  agentScript(sim).chunkMs = 0;
  await fetch(`${sim.origin}/_sim/faults`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ latencyMs: 0 }),
  });
  const measured = (words, flags = []) =>
    new Promise((resolve, reject) => {
      const rssFile = join(dir, ".rss");
      createSession(o, "talk").then(({ id }) => {
        const started = performance.now();
        const { NODE_EXTRA_CA_CERTS: _ca, ...inherited } = process.env;
        const child = spawn(
          "/usr/bin/time",
          ["-f", "%M", "-o", rssFile, process.execPath, ...flags, cli, "session", "send", id, "--json"],
          {
            cwd: dir,
            env: { ...inherited, C_API_KEY: KEY, AGENTS_STATE_KEY: "bench-key" },
            stdio: [
              "pipe",
              values.stdout === "file" ? openSync(join(dir, "out.jsonl"), "w") : "pipe",
              "pipe",
            ],
          },
        );
        let lines = 0;
        let stderr = "";
        child.stdout?.on("data", (d) => {
          for (let i = 0; i < d.length; i++) if (d[i] === 10) lines++;
        });
        child.stderr.on("data", (d) => {
          stderr += d;
        });
        child.on("error", reject);
        child.on("close", (status) => {
          if (status !== 0 && flags.length && stderr.includes("heap out of memory"))
            return resolve({ lines: 0, seconds: NaN, rssMb: NaN, outOfMemory: true });
          if (status !== 0) return reject(new Error(`session send exited ${status}: ${stderr}`));
          if (!child.stdout) lines = readFileSync(join(dir, "out.jsonl"), "utf8").split("\n").length - 1;
          resolve({
            lines,
            seconds: (performance.now() - started) / 1000,
            rssMb: Number(readFileSync(rssFile, "utf8").trim().split("\n").pop()) / 1024,
          });
        });
        child.stdin.end(Array.from({ length: words }, (_, i) => `w${i}`).join(" "));
      }, reject);
    });
  const SIZES = values.sizes.split(",").map(Number);
  const FIXED = values.fixed.split(" ").filter(Boolean);
  const runs = { default: new Map(SIZES.map((n) => [n, []])), fixed: new Map(SIZES.map((n) => [n, []])) };
  for (let i = 0; i < 3; i++)
    for (const n of SIZES) {
      runs.default.get(n).push(await measured(n));
      runs.fixed.get(n).push(await measured(n, FIXED));
    }
  const rss = (mode, n) => median(runs[mode].get(n).map((r) => r.rssMb));
  const completed = (n) => runs.fixed.get(n).every((r) => !r.outOfMemory);
  const first = SIZES[0];
  const last = SIZES.at(-1);
  const cappedGrowthMb = rss("fixed", last) - rss("fixed", first);
  const flat = SIZES.every(completed) && cappedGrowthMb <= 10;
  const row = (n) =>
    `| ${median(runs.default.get(n).map((r) => r.lines))} | ${rss("default", n).toFixed(1)} | ${completed(n) ? rss("fixed", n).toFixed(1) : "out of memory"} | ${median(runs.default.get(n).map((r) => r.seconds)).toFixed(2)} |`;

  const lines = [
    `## ${new Date().toISOString()}`,
    "",
    `Machine: ${os.availableParallelism()} cpus (${os.cpus()[0]?.model ?? "unknown"}), node ${process.version}, ${os.platform()}; load average ${load} at start (other sessions' test suites ran on the same 2-core machine); ${cliEnvironmentNote()}.`,
    "",
    `(a) \`send\` → first printed token, provider_c simulator with ${latencyMs} ms per request and ${chunkMs} ms per reply step, ${rounds} alternating rounds on fresh sessions (after 3 warm-up rounds each):`,
    "",
    "| Client | median ms | min ms | max ms |",
    "|---|---|---|---|",
    `| agents (Conversation.turn + the CLI's event printer) | ${median(oursMs).toFixed(1)} | ${Math.min(...oursMs).toFixed(1)} | ${Math.max(...oursMs).toFixed(1)} |`,
    `| bare node:http (same 3 requests, same stream) | ${median(bareMs).toFixed(1)} | ${Math.min(...bareMs).toFixed(1)} | ${Math.max(...bareMs).toFixed(1)} |`,
    "",
    `Our own: **${ownMs.toFixed(1)} ms** as the difference of the medians (median of the round-by-round differences: ${pairedMs.toFixed(1)} ms); goal < 5 ms: ${ownMs < 5 ? "met" : "not met"}.`,
    "",
    `(b) \`agents session send ID --json\` (the real CLI; stdout a pipe read by this process, which also runs the simulator, so the reader is often slower than the stream), a reply of N chunks, each a delta event; peak RSS under GNU time, median of 3 runs, as is and with the JS heap capped (\`${FIXED.join(" ")}\`):`,
    "",
    "| Events printed | peak RSS MB | peak RSS MB, heap capped | wall s |",
    "|---|---|---|---|",
    ...SIZES.map(row),
    "",
    `As is, the figures rise with N while V8 grows its young generation (up to 16 MB per semi-space) before collecting; with the heap capped every run ${SIZES.every(completed) ? "completes" : "does **not** complete"} and ${first} → ${last} events adds ${cappedGrowthMb.toFixed(1)} MB. Goal (bounded: every capped run completes, growth ≤ 10 MB): ${flat ? "met" : "not met"}.`,
    "",
  ];
  console.log(lines.join("\n"));
  appendFileSync(results, `\n${lines.join("\n")}`);
  headline(
    "sessions",
    "send → first printed token, our own (median)",
    `${ownMs.toFixed(1)} ms`,
    "< 5 ms",
    ownMs < 5,
  );
  headline(
    "sessions",
    `peak RSS printing ${SIZES.join(" / ")} events (--json), heap capped at 16 MB`,
    SIZES.map((n) => (completed(n) ? `${rss("fixed", n).toFixed(0)} MB` : "OOM")).join(" / "),
    "all complete, ≤ +10 MB",
    flat,
  );
} finally {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}
