// One shipped example through the spawned CLI, as a user runs it against the simulators:
// validate → apply -y → plan says "No changes" (exit 0) → sync → destroy -y → the simulators
// hold nothing live of the project. Every example runs in-process in
// convergence/examples.test.ts; this one proves the CLI reads the example's .env and prints
// none of its secrets.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import type { RunningSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExample, exampleEnv, liveOf, startSims } from "../convergence/examples.js";
import { runCli } from "./cli.js";

const NAME = "multi-provider";
let sims: Map<string, RunningSim>;
let dir: string;
let secrets: string[] = [];
const run = (...args: string[]) =>
  runCli(args, { cwd: dir, timeoutMs: 120_000, env: exampleEnv(NAME, sims) });

beforeAll(async () => {
  sims = await startSims();
  ({ dir, secrets } = await copyExample(NAME, sims));
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
  await Promise.all([...sims.values()].map((s) => s.close()));
});

describe(`examples/${NAME} (spawned CLI)`, () => {
  it("validates", async () => {
    const validate = await run("validate");
    expect(validate.stderr).toBe("");
    expect(validate.code).toBe(0);
  });

  it("applies, then plans no changes, and sync leaves the file as it is", async () => {
    const apply = await run("apply", "-y");
    expect(apply.stderr).toBe("");
    expect({ code: apply.code, out: apply.code === 0 ? "" : apply.stdout }).toEqual({ code: 0, out: "" });
    const owned = (await liveOf(sims, dir)).reduce((n, { left }) => n + left.length, 0);
    expect(owned).toBeGreaterThan(0);
    const plan = await run("plan", "--detailed-exitcode");
    expect(plan.stdout).toContain("No changes.");
    expect(plan.code).toBe(0);
    const yaml = await fs.readFile(join(dir, "agents.yaml"), "utf8");
    const sync = await run("sync");
    expect({ code: sync.code, stderr: sync.stderr }).toEqual({ code: 0, stderr: "" });
    expect(sync.stdout).toContain("No changes");
    expect(await fs.readFile(join(dir, "agents.yaml"), "utf8")).toBe(yaml);
    const state = await fs.readFile(join(dir, "agents.state.json"), "utf8");
    expect(secrets.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      expect(state).not.toContain(secret);
      expect(apply.stdout + plan.stdout).not.toContain(secret);
    }
  });

  it("destroys, leaving nothing of the project on any simulator", async () => {
    const destroy = await run("destroy", "-y");
    expect(destroy.stderr).toBe("");
    expect(destroy.code).toBe(0);
    for (const live of await liveOf(sims, dir)) expect(live).toEqual({ provider: live.provider, left: [] });
    const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
    expect(state.resources).toEqual({});
  });
});
