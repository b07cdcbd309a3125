#!/usr/bin/env node
// Simulator throughput: each simulator must serve >= 5,000 simple GETs per second on loopback, so a
// simulator never dominates an `agents` or `forge-mcp` benchmark.
// Usage: npm run build && node bench/sims.mjs [NAME ...] [--seconds N]
// Appends the figures to bench/results/sims.md with the date and the machine.
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { SIM_NAMES } from "@agents/sims";
import autocannon from "autocannon";
import { headline } from "./lib.mjs";

// One cheap authenticated GET per simulator: a list or a lookup its clients call all the time.
// Each simulator's folder documents its default test key (docs/sims.md).
const TARGETS = {
  provider_a: { path: "/environments", headers: { authorization: "Bearer sim-provider-a-key" } },
  provider_b: { path: "/environments", headers: { authorization: "Bearer sim-provider-b-key" } },
  provider_c: {
    path: "/environments",
    headers: {
      "x-api-key": "sim-provider-c-key",
      "anthropic-version": "2023-06-01",
      "anthropic-beta": "managed-agents-2026-04-01",
    },
  },
  provider_d: { path: "/environments", headers: { authorization: "Bearer sim-provider-d-key" } },
  forge: { path: "/user", headers: { "private-token": "sim-forge-pat" } },
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { seconds: { type: "string", default: "3" } },
});
const names = positionals.length ? positionals : SIM_NAMES;
const duration = Number(values.seconds);
const cliPath = fileURLToPath(new URL("../packages/sims/dist/cli.js", import.meta.url));
const rows = [];
// The simulator runs in its own process (the agents-sim CLI), so the load generator here does
// not share its event loop: on 2 cores the server gets one core and autocannon the other.
async function startChild(name) {
  const child = spawn(process.execPath, [cliPath, name, "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = new RegExp(`^${name} (\\S+)$`, "m").exec(out);
      if (m && out.includes("ready")) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`${name} exited early (${code})`)));
  });
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGTERM");
      }),
  };
}

for (const name of names) {
  const sim = await startChild(name);
  const target = TARGETS[name];
  const url = sim.url + target.path;
  const probe = await fetch(url, { headers: target.headers });
  // Warm the JIT up before measuring.
  await autocannon({ url, headers: target.headers, connections: 16, amount: 3000 });
  const result = await autocannon({ url, headers: target.headers, connections: 16, duration });
  await sim.stop();
  const row = {
    name,
    status: probe.status,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
  rows.push(row);
  headline("sims", `${name} GET ${target.path}, 16 connections: req/s`, String(row.rps));
  console.log(
    `${name.padEnd(11)} ${String(row.rps).padStart(7)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  (probe ${row.status}, non-2xx/errors ${row.errors})`,
  );
}

mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
const header = `\n## ${new Date().toISOString().slice(0, 10)} — ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)} (${os.cpus()[0]?.model ?? "unknown"}), node ${process.version}, ${duration}s per simulator, 16 connections, simulator in its own process\n\n| simulator | GET | req/s | p50 ms | p99 ms | non-2xx |\n|---|---|---|---|---|---|\n`;
const body = rows
  .map((r) => `| ${r.name} | ${TARGETS[r.name].path} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} |`)
  .join("\n");
appendFileSync(new URL("./results/sims.md", import.meta.url), `${header}${body}\n`);
