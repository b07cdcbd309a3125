// `agents sync` for memory stores on provider_c and provider_d through the CLI's own commands, in-process (e2e/cli-here.ts): description,
// metadata and the content of the declared seeds come back; the memories the agents wrote are
// never imported (docs/cli.md, "What sync covers"). One apply, one row per (provider, kind), then
// dry run → sync → plan.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere as runCli } from "../e2e/cli-here.js";
import {
  applyThenCleanSync,
  Console,
  dryRunOfRows,
  expectRowsSynced,
  makeProject,
  type SyncRow,
  syncWrites,
} from "./remote.js";

const PROJECT = "sync-kinds-cd";
const FIXTURE = new URL("./fixtures/kinds-cd", import.meta.url).pathname;
const AGENT_MEMORY = "the user prefers tables";

let c: RunningSim;
let d: RunningSim;
let dir: string;
let consoles: { c: Console; d: Console };
const run = (...args: string[]) =>
  runCli(args, { cwd: dir, env: { AGENTS_STATE_KEY: "sync-kinds-cd-key", AGENTS_PROJECT: PROJECT } });
const yamlPath = () => join(dir, "agents.yaml");

/**
 * The remote store changes its description, someone rewrites a declared seed, and an agent writes
 * a memory of its own: the first two come back, the agent's memory never does.
 */
function storeRow(
  provider: "c" | "d",
  name: string,
  description: string,
  seed: { path: string; now: string },
  kept: string[],
): SyncRow {
  return {
    kind: `provider_${provider} memory_stores`,
    async change() {
      const remote = consoles[provider];
      const store = await remote.ownedOf("/memory_stores", PROJECT, name);
      await remote.post(`/memory_stores/${store.id}`, { description });
      await remote.post(`/memory_stores/${store.id}/memories`, {
        path: "/learned.md",
        content: AGENT_MEMORY,
      });
      const memories = await remote.all(`/memory_stores/${store.id}/memories`);
      const memory = memories.find((m) => m.path === seed.path)!;
      await remote.post(`/memory_stores/${store.id}/memories/${memory.id}`, { content: seed.now });
    },
    added: [`+    description: ${description}`, `+        content: ${seed.now}`],
    kept,
  };
}

const ROWS: SyncRow[] = [
  {
    kind: "provider_c deployments",
    async change() {
      const deployment = await consoles.c.ownedOf("/deployments", PROJECT, "nightly-c");
      await consoles.c.post(`/deployments/${deployment.id}`, {
        schedule: { type: "cron", expression: "0 6 * * *", timezone: "Europe/Berlin" },
        description: "Nightly summary",
      });
    },
    added: ['+      expression: "0 6 * * *"', "+    description: Nightly summary"],
    kept: [
      "    agent: writer-c # by logical name",
      "    environment: box-c",
      "        content: Summarize today.",
    ],
  },
  storeRow("c", "notes-c", "House style, short form", { path: "/style.md", now: "Be brief and kind." }, [
    "      - key: style.md",
    "        content: Be brief and kind. # the seed apply writes",
  ]),
  storeRow(
    "d",
    "notes-d",
    "Glossary of terms",
    { path: "/glossary.md", now: "An agent is a configured model." },
    ["      team: docs", "      - key: glossary.md"],
  ),
];

beforeAll(async () => {
  [c, d] = await Promise.all([
    startSim("provider_c", { quiet: true }),
    startSim("provider_d", { quiet: true }),
  ]);
  consoles = { c: new Console("provider_c", c), d: new Console("provider_d", d) };
  dir = await makeProject({ c, d }, FIXTURE);
});
afterAll(async () => {
  await Promise.all([c?.close(), d?.close()]);
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("agents sync: memory stores on provider_c and provider_d", () => {
  it("applies, and an unchanged account syncs to no changes", async () => {
    const clean = await applyThenCleanSync(run);
    // Two declared files, one line saying why the kind is not synced.
    const kept = "provider_d files: kept as declared, not synced (a file is uploaded bytes from a local path";
    expect((clean.stdout + clean.stderr).split(kept).length - 1).toBe(1);
  });

  it("dry run shows every row's change and writes nothing; sync writes it, never the agents' memories", async () => {
    await dryRunOfRows(ROWS, run, yamlPath());

    const { after } = await syncWrites(run, yamlPath());
    expect(after).not.toContain(AGENT_MEMORY);
    expect(after).not.toContain("learned.md");
    expectRowsSynced(after, ROWS);
    for (const row of ROWS) for (const line of row.added) expect(after, row.kind).toContain(line.slice(1));
    const plan = await run("plan", "--detailed-exitcode");
    expect(plan.stdout).toContain("No changes.");
    expect(plan.code).toBe(0);
  });
});
