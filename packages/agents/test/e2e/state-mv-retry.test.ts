// Issue 10: `state mv` leaves the remote's ownership metadata on the old address, so plan must
// show the re-stamp and apply it (sync then finds no duplicate); and a retry loop is never
// silent: each wait is printed.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere as runCli } from "./cli-here.js";
import { makeProject, setFaults } from "./project.js";

let c: RunningSim;
let d: RunningSim;
let dir: string;
const env = { AGENTS_STATE_KEY: "e2e-state-key", AGENTS_PROJECT: "mv-retry" };
const run = (...args: string[]) => runCli(args, { cwd: dir, env, timeoutMs: 120_000 });

beforeAll(async () => {
  c = await startSim("provider_c", { quiet: true });
  d = await startSim("provider_d", { quiet: true });
  dir = await makeProject({ c, d }, "agents-mv-");
});
afterAll(async () => {
  await Promise.all([c?.close(), d?.close()]);
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("state mv re-stamps the remote's ownership", () => {
  it("plans the re-stamp, applies it, and sync then adds no duplicate", async () => {
    expect((await run("apply", "-y")).code).toBe(0);
    const path = join(dir, "agents.yaml");
    await fs.writeFile(path, (await fs.readFile(path, "utf8")).replaceAll("writer-c", "author-c"));
    const mv = await run("state", "mv", 'provider_c.agents["writer-c"]', 'provider_c.agents["author-c"]');
    expect(mv.code).toBe(0);
    const plan = await run("plan", "--detailed-exitcode");
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/provider_c\.agents\["author-c"\] \([^)]+\): update/);
    expect(plan.stdout).toContain(
      '~ metadata.agents.resource: "provider_c.agents[\\"writer-c\\"]" → "provider_c.agents[\\"author-c\\"]"',
    );
    expect((await run("apply", "-y")).code).toBe(0);
    expect((await run("plan", "--detailed-exitcode")).code).toBe(0);
    const sync = await run("sync", "--dry-run", "--detailed-exitcode");
    expect(sync.stdout).not.toContain("writer-c");
    expect(sync.code).toBe(0);
  });
});

describe("retries are shown", () => {
  it("prints each wait of a retry loop, then succeeds", async () => {
    await setFaults(c, {
      rules: [{ method: "GET", path: "/agents/[^/]+$", nth: 1, action: { type: "status", status: 503 } }],
    });
    try {
      const plan = await run("plan", "--detailed-exitcode");
      expect(plan.code).toBe(0);
      expect(plan.stderr).toMatch(
        /^provider_c: 503 on GET \/agents\/[^,]+, retrying in \d+\.\ds \(attempt 2\/5\)$/m,
      );
    } finally {
      await setFaults(c, {});
    }
  });

  it("destroys cleanly at the end", async () => {
    expect((await run("destroy", "-y")).code).toBe(0);
  });
});
