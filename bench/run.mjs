#!/usr/bin/env node
// `npm run bench`: the headline benchmarks, one after the other so they do not compete for the
// two cores. Each script prints its figures and appends them to its own bench/results/ file; each
// also reports its headline figures here, and this script prints them as one table and appends
// that table, with the machine and the date, to bench/results/summary.md.
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cliEnvironmentNote } from "./lib.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const scratch = mkdtempSync(join(os.tmpdir(), "agents-bench-"));
const headlines = join(scratch, "headlines.jsonl");
writeFileSync(headlines, "");
const machine = `${os.availableParallelism()} cpus (${os.cpus()[0]?.model ?? "unknown"}), node ${process.version}, ${os.platform()}, load average ${os.loadavg()[0].toFixed(1)} at start; ${cliEnvironmentNote()}`;
let failed = false;
for (const script of [
  "validate.mjs",
  "sims.mjs",
  "apply.mjs",
  "ratelimit.mjs",
  "scale.mjs",
  "state-postgres.mjs",
  "state-writes.mjs",
  "forge-mcp.mjs",
  "forge-mcp-tokens.mjs",
  "context.mjs",
  "sessions.mjs",
]) {
  console.log(`\n━━━ bench/${script}`);
  // tsx: state-postgres.mjs and state-writes.mjs start their server with the tests' TypeScript helper.
  const run = spawnSync(process.execPath, ["--import", "tsx", `${here}${script}`], {
    stdio: "inherit",
    env: { ...process.env, BENCH_HEADLINES: headlines },
  });
  if (run.status !== 0) {
    console.error(`bench/${script} failed (exit ${run.status ?? run.signal})`);
    failed = true;
  }
}
const rows = readFileSync(headlines, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line));
rmSync(scratch, { recursive: true, force: true });
const met = (r) => (r.met === undefined ? "" : r.met ? "yes" : "**no**");
const table = [
  "| Bench | Measure | Value | Goal | Met |",
  "|---|---|---|---|---|",
  ...rows.map((r) => `| ${r.bench} | ${r.measure} | ${r.value} | ${r.goal} | ${met(r)} |`),
].join("\n");
console.log(`\n━━━ summary (${machine})\n\n${table}`);
appendFileSync(
  fileURLToPath(new URL("./results/summary.md", import.meta.url)),
  `\n## ${new Date().toISOString()}\n\nmachine: ${machine}${failed ? "; some benches failed (see above)" : ""}\n\n${table}\n`,
);
if (failed) process.exit(1);
