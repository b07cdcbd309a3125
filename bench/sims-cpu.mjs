#!/usr/bin/env node
// Simulator CPU cost per simple GET, measured in a child process from /proc/<pid>/stat, so the figure
// holds on a busy machine where req/s (bench/sims.mjs) mostly measures the neighbours. The implied
// single-core capacity is 1 / (CPU seconds per request).
// Usage: npm run build && node bench/sims-cpu.mjs [NAME ...] [--requests N]
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import autocannon from "autocannon";

const TARGETS = {
  provider_a: { path: "/environments", headers: { authorization: "Bearer sim-provider-a-key" } },
  provider_b: { path: "/environments", headers: { authorization: "Bearer sim-provider-b-key" } },
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { requests: { type: "string", default: "20000" } },
});
const names = positionals.length ? positionals : Object.keys(TARGETS);
const amount = Number(values.requests);
const ticks = 100; // USER_HZ on Linux

function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / ticks; // utime + stime
}

for (const name of names) {
  const child = spawn(process.execPath, ["packages/sims/dist/cli.js", name, "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = new RegExp(`^${name} (\\S+)$`, "m").exec(out);
      if (m && out.includes("ready")) resolve(m[1]);
    });
    child.once("exit", () => reject(new Error(`${name} exited early`)));
  });
  const target = TARGETS[name];
  // Warm up the JIT first, then measure.
  await autocannon({ url: url + target.path, headers: target.headers, connections: 8, amount: 2000 });
  const before = cpuSeconds(child.pid);
  const started = performance.now();
  const result = await autocannon({
    url: url + target.path,
    headers: target.headers,
    connections: 8,
    amount,
  });
  const wall = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(child.pid) - before;
  child.kill("SIGTERM");
  const perReq = (cpu / amount) * 1e6;
  console.log(
    `${name.padEnd(11)} ${amount} GET ${target.path}: ${perReq.toFixed(1)} µs CPU/request → ${Math.round(amount / cpu)} req/s per core; observed ${Math.round(amount / wall)} req/s (non-2xx ${result.non2xx}, load ${os.loadavg()[0].toFixed(1)})`,
  );
}
