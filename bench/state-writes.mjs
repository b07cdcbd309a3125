#!/usr/bin/env node
// What a run that changes a few resources writes to the state, as the state grows: on each backend
// (the file; PostgreSQL on loopback with fsync on), a state of N resources is stored, then a run
// records a few steps (each its own update, as apply's steps are) and releases the state. Counted
// per run: the bytes of whole-state writes, the bytes of journal appends and compaction, and the
// run's time from lock to release. Issue 29 item 2: each state write costs O(changed resources),
// not O(state): met when the bytes a run writes do not grow with the state (largest state within
// 1.5× of the smallest).
// Usage: npm run build && node --import tsx bench/state-writes.mjs [--sizes 500,5000,20000] [--changes 5]
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { FileBackend, LockedState, PostgresBackend } from "../packages/agents/dist/index.js";
import { startPostgres } from "../packages/agents/test/state/pg-server.ts";
import { headline } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "500,5000,20000" },
    changes: { type: "string", default: "5" },
  },
});
const sizes = values.sizes.split(",").map(Number);
const changes = Number(values.changes);
const results = fileURLToPath(new URL("./results/state-writes.md", import.meta.url));

/** A state entry shaped like an applied agent's (about 600 bytes of JSON). */
function entry(i, round) {
  const address = `provider_c.agents["agent-${i}"]`;
  return {
    address,
    kind: "agents",
    name: `agent-${i}`,
    provider: "provider_c",
    id: `agent_${String(i).padStart(24, "0")}`,
    external: false,
    spec: {
      model: "claude-sonnet-4-5",
      instructions: `Agent ${i}, round ${round}: answer the questions about the project carefully.`,
      tools: { builtin: ["bash", "read", "grep"], permissions: { Bash: "ask", READ: "allow" } },
      metadata: { "agents.dev/project": "bench", "agents.dev/address": address },
    },
    version: round,
    dependsOn: [`provider_c.environments["env-${i % 50}"]`],
    updatedAt: new Date().toISOString(),
  };
}

/** Counts what the backend's storage is asked to write (whole states, journal entries). */
function counting(backend) {
  const counts = { wholeWrites: 0, wholeBytes: 0, journalBytes: 0 };
  const lock = backend.lock.bind(backend);
  backend.lock = async (info) => {
    const storage = await lock(info);
    return {
      ...storage,
      write: (next, previous) => {
        const { pending: _p, ...durable } = next;
        counts.wholeWrites++;
        counts.wholeBytes += Buffer.byteLength(JSON.stringify(durable));
        return storage.write(next, previous);
      },
      appendJournal: (entries) => {
        counts.journalBytes += Buffer.byteLength(entries.map((e) => `${JSON.stringify(e)}\n`).join(""));
        return storage.appendJournal(entries);
      },
      compactJournal: (pending) => {
        counts.journalBytes += Buffer.byteLength(pending.map((e) => `${JSON.stringify(e)}\n`).join(""));
        return storage.compactJournal(pending);
      },
    };
  };
  return counts;
}

async function measure(makeBackend, size) {
  // Seed: the whole state in one run.
  const seeding = makeBackend();
  const seed = await LockedState.open(seeding, "bench seed");
  await seed.update((resources) => {
    for (let i = 0; i < size; i++) resources[`provider_c.agents["agent-${i}"]`] = entry(i, 0);
  });
  await seed.release();
  await seeding.close();
  // The measured run: `changes` steps recorded one by one, then released. Three runs, median.
  const runs = [];
  for (let round = 1; round <= 3; round++) {
    const backend = makeBackend();
    const counts = counting(backend);
    const started = performance.now();
    const locked = await LockedState.open(backend, "bench apply");
    const opened = performance.now();
    for (let c = 0; c < changes; c++) {
      const i = (c * 7919 + round) % size;
      await locked.update((resources) => {
        resources[`provider_c.agents["agent-${i}"]`] = entry(i, round);
      });
    }
    const stepped = performance.now();
    await locked.release();
    const ended = performance.now();
    await backend.close();
    runs.push({
      ...counts,
      openMs: opened - started,
      stepsMs: stepped - opened,
      releaseMs: ended - stepped,
      totalMs: ended - started,
    });
  }
  runs.sort((a, b) => a.totalMs - b.totalMs);
  return runs[1];
}

const server = await startPostgres({ durable: true });
const dir = mkdtempSync(join(os.tmpdir(), "agents-bench-state-writes-"));
const rows = [];
try {
  for (const size of sizes) {
    const file = await measure(() => new FileBackend(join(dir, `state-${size}.json`)), size);
    rows.push({ backend: "file", size, ...file });
    const postgres = await measure(
      () => new PostgresBackend({ url: server.url, workspace: `bench-${size}`, schema: "agents_state" }),
      size,
    );
    rows.push({ backend: "postgres", size, ...postgres });
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

const kb = (bytes) => (bytes / 1024).toFixed(1);
const table = [
  "| Backend | State (resources) | Whole writes | Whole bytes (KiB) | Journal bytes (KiB) | Open ms | Steps ms | Release ms | Run ms |",
  "|---|---|---|---|---|---|---|---|---|",
  ...rows.map(
    (r) =>
      `| ${r.backend} | ${r.size} | ${r.wholeWrites} | ${kb(r.wholeBytes)} | ${kb(r.journalBytes)} | ${r.openMs.toFixed(1)} | ${r.stepsMs.toFixed(1)} | ${r.releaseMs.toFixed(1)} | ${r.totalMs.toFixed(1)} |`,
  ),
].join("\n");
console.log(table);
for (const backend of ["file", "postgres"]) {
  const mine = rows.filter((r) => r.backend === backend);
  const small = mine[0];
  const large = mine.at(-1);
  const written = (r) => r.wholeBytes + r.journalBytes;
  const growth = written(large) / written(small);
  headline(
    "state-writes",
    `${backend}: bytes a ${changes}-step run writes, state of ${large.size} / of ${small.size} resources`,
    `${growth.toFixed(2)} (${kb(written(large))} KiB / ${kb(written(small))} KiB)`,
    "≤ 1.5 (O(changed))",
    growth <= 1.5,
  );
}
appendFileSync(
  results,
  `\n## ${new Date().toISOString()}\n\nmachine: ${os.availableParallelism()} cpus (${os.cpus()[0]?.model ?? "unknown"}), node ${process.version}, ${os.platform()}, load average ${os.loadavg()[0].toFixed(1)} (shared machine); ${changes} steps per run, median of 3 runs; PostgreSQL on loopback with fsync on\n\n${table}\n`,
);
