// The convergence matrix, every row in-process through the library API against the simulators
// (real sockets, real state files), as its own project:
//   1. validate; apply; plan has no changes (the CLI's --detailed-exitcode 0);
//   2. where the row names a field the provider shows back: that field changed remotely through
//      the wire API plans as exactly that drift, apply restores it, and the plan is clean again;
//   3. sync right after apply leaves agents.yaml byte-identical;
//   4. destroy leaves nothing of the project live on the simulator, and state ends empty;
//   and no secret value the row used appears in the state file or in any text a step produced.
// e2e/matrix.test.ts runs a few rows through the spawned CLI, which prints these same texts.
import { promises as fs } from "node:fs";
import { basename, join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driftLines, liveObjects, simState, startProviderAInstantUploads } from "../e2e/project.js";
import { type InProcessProject, inProcessProject } from "./in-process.js";
import {
  editRemotely,
  KEYS,
  type Provider,
  ROWS,
  rowEnv,
  rowLabel,
  SECRET,
  uncoveredKinds,
  writeRowProject,
} from "./rows.js";

const sims = new Map<Provider, RunningSim>();
// provider_a's content audit and skill scan settle at the first poll: the rows' point is
// convergence, not the provider's wait (1 s a file, 2 s a skill, slept through by the client's
// first poll interval; the waits are tested in test/providers/provider-a/definition.sim.test.ts).
beforeAll(async () => {
  for (const p of Object.keys(KEYS) as Provider[])
    sims.set(
      p,
      p === "provider_a" ? await startProviderAInstantUploads() : await startSim(p, { quiet: true }),
    );
});
afterAll(async () => {
  await Promise.all([...sims.values()].map((s) => s.close()));
});

describe("the matrix covers every kind each provider supports", () => {
  it("has at least one row per supported (provider, kind)", () => {
    expect(uncoveredKinds()).toEqual([]);
  });
});

describe.each(ROWS.map((r) => [rowLabel(r), r] as const))("%s", (_label, row) => {
  let dir: string;
  let agents: InProcessProject;
  const sim = () => sims.get(row.provider)!;
  const owned = async () =>
    liveObjects(await simState(sim())).filter((o) => o.metadata?.["agents.project"] === basename(dir));

  beforeAll(async () => {
    dir = await writeRowProject(row);
    agents = inProcessProject(dir, rowEnv(row, sim()));
  });
  afterAll(async () => {
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it("validates, applies and plans no changes", async () => {
    const validate = await agents.validate();
    expect({ code: validate.code, out: validate.text }).toMatchObject({ code: 0 });
    const apply = await agents.apply();
    expect({ code: apply.code, out: apply.code === 0 ? "" : `${apply.text}\n${apply.error}` }).toEqual({
      code: 0,
      out: "",
    });
    const plan = await agents.plan();
    expect({ code: plan.code, out: plan.code === 0 ? "" : plan.text }).toEqual({ code: 0, out: "" });
  });

  it("sync right after apply leaves agents.yaml byte-identical", async () => {
    const before = await fs.readFile(join(dir, "agents.yaml"), "utf8");
    const sync = await agents.sync();
    expect({ code: sync.code, error: sync.error }).toEqual({ code: 0, error: "" });
    expect(await fs.readFile(join(dir, "agents.yaml"), "utf8")).toBe(before);
  });

  // Only rows that name a field the provider shows back have this step (no skipped tests).
  if (row.drift)
    it("a remote change plans as exactly that drift; apply restores it", async () => {
      expect(await editRemotely(row, sim(), dir)).toEqual({ status: 200, body: "" });
      const plan = await agents.plan();
      expect(plan.code).toBe(2);
      expect(driftLines(plan.text)).toEqual(row.drift!.lines ?? [row.drift!.line]);
      expect((await agents.apply()).code).toBe(0);
      expect((await agents.plan()).code).toBe(0);
    });

  it("destroys, leaving nothing of the project live, and no secret anywhere", async () => {
    expect((await owned()).length).toBeGreaterThan(0);
    const state = await fs.readFile(join(dir, "agents.state.json"), "utf8");
    const destroy = await agents.destroy();
    expect({ code: destroy.code, error: destroy.error }).toEqual({ code: 0, error: "" });
    expect(await owned()).toEqual([]);
    const after = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
    expect(after.resources).toEqual({});
    for (const text of [state, ...agents.texts]) expect(text).not.toContain(SECRET);
  });
});
