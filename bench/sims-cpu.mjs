#!/usr/bin/env node
// Simulator cost per request, measured as the CPU time the simulator's own process spends: on a
// shared machine req/s swings with everyone else's load, CPU per request does not. Capacity per
// core = 1 s / CPU per request. Usage: npm run build && node bench/sims-cpu.mjs [NAME ...] [--requests N]
// Appends to bench/results/sims-<name>.md.
import { fork } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import autocannon from "autocannon";

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
  // The harness alone (control API, request log, fault injector, Express) with one trivial route: the
  // floor every simulator stands on, measured in the same conditions.
  harness: { path: "/list", headers: {} },
};

if (process.argv[2] === "--child") {
  const { createSim, startSim } = await import("@agents/sims");
  const sim =
    process.argv[3] === "harness"
      ? await createSim(
          {
            name: "harness",
            basePath: "/v1",
            createState: () => ({}),
            routes: (app) => app.get("/v1/list", (_req, res) => res.json({ data: [], next_page: null })),
            errorBody: (status, message) => ({ status, message }),
            dump: () => ({}),
          },
          { quiet: true },
        )
      : await startSim(process.argv[3], { quiet: true });
  process.send({ url: sim.url });
  process.on("message", (m) => {
    if (m === "cpu") process.send({ cpu: process.cpuUsage() });
    if (m === "stop") sim.close().then(() => process.exit(0));
  });
} else {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { requests: { type: "string", default: "20000" } },
  });
  const names = positionals.length ? positionals : ["harness", "provider_c", "provider_d"];
  const amount = Number(values.requests);
  for (const name of names) {
    const target = TARGETS[name];
    const child = fork(new URL(import.meta.url).pathname, ["--child", name]);
    const ask = (msg, key) =>
      new Promise((resolve) => {
        const on = (m) => {
          if (m[key] !== undefined) {
            child.off("message", on);
            resolve(m[key]);
          }
        };
        child.on("message", on);
        if (msg) child.send(msg);
      });
    const base = await ask(undefined, "url");
    const url = base + target.path;
    // Warm up (JIT), then measure a fixed number of requests.
    await autocannon({ url, headers: target.headers, connections: 8, amount: 2000 });
    const before = await ask("cpu", "cpu");
    const started = performance.now();
    const r = await autocannon({ url, headers: target.headers, connections: 16, amount });
    const wallMs = performance.now() - started;
    const after = await ask("cpu", "cpu");
    child.send("stop");
    const cpuUs = after.user + after.system - (before.user + before.system);
    const perRequestUs = cpuUs / amount;
    const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    const row = {
      name,
      perRequestUs: perRequestUs.toFixed(1),
      capacity: Math.round(1e6 / perRequestUs),
      observed: Math.round((amount / wallMs) * 1000),
      non2xx: r.non2xx + r.errors,
    };
    console.log(
      `${name.padEnd(11)} ${row.perRequestUs} µs CPU/request (user ${((after.user - before.user) / amount).toFixed(1)}, system ${((after.system - before.system) / amount).toFixed(1)}) → ${row.capacity} req/s per core (observed ${row.observed} req/s, load ${load}, non-2xx ${row.non2xx})`,
    );
    mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
    appendFileSync(
      new URL(`./results/sims-${name}.md`, import.meta.url),
      `\n## ${new Date().toISOString().slice(0, 16)}Z — sims-cpu.mjs, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), node ${process.version}, load ${load}\n\n` +
        `GET ${target.path}, ${amount} requests, 16 connections: ${row.perRequestUs} µs CPU per request in the simulator process → **${row.capacity} req/s per core**; observed wall-clock ${row.observed} req/s; non-2xx ${row.non2xx}.\n`,
    );
  }
}
