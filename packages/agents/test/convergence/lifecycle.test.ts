// `lifecycle:` and `--replace` end to end on the simulators, through the CLI's steps in-process
// (in-process.ts): one row per rule and phase. prevent_destroy and --replace run on every
// provider; ignore_changes and create_before_destroy on provider_c, whose agents reference each
// other (a coordinator's roster), so a replacement has a dependent to re-point.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import type { RunningSim } from "@agents/sims";
import { beforeAll, describe, expect, it } from "vitest";
import { destroy, loadProject, plan } from "../../src/index.js";
import { runCliHere } from "../e2e/cli-here.js";
import { removedAfterAll, requestLog, setFaults, simState, simulatorForFile } from "../e2e/project.js";
import { type InProcessProject, inProcessProject, type StepResult } from "./in-process.js";
import { wireHeaders } from "./rows.js";
import { AGENT_MODELS, type SimProvider, writeSimProject } from "./sim-project.js";

const MODELS = AGENT_MODELS;
const PROVIDERS = Object.keys(MODELS) as SimProvider[];
const sims = Object.fromEntries(PROVIDERS.map((p) => [p, simulatorForFile(p)])) as Record<
  SimProvider,
  RunningSim
>;
const dirs = removedAfterAll();

const writer = (provider: SimProvider, lifecycle: string) =>
  `agents:\n  writer:\n    model: ${MODELS[provider]}\n    instructions: Write clearly.\n${lifecycle}`;

type Wire = { id: string; name?: string; archived_at?: unknown; description?: string; system?: string };

/** The simulator's live agents (provider_b Managed agents and the others alike). */
async function liveAgents(sim: RunningSim): Promise<Wire[]> {
  return ((await simState(sim)) as { agents: Wire[] }).agents.filter((a) => !a.archived_at);
}

async function stateOf(
  dir: string,
): Promise<{ resources: Record<string, { id: string; preventDestroy?: true }> }> {
  return JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
}

/** Rewrites agents.yaml: its providers block as written, then `body` (the declarations). */
async function declare(dir: string, body: string): Promise<void> {
  const file = join(dir, "agents.yaml");
  const head = (await fs.readFile(file, "utf8")).split("agents:\n")[0] ?? "";
  await fs.writeFile(file, head + body);
}

const said = (step: StepResult) => `${step.text}\n${step.error}`;

describe.each(PROVIDERS)("%s: prevent_destroy refuses every way of deleting the agent", (provider) => {
  const address = `${provider}.agents["writer"]`;
  let dir: string;
  let agents: InProcessProject;
  const protectedFile = () => writer(provider, "    lifecycle:\n      prevent_destroy: true\n");

  beforeAll(async () => {
    dir = await writeSimProject(provider, sims[provider], protectedFile(), { dirs, prefix: "agents-lc-" });
    agents = inProcessProject(dir, { AGENTS_STATE_KEY: "lifecycle", AGENTS_PROJECT: `lc-${provider}` });
    const first = await agents.apply();
    expect(first.code, said(first)).toBe(0);
    expect((await stateOf(dir)).resources[address]?.preventDestroy).toBe(true);
  });

  const ROWS: Array<{ phase: string; removed: boolean; run: () => Promise<StepResult>; how: string }> = [
    {
      phase: "plan --replace",
      removed: false,
      run: () => agents.plan({ replace: [address] }),
      how: "leave out --replace",
    },
    {
      phase: "apply --replace",
      removed: false,
      run: () => agents.apply({ replace: [address] }),
      how: "leave out --replace",
    },
    { phase: "destroy", removed: false, run: () => agents.destroy(), how: "--target" },
    {
      phase: "plan, declaration removed",
      removed: true,
      run: () => agents.plan(),
      how: "put its declaration back",
    },
    {
      phase: "apply, declaration removed",
      removed: true,
      run: () => agents.apply(),
      how: `agents state rm '${address}'`,
    },
    {
      phase: "destroy, declaration removed",
      removed: true,
      run: () => agents.destroy(),
      how: "set `prevent_destroy: false`",
    },
  ];

  it.each(ROWS)("$phase: refused, naming the rule and the address; nothing deleted", async (row) => {
    const before = await liveAgents(sims[provider]);
    await declare(dir, row.removed ? "" : protectedFile());
    const step = await row.run();
    expect(step.code, said(step)).toBe(1);
    expect(step.error).toContain("lifecycle.prevent_destroy");
    expect(step.error).toContain(address);
    expect(step.error).toContain(row.how);
    expect(await liveAgents(sims[provider])).toEqual(before);
  });

  it("prevent_destroy: false lets destroy delete it", async () => {
    await declare(dir, writer(provider, "    lifecycle:\n      prevent_destroy: false\n"));
    const gone = await agents.destroy();
    expect(gone.code, said(gone)).toBe(0);
    expect(await liveAgents(sims[provider])).toEqual([]);
  });
});

describe.each(PROVIDERS)("%s: --replace", (provider) => {
  const address = `${provider}.agents["writer"]`;
  let dir: string;
  let agents: InProcessProject;

  beforeAll(async () => {
    dir = await writeSimProject(provider, sims[provider], writer(provider, ""), {
      dirs,
      prefix: "agents-lc-",
    });
    agents = inProcessProject(dir, {
      AGENTS_STATE_KEY: "lifecycle",
      AGENTS_PROJECT: `lc-replace-${provider}`,
    });
    expect((await agents.apply()).code).toBe(0);
  });

  it("plan shows a replacement asked for with --replace; apply makes it; the next plan is clean", async () => {
    const old = (await stateOf(dir)).resources[address]!.id;
    const planned = await agents.plan({ replace: [address] });
    expect(planned.code, said(planned)).toBe(2);
    expect(planned.plan!.actions.map((a) => [a.address, a.action, a.forced])).toEqual([
      [address, "replace", true],
    ]);
    expect(planned.plan!.scope.replace).toEqual([address]);
    expect(planned.text).toContain(`-/+ ${address} (${old}): replace, replacement asked for with --replace`);

    const applied = await agents.apply({ replace: [address] });
    expect(applied.code, said(applied)).toBe(0);
    const now = (await stateOf(dir)).resources[address]!.id;
    expect(now).not.toBe(old);
    expect((await liveAgents(sims[provider])).map((a) => a.id)).toEqual([now]);
    expect((await agents.plan()).code).toBe(0);
    expect((await agents.destroy()).code).toBe(0);
  });

  it("an address that names nothing declared is refused with the one it probably meant", async () => {
    const typo = `${provider}.agents["writr"]`;
    const step = await agents.plan({ replace: [typo] });
    expect(step.code).toBe(1);
    expect(step.error).toContain(`--replace ${typo}: no resource with this address`);
    expect(step.error).toContain(`did you mean ${address}?`);
  });
});

describe("provider_c: prevent_destroy set after the first apply", () => {
  const address = 'provider_c.agents["writer"]';
  let dir: string;
  let agents: InProcessProject;
  const protect = async (on: boolean) =>
    declare(dir, writer("provider_c", on ? "    lifecycle:\n      prevent_destroy: true\n" : ""));

  beforeAll(async () => {
    dir = await writeSimProject("provider_c", sims.provider_c, writer("provider_c", ""), {
      dirs,
      prefix: "agents-lc-",
    });
    agents = inProcessProject(dir, { AGENTS_STATE_KEY: "lifecycle", AGENTS_PROJECT: "lc-later" });
    expect((await agents.apply()).code).toBe(0);
  });

  it("a saved destroy plan is refused once the rule is set, though the plan names no rule", async () => {
    // The library calls `agents plan --destroy --out` and `agents apply FILE` make.
    const env = { ...process.env, AGENTS_STATE_KEY: "lifecycle", AGENTS_PROJECT: "lc-later" };
    const engine = async () => ({ project: await loadProject({ file: join(dir, "agents.yaml"), env }), env });
    const saved = await plan({ ...(await engine()), operation: "destroy" });
    expect(saved.actions.map((a) => a.action)).toEqual(["delete"]);
    await protect(true);
    await expect(
      destroy({ ...(await engine()), savedPlan: saved, confirm: async () => true }),
    ).rejects.toThrow(
      `lifecycle.prevent_destroy: a resource is protected from deletion, and nothing was changed:\n  ${address}`,
    );
    expect(await liveAgents(sims.provider_c)).toHaveLength(1);
  });

  it("an apply with no other change records the rule, which then holds once the declaration is gone", async () => {
    await protect(true);
    expect((await agents.plan()).code).toBe(0);
    expect((await agents.apply()).code).toBe(0);
    const recorded = (await stateOf(dir)).resources[address]!;
    expect(recorded.preventDestroy).toBe(true);
    const listed = await runCliHere(["state", "list"], { cwd: dir });
    expect(listed.stdout).toContain(`${address}  ${recorded.id}  (prevent_destroy)\n`);
    await declare(dir, "");
    const refused = await agents.apply();
    expect(refused.code).toBe(1);
    expect(refused.error).toContain(
      `${address}: the plan would delete it (no longer declared in the config)`,
    );
    await protect(false);
    expect((await agents.apply()).code).toBe(0);
    expect((await stateOf(dir)).resources[address]!.preventDestroy).toBeUndefined();
    expect((await agents.destroy()).code).toBe(0);
  });
});

describe("provider_c: a removed: entry with destroy: false lets a protected resource go, left in place", () => {
  it("apply forgets it; the remote agent stays", async () => {
    const address = 'provider_c.agents["writer"]';
    const dir = await writeSimProject(
      "provider_c",
      sims.provider_c,
      writer("provider_c", "    lifecycle:\n      prevent_destroy: true\n"),
      { dirs, prefix: "agents-lc-" },
    );
    const agents = inProcessProject(dir, { AGENTS_STATE_KEY: "lifecycle", AGENTS_PROJECT: "lc-forget" });
    expect((await agents.apply()).code).toBe(0);
    const id = (await stateOf(dir)).resources[address]!.id;
    await declare(dir, `removed:\n  - from: '${address}'\n    destroy: false\n`);
    const forgot = await agents.apply();
    expect(forgot.code, said(forgot)).toBe(0);
    expect((await stateOf(dir)).resources[address]).toBeUndefined();
    expect((await liveAgents(sims.provider_c)).map((a) => a.id)).toContain(id);
    // No longer agents' to delete: archived by hand, as its new owner would, for the rows after.
    const archived = await fetch(`${sims.provider_c.url}/agents/${id}/archive`, {
      method: "POST",
      headers: wireHeaders("provider_c"),
    });
    expect(archived.ok).toBe(true);
  });
});

describe("provider_c: ignore_changes", () => {
  const sim = sims.provider_c;
  const address = 'provider_c.agents["writer"]';
  let dir: string;
  let agents: InProcessProject;
  const file = (instructions: string, description: string, ignore: string) =>
    `agents:\n  writer:\n    model: claude-sonnet-4-5\n    description: ${description}\n    instructions: ${instructions}\n    lifecycle:\n      ignore_changes: ${ignore}\n`;
  const write = async (body: string) => declare(dir, body);
  const remote = async () => {
    const id = (await stateOf(dir)).resources[address]!.id;
    return (await (
      await fetch(`${sim.url}/agents/${id}`, { headers: wireHeaders("provider_c") })
    ).json()) as Wire & {
      version: number;
    };
  };

  beforeAll(async () => {
    dir = await writeSimProject("provider_c", sim, file("Write.", "first", "[instructions]"), {
      dirs,
      prefix: "agents-lc-ignore-",
    });
    agents = inProcessProject(dir, { AGENTS_STATE_KEY: "lifecycle", AGENTS_PROJECT: "lc-ignore" });
    expect((await agents.apply()).code).toBe(0);
  });

  const ROWS: Array<{ phase: string; body: string; drift?: Record<string, string>; code: number }> = [
    {
      phase: "an edit of the ignored field plans nothing",
      body: file("Write more.", "first", "[instructions]"),
      code: 0,
    },
    {
      phase: "a remote change of the ignored field plans nothing",
      body: file("Write more.", "first", "[instructions]"),
      drift: { system: "Edited on the console." },
      code: 0,
    },
    {
      phase: "an edit of another field is planned",
      body: file("Write more.", "second", "[instructions]"),
      code: 2,
    },
    { phase: "`all` plans no edit at all", body: file("Write more.", "third", "all"), code: 0 },
  ];

  it.each(ROWS)("$phase", async (row) => {
    await write(row.body);
    if (row.drift) {
      const agent = await remote();
      const saved = await fetch(`${sim.url}/agents/${agent.id}`, {
        method: "POST",
        headers: wireHeaders("provider_c"),
        body: JSON.stringify({ version: agent.version, ...row.drift }),
      });
      expect(saved.ok).toBe(true);
    }
    const planned = await agents.plan();
    expect(planned.code, said(planned)).toBe(row.code);
    expect(planned.text).not.toContain("instructions");
    if (row.code === 2) expect(planned.plan!.actions[0]!.changes.map((c) => c.path)).toEqual(["description"]);
  });

  it("the update of another field keeps the ignored field as the remote holds it", async () => {
    await write(file("Write more.", "second", "[instructions]"));
    const applied = await agents.apply();
    expect(applied.code, said(applied)).toBe(0);
    const agent = await remote();
    expect([agent.description, agent.system]).toEqual(["second", "Edited on the console."]);
    expect((await agents.plan()).code).toBe(0);
    expect((await agents.destroy()).code).toBe(0);
  });
});

describe("provider_c: create_before_destroy", () => {
  const sim = sims.provider_c;
  const member = 'provider_c.agents["m1"]';
  const body = (m1Lifecycle: string) =>
    `agents:\n  lead:\n    model: claude-sonnet-4-5\n    instructions: Lead.\n    multiagent:\n      type: coordinator\n      agents: [m1]\n` +
    `  m1:\n    model: claude-sonnet-4-5\n    instructions: M1.\n${m1Lifecycle}`;
  const CBD = "    lifecycle:\n      create_before_destroy: true\n";

  async function applied(prefix: string) {
    const dir = await writeSimProject("provider_c", sim, body(CBD), { dirs, prefix });
    const agents = inProcessProject(dir, { AGENTS_STATE_KEY: "lifecycle", AGENTS_PROJECT: prefix });
    expect((await agents.apply()).code).toBe(0);
    const state = await stateOf(dir);
    return {
      dir,
      agents,
      old: state.resources[member]!.id,
      lead: state.resources['provider_c.agents["lead"]']!.id,
    };
  }

  it("creates the new member, re-points the coordinator, then archives the old member", async () => {
    const { dir, agents, old, lead } = await applied("lc-cbd-order");
    const planned = await agents.plan({ replace: [member] });
    expect(planned.plan!.actions.map((a) => [a.address, a.action, a.createBeforeDestroy ?? false])).toEqual([
      [member, "replace", true],
      ['provider_c.agents["lead"]', "update", false],
    ]);
    expect(planned.text).toContain(`+/- ${member} (${old}): replace, replacement asked for with --replace`);
    const from = (await requestLog(sim)).length;
    expect((await agents.apply({ replace: [member] })).code).toBe(0);
    const calls = (await requestLog(sim))
      .slice(from)
      .filter((e) => e.method === "POST")
      .map((e) => e.path.replace(old, "OLD").replace(lead, "LEAD"));
    const created = calls.indexOf("/v1/agents");
    const repointed = calls.indexOf("/v1/agents/LEAD");
    const archived = calls.indexOf("/v1/agents/OLD/archive");
    expect(
      [created, repointed, archived].every((i) => i >= 0),
      calls.join(" "),
    ).toBe(true);
    expect(created < repointed && repointed < archived, calls.join(" ")).toBe(true);
    const now = (await stateOf(dir)).resources[member]!.id;
    const live = await liveAgents(sim);
    expect(live.map((a) => a.id).sort()).toEqual([lead, now].sort());
    const roster = JSON.stringify((live.find((a) => a.id === lead) as { multiagent?: unknown }).multiagent);
    expect(roster).toContain(now);
    expect(roster).not.toContain(old);
    // The lifecycle block is the file's alone: sync finds nothing to write back.
    const synced = await agents.sync({ dryRun: true });
    expect({ code: synced.code, changed: synced.changed }, said(synced)).toEqual({ code: 0, changed: false });
    expect((await agents.destroy()).code).toBe(0);
  });

  it("a run cut before the coordinator was re-pointed keeps the old member in use; the next run re-points, then removes it", async () => {
    const { dir, agents, old, lead } = await applied("lc-cbd-repoint");
    const rosterOf = async () =>
      JSON.stringify(
        ((await liveAgents(sim)).find((a) => a.id === lead) as { multiagent?: unknown }).multiagent,
      );
    await setFaults(sim, {
      rules: [{ method: "POST", path: `/agents/${lead}$`, action: { type: "status", status: 400 } }],
    });
    const broken = await agents.apply({ replace: [member] });
    await setFaults(sim, {});
    expect(broken.code, said(broken)).toBe(1);
    expect(said(broken)).toContain("the old object is kept because");
    expect(await liveAgents(sim)).toHaveLength(3);
    expect(await rosterOf()).toContain(old);

    const from = (await requestLog(sim)).length;
    const again = await agents.apply();
    expect(again.code, said(again)).toBe(0);
    const now = (await stateOf(dir)).resources[member]!.id;
    expect(now).not.toBe(old);
    expect((await liveAgents(sim)).map((a) => a.id).sort()).toEqual([lead, now].sort());
    expect(await rosterOf()).toContain(now);
    // Still in use until the coordinator names the new member: re-pointed first, then archived.
    const calls = (await requestLog(sim))
      .slice(from)
      .filter((e) => e.method === "POST")
      .map((e) => e.path.replace(old, "OLD").replace(lead, "LEAD"));
    expect(calls.indexOf("/v1/agents/LEAD"), calls.join(" ")).toBeGreaterThanOrEqual(0);
    expect(calls.indexOf("/v1/agents/LEAD"), calls.join(" ")).toBeLessThan(
      calls.indexOf("/v1/agents/OLD/archive"),
    );
    expect((await agents.plan()).code).toBe(0);
    expect((await agents.destroy()).code).toBe(0);
  });

  it("a run whose create answer for the new member was lost converges: no duplicate, no orphan", async () => {
    const { dir, agents, old, lead } = await applied("lc-cbd-lost");
    await setFaults(sim, {
      rules: [{ method: "POST", path: "/agents$", nth: 1, action: { type: "drop_response" } }],
    });
    const broken = await agents.apply({ replace: [member] });
    await setFaults(sim, {});
    expect(broken.code, said(broken)).toBe(1);
    expect(await liveAgents(sim), "the lost create made the new member").toHaveLength(3);

    // Asked again, the replacement adopts the member the lost create made instead of making another.
    const again = await agents.apply({ replace: [member] });
    expect(again.code, said(again)).toBe(0);
    expect(said(again)).toContain("the replacement an interrupted run created");
    const now = (await stateOf(dir)).resources[member]!.id;
    expect(now).not.toBe(old);
    expect((await liveAgents(sim)).map((a) => a.id).sort()).toEqual([lead, now].sort());
    expect((await agents.plan()).code).toBe(0);
    expect((await agents.destroy()).code).toBe(0);
  });

  it("a run cut between the new member and the old one's removal converges: no duplicate, no orphan", async () => {
    const { dir, agents, old, lead } = await applied("lc-cbd-cut");
    await setFaults(sim, {
      rules: [{ method: "POST", path: `/agents/${old}/archive$`, action: { type: "status", status: 400 } }],
    });
    const broken = await agents.apply({ replace: [member] });
    await setFaults(sim, {});
    expect(broken.code, said(broken)).toBe(1);
    expect(said(broken)).toContain("the next apply removes it");
    expect(await liveAgents(sim)).toHaveLength(3);

    const again = await agents.apply();
    expect(again.code, said(again)).toBe(0);
    const now = (await stateOf(dir)).resources[member]!.id;
    expect(now).not.toBe(old);
    expect((await liveAgents(sim)).map((a) => a.id).sort()).toEqual([lead, now].sort());
    expect((await agents.plan()).code).toBe(0);
    expect((await agents.destroy()).code).toBe(0);
    expect(await liveAgents(sim)).toEqual([]);
  });
});
