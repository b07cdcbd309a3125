// The `moved:`, `import:` and `removed:` lists end to end (issue 38, item 2), in-process against
// the simulators: what the plan shows, what apply records and leaves remotely, and that the next
// plan with the entry still in the file is clean. `moved` and `import` run on every provider; the
// cases the state or the remote decide run on provider_c. One simulator per provider, shared.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlannedAction } from "../../src/index.js";
import { editConfig, simState } from "../e2e/project.js";
import { inProcessProject } from "./in-process.js";
import { AGENT_MODELS, type SimProvider, writeSimProject } from "./sim-project.js";

const MODELS = AGENT_MODELS;
const PROVIDERS = Object.keys(MODELS) as SimProvider[];

const sims = {} as Record<SimProvider, RunningSim>;
const dirs: string[] = [];
beforeAll(async () => {
  await Promise.all(PROVIDERS.map(async (p) => (sims[p] = await startSim(p, { quiet: true }))));
});
afterAll(async () => {
  await Promise.all(Object.values(sims).map((s) => s.close()));
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

let rows = 0;
/** A project on `provider`'s simulator, with its own ownership label so rows never meet. */
async function project(provider: SimProvider, body: string) {
  const name = `blocks-${++rows}`;
  const dir = await writeSimProject(provider, sims[provider], body, { dirs, prefix: "agents-blocks-" });
  const agents = inProcessProject(dir, { AGENTS_STATE_KEY: "blocks", AGENTS_PROJECT: name });
  return { dir, name, agents };
}

const agent = (key: string, provider: SimProvider) =>
  `  ${key}:\n    model: ${MODELS[provider]}\n    instructions: Write clearly.\n`;
const environment = (key: string) => `  ${key}:\n    config:\n      type: cloud\n`;

async function recorded(dir: string): Promise<Record<string, { id: string }>> {
  return JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8")).resources;
}

type Wire = { id: string; name?: string; metadata?: Record<string, string>; archived_at?: unknown };
/** The live objects of one collection of the simulator's dump. */
async function live(provider: SimProvider, collection: string): Promise<Wire[]> {
  const dump = (await simState(sims[provider])) as Record<string, Wire[]>;
  return (dump[collection] ?? []).filter(
    (o) => !o.archived_at && !(o as { deleted_at?: unknown }).deleted_at,
  );
}

type Ids = { foreign: string; helper: string; desk: string };

const byAddress = (actions: PlannedAction[] | undefined, address: string) =>
  actions?.find((a) => a.address === address);

describe.each(PROVIDERS)("%s: moved", (provider) => {
  it("plans a renamed key as a move (no delete, no create), records it, then plans clean with the entry kept", async () => {
    const { dir, name, agents } = await project(provider, `agents:\n${agent("writer", provider)}`);
    expect((await agents.apply()).code).toBe(0);
    const from = `${provider}.agents["writer"]`;
    const to = `${provider}.agents["author"]`;
    const id = (await recorded(dir))[from]!.id;

    await editConfig(dir, "  writer:", "  author:");
    await fs.appendFile(join(dir, "agents.yaml"), `moved:\n  - from: ${from}\n    to: ${to}\n`);
    const planned = await agents.plan();
    expect(planned.code, `${planned.text}\n${planned.error}`).toBe(2);
    const actions = planned.plan!.actions;
    expect(actions.filter((a) => a.action === "create" || a.action === "delete")).toEqual([]);
    expect(byAddress(actions, to)).toMatchObject({ previousAddress: from, remoteId: id });
    expect(planned.text).toContain(`${to} (${id}): `);
    expect(planned.text).toContain(`moved from ${from}`);
    expect(planned.text).toContain("1 to move");
    // Re-stamping the label of a moved object is the move's own change, not drift.
    expect(planned.text).not.toContain("outside agents");

    const applied = await agents.apply();
    expect(applied.code, `${applied.text}\n${applied.error}`).toBe(0);
    expect(applied.text).toContain("1 moved");
    const state = await recorded(dir);
    expect(state[to]?.id).toBe(id);
    expect(state[from]).toBeUndefined();
    const mine = (await live(provider, "agents")).filter((a) => a.metadata?.["agents.project"] === name);
    expect(mine.map((a) => [a.id, a.metadata?.["agents.resource"]])).toEqual([[id, to]]);

    const again = await agents.plan();
    expect(again.code, again.text).toBe(0);
  });
});

describe.each(PROVIDERS)("%s: import", (provider) => {
  it("plans the import of a hand-made object with the rename and labels it makes, records it, then plans clean", async () => {
    // An environment another project made (its labels are that project's), named by hand.
    const other = await project(provider, `environments:\n${environment("handmade-env")}`);
    expect((await other.agents.apply()).code).toBe(0);
    const id = (await recorded(other.dir))[`${provider}.environments["handmade-env"]`]!.id;

    const to = `${provider}.environments["env"]`;
    const { dir, name, agents } = await project(
      provider,
      `environments:\n${environment("env")}import:\n  - to: ${to}\n    id: ${id}\n`,
    );
    const planned = await agents.plan();
    expect(planned.code, `${planned.text}\n${planned.error}`).toBe(2);
    const action = byAddress(planned.plan?.actions, to);
    expect(action).toMatchObject({ action: "import", remoteId: id });
    expect(action!.changes.map((c) => [c.path, c.before, c.after])).toEqual(
      expect.arrayContaining([
        ["name", "handmade-env", "env"],
        ["metadata.agents.project", other.name, name],
      ]),
    );
    expect(planned.text).toContain(`<- ${to} (${id}): import`);
    expect(planned.text).toContain('~ name: "handmade-env" → "env"');
    expect(planned.text).not.toContain('- name: "handmade-env"');
    expect(planned.text).toContain("1 to import");

    const applied = await agents.apply();
    expect(applied.code, `${applied.text}\n${applied.error}`).toBe(0);
    expect(applied.text).toContain("1 imported");
    expect((await recorded(dir))[to]?.id).toBe(id);
    const envs = await live(provider, "environments");
    expect(envs.find((e) => e.id === id)).toMatchObject({
      name: "env",
      metadata: expect.objectContaining({ "agents.project": name, "agents.resource": to }),
    });
    expect(envs.filter((e) => e.metadata?.["agents.project"] === name).map((e) => e.id)).toEqual([id]);

    const again = await agents.plan();
    expect(again.code, again.text).toBe(0);
  });
});

/** A vault holding one secret, as a project declares it (the secret from `.env`). */
const vault = (key: string) =>
  `vaults:\n  ${key}:\n    credentials:\n      - name: token\n        type: environment_variable\n        secret_name: SERVICE_TOKEN\n        secret_value: \${SECRET}\n`;

// A vault's secret cannot be read back: importing one always sends the declared secret. Where
// that is an in-place update (provider_c) the import makes it; where the change forces a
// replacement (provider_a) or vaults cannot be updated (provider_b, provider_d), the import only
// records the object and says so, and the next plan shows the replacement, never a silent update.
describe.each([
  { provider: "provider_a" as const, after: "replace" },
  { provider: "provider_b" as const, after: "replace" },
  { provider: "provider_c" as const, after: "none" },
  { provider: "provider_d" as const, after: "replace" },
])("$provider: import of a vault with a secret", ({ provider, after }) => {
  it(`imports it, then ${after === "none" ? "plans clean" : "plans the replacement it announced"}`, async () => {
    const other = await project(provider, vault("handmade"));
    await fs.appendFile(join(other.dir, ".env"), "SECRET=first\n");
    expect((await other.agents.apply()).code).toBe(0);
    const id = (await recorded(other.dir))[`${provider}.vaults["handmade"]`]!.id;
    const to = `${provider}.vaults["v"]`;
    const { dir, agents } = await project(provider, `${vault("v")}import:\n  - to: ${to}\n    id: ${id}\n`);
    await fs.appendFile(join(dir, ".env"), "SECRET=second\n");

    const planned = await agents.plan();
    const action = byAddress(planned.plan?.actions, to);
    expect(action?.action).toBe("import");
    expect(action?.changes.find((c) => c.path === "credentials[0].secret_value")?.sensitive).toBe(true);
    expect(planned.text).not.toContain("second");
    expect(action?.reason).toContain(after === "none" ? "then update" : "the next plan replaces it");
    expect((await agents.apply()).code).toBe(0);
    expect((await recorded(dir))[to]?.id).toBe(id);
    const next = await agents.plan();
    if (after === "none") expect(next.code, next.text).toBe(0);
    else expect(byAddress(next.plan?.actions, to)?.action).toBe("replace");
  });
});

const C: SimProvider = "provider_c";
const CA = (key: string) => `provider_c.agents["${key}"]`;
const CE = (key: string) => `provider_c.environments["${key}"]`;

/** A provider_c project with `body`, applied, then its agents.yaml rewritten by `edit`. */
async function appliedThenEdited(body: string, edit: (text: string) => string) {
  const made = await project(C, body);
  expect((await made.agents.apply()).code).toBe(0);
  const file = join(made.dir, "agents.yaml");
  await fs.writeFile(file, edit(await fs.readFile(file, "utf8")));
  return made;
}

/**
 * A provider_c project that applied environments `keep` and `scratch`, then took `scratch` out of
 * the file with a `removed:` entry of `destroy`; `ids` are the state's before the change.
 */
async function removedScratch(destroy: boolean) {
  const made = await project(C, `environments:\n${environment("keep")}${environment("scratch")}`);
  expect((await made.agents.apply()).code).toBe(0);
  const ids = await recorded(made.dir);
  const file = join(made.dir, "agents.yaml");
  const text = (await fs.readFile(file, "utf8")).replace(environment("scratch"), "");
  await fs.writeFile(file, `${text}removed:\n  - from: ${CE("scratch")}\n    destroy: ${destroy}\n`);
  return { ...made, ids };
}

describe("provider_c: what the state and the remote decide", () => {
  it("a chain of moves (a → b, b → c) moves the entry recorded at a to c", async () => {
    const { dir, agents } = await project(C, `agents:\n${agent("a", C)}`);
    expect((await agents.apply()).code).toBe(0);
    const id = (await recorded(dir))[CA("a")]!.id;
    await editConfig(dir, "  a:", "  c:");
    await fs.appendFile(
      join(dir, "agents.yaml"),
      `moved:\n  - from: ${CA("a")}\n    to: ${CA("b")}\n  - from: ${CA("b")}\n    to: ${CA("c")}\n`,
    );
    const planned = await agents.plan();
    expect(byAddress(planned.plan?.actions, CA("c"))).toMatchObject({
      previousAddress: CA("a"),
      remoteId: id,
    });
    expect((await agents.apply()).code).toBe(0);
    expect(Object.keys(await recorded(dir))).toEqual([CA("c")]);
    expect((await agents.plan()).code).toBe(0);
  });

  it("a chain that would move two recorded entries to one address is a plan error naming both", async () => {
    const { agents } = await appliedThenEdited(
      `agents:\n${agent("a", C)}${agent("b", C)}`,
      (text) =>
        `${text.replace(agent("b", C), "").replace("  a:", "  c:")}moved:\n  - from: ${CA("a")}\n    to: ${CA("b")}\n  - from: ${CA("b")}\n    to: ${CA("c")}\n`,
    );
    const planned = await agents.plan();
    expect(planned.code).toBe(1);
    expect(planned.error).toContain(`moved: ${CA("a")} and ${CA("b")} would both move to ${CA("c")}`);
  });

  it("a move whose to state already records is a plan error naming both", async () => {
    const { agents } = await appliedThenEdited(
      `agents:\n${agent("writer", C)}${agent("author", C)}`,
      (text) =>
        `${text.replace(agent("writer", C), "")}moved:\n  - from: ${CA("writer")}\n    to: ${CA("author")}\n`,
    );
    const planned = await agents.plan();
    expect(planned.code).toBe(1);
    expect(planned.error).toContain(`cannot move ${CA("writer")} to ${CA("author")}: state already records`);
    expect(planned.error).toContain("destroy: false");
  });

  it.each([
    {
      row: "an id that does not exist",
      id: () => "env_does_not_exist",
      says: "provider_c has no environments with id",
    },
    {
      row: "another project's agent id",
      id: (ids: Ids) => ids.foreign,
      says: "provider_c has no environments with id",
    },
    {
      row: "an agent id state records",
      id: (ids: Ids) => ids.helper,
      says: `is the id of ${CA("helper")}, not of`,
    },
    {
      row: "an environment id state records",
      id: (ids: Ids) => ids.desk,
      says: `which state already records as ${CE("desk")}`,
    },
  ])("an import of $row is a plan error naming the address and the id", async ({ id, says }) => {
    const other = await project(C, `agents:\n${agent("stranger", C)}`);
    expect((await other.agents.apply()).code).toBe(0);
    const { dir, agents } = await project(
      C,
      `agents:\n${agent("helper", C)}environments:\n${environment("desk")}`,
    );
    expect((await agents.apply()).code).toBe(0);
    const state = await recorded(dir);
    const wrong = id({
      foreign: (await recorded(other.dir))[CA("stranger")]!.id,
      helper: state[CA("helper")]!.id,
      desk: state[CE("desk")]!.id,
    });
    await fs.appendFile(
      join(dir, "agents.yaml"),
      `${environment("env")}import:\n  - to: ${CE("env")}\n    id: ${wrong}\n`,
    );
    const planned = await agents.plan();
    expect(planned.code).toBe(1);
    expect(planned.error).toContain(`import: ${CE("env")}`);
    expect(planned.error).toContain(wrong);
    expect(planned.error).toContain(says);
    expect(Object.keys(await recorded(dir)).sort()).toEqual([CA("helper"), CE("desk")]);
  });

  it("removed with destroy: false forgets the resource and leaves the remote object", async () => {
    const { dir, agents, ids } = await removedScratch(false);
    const id = ids[CE("scratch")]!.id;
    const planned = await agents.plan();
    expect(byAddress(planned.plan?.actions, CE("scratch"))?.action).toBe("forget");
    expect(planned.text).toContain(`  . ${CE("scratch")} (${id}): forget`);
    expect(planned.text).toContain("0 to delete, 1 to forget");
    const applied = await agents.apply();
    expect(applied.code, applied.text).toBe(0);
    expect(applied.text).toContain(`${CE("scratch")}: forgotten (the remote object stays)`);
    expect(Object.keys(await recorded(dir))).toEqual([CE("keep")]);
    expect((await live(C, "environments")).map((e) => e.id)).toContain(id);
    expect((await agents.plan()).code).toBe(0);
  });

  it("destroy honours removed with destroy: false: the object is forgotten, the rest destroyed", async () => {
    const { dir, agents, ids } = await removedScratch(false);
    const destroyed = await agents.destroy();
    expect(destroyed.code, destroyed.text).toBe(0);
    expect(Object.keys(await recorded(dir))).toEqual([]);
    const remaining = (await live(C, "environments")).map((e) => e.id);
    expect(remaining).toContain(ids[CE("scratch")]!.id);
    expect(remaining).not.toContain(ids[CE("keep")]!.id);
  });

  it("removed with destroy: true deletes it, the plan naming the entry", async () => {
    const { agents, ids } = await removedScratch(true);
    const id = ids[CE("scratch")]!.id;
    const planned = await agents.plan();
    expect(byAddress(planned.plan?.actions, CE("scratch"))).toMatchObject({
      action: "delete",
      reason: expect.stringContaining("removed (destroy: true)"),
    });
    expect((await agents.apply()).code).toBe(0);
    expect((await live(C, "environments")).map((e) => e.id)).not.toContain(id);
  });

  it("a key renamed without a moved entry: the plan prints the entry to add", async () => {
    const { dir, agents } = await project(C, `agents:\n${agent("writer", C)}`);
    expect((await agents.apply()).code).toBe(0);
    await editConfig(dir, "  writer:", "  author:");
    const planned = await agents.plan();
    expect(planned.plan?.warnings.join("\n")).toContain(
      `moved: [{from: '${CA("writer")}', to: '${CA("author")}'}]`,
    );
  });
});
