// The convergence matrix through the CLI's own commands (its commander program, in-process:
// e2e/cli-here.ts), for a few rows: one per provider, between them a drift (plan
// --detailed-exitcode exits 2, apply -y restores it) and a secret the CLI must keep out of what it
// prints. These prove what the commands add (exit codes, output, -y); every row runs in
// convergence/matrix.test.ts, which checks the same steps through the library API. The spawned
// binary's own start is e2e/lifecycle.test.ts's and e2e/examples.test.ts's.
import { promises as fs } from "node:fs";
import { basename, join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  editRemotely,
  type Provider,
  ROWS,
  rowEnv,
  rowLabel,
  SECRET,
  writeRowProject,
} from "../convergence/rows.js";
import { runCliHere as runCli } from "./cli-here.js";
import { driftLines, liveObjects, simState } from "./project.js";

const SMOKE = [
  "provider_a environments: cloud with packages and a description",
  "provider_b agents: managed, with a git repository resource holding a token",
  "provider_c vaults: static_bearer credential for an MCP server",
  "provider_d memory_stores: with seeded entries, used by an agent",
];
const rows = SMOKE.map((label) => {
  const row = ROWS.find((r) => rowLabel(r) === label);
  if (!row) throw new Error(`no matrix row ${label}`);
  return row;
});

const sims = new Map<Provider, RunningSim>();
beforeAll(async () => {
  for (const row of rows) sims.set(row.provider, await startSim(row.provider, { quiet: true }));
});
afterAll(async () => {
  await Promise.all([...sims.values()].map((s) => s.close()));
});

describe.each(rows.map((r) => [rowLabel(r), r] as const))("%s (CLI commands)", (_label, row) => {
  let dir: string;
  const outputs: string[] = [];
  const run = async (...args: string[]) => {
    const result = await runCli(args, { cwd: dir, timeoutMs: 90_000, env: rowEnv(row, sim()) });
    outputs.push(result.stdout, result.stderr);
    return result;
  };
  const sim = () => sims.get(row.provider)!;
  const owned = async () =>
    liveObjects(await simState(sim())).filter((o) => o.metadata?.["agents.project"] === basename(dir));

  beforeAll(async () => {
    dir = await writeRowProject(row);
  });
  afterAll(async () => {
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it("validates, applies and plans no changes", async () => {
    const validate = await run("validate");
    expect({ code: validate.code, out: validate.stdout + validate.stderr }).toMatchObject({ code: 0 });
    const apply = await run("apply", "-y");
    expect({ code: apply.code, out: apply.code === 0 ? "" : apply.stdout + apply.stderr }).toEqual({
      code: 0,
      out: "",
    });
    const plan = await run("plan", "--detailed-exitcode");
    expect({ code: plan.code, out: plan.code === 0 ? "" : plan.stdout }).toEqual({ code: 0, out: "" });
  });

  it("sync right after apply leaves agents.yaml byte-identical", async () => {
    const before = await fs.readFile(join(dir, "agents.yaml"), "utf8");
    const sync = await run("sync");
    expect({ code: sync.code, stderr: sync.stderr }).toEqual({ code: 0, stderr: "" });
    expect(await fs.readFile(join(dir, "agents.yaml"), "utf8")).toBe(before);
  });

  if (row.drift)
    it("a remote change plans as exactly that drift; apply restores it", async () => {
      expect(await editRemotely(row, sim(), dir)).toEqual({ status: 200, body: "" });
      const plan = await run("plan", "--detailed-exitcode");
      expect(plan.code).toBe(2);
      expect(driftLines(plan.stdout)).toEqual(row.drift!.lines ?? [row.drift!.line]);
      expect((await run("apply", "-y")).code).toBe(0);
      expect((await run("plan", "--detailed-exitcode")).code).toBe(0);
    });

  it("destroys, leaving nothing of the project live, and no secret anywhere", async () => {
    expect((await owned()).length).toBeGreaterThan(0);
    const state = await fs.readFile(join(dir, "agents.state.json"), "utf8");
    const destroy = await run("destroy", "-y");
    expect({ code: destroy.code, stderr: destroy.stderr }).toEqual({ code: 0, stderr: "" });
    expect(await owned()).toEqual([]);
    expect(JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8")).resources).toEqual({});
    for (const text of [state, ...outputs]) expect(text).not.toContain(SECRET);
  });
});
