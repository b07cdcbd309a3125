// Multi-agent rosters on every provider through the CLI's own commands, in-process (e2e/cli-here.ts) against the four simulators, one
// row per (provider, spec rule) that shows on the wire: project members resolved to the
// provider's remote ids (rule 1, rule 7: no member version sent), members created before their
// coordinator, `{agent_id}` members never created, updated or destroyed (rule 2), and removing
// `multiagent` clearing the remote roster on update (rule 8). One apply per phase, shared by rows.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere as runCli } from "./cli-here.js";
import { editConfig, simState } from "./project.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/multiagent/agents.yaml", import.meta.url));
type Sim = "a" | "b" | "c" | "d";
type Obj = Record<string, any>;
type LogEntry = { seq: number; method: string; path: string; status: number };

const KEYS: Record<Sim, Record<string, string>> = {
  a: { authorization: "Bearer sim-provider-a-key" },
  b: { authorization: "Bearer sim-provider-b-key" },
  c: {
    "x-api-key": "sim-provider-c-key",
    "anthropic-version": "2023-06-01",
    "anthropic-beta": "managed-agents-2026-04-01",
  },
  d: { authorization: "Bearer sim-provider-d-key" },
};
const EXTERNAL_MODEL: Record<Sim, unknown> = {
  a: { id: "qwen-max" },
  b: "auto",
  c: "claude-sonnet-4-5",
  d: { id: "doubao-seed-1-6" },
};

interface Row {
  provider: string;
  sim: Sim;
  collection: "agents" | "templates";
  suffix: string;
  /** External Managed Agent in the roster (never on a Forward roster: rule 3). */
  external: boolean;
  /** The roster as the simulator stores what the adapter sent. */
  wire(memberId: string, externalId: string, member: Obj): unknown;
}

/** The roster as read back where the platform pins versions: the member at its version, the external agent at 1. */
const pinnedRoster = (m: string, x: string, member: Obj) => ({
  type: "coordinator",
  agents: [
    { type: "agent", id: m, version: member.version },
    { type: "agent", id: x, version: 1 },
  ],
});

const ROWS: Row[] = [
  {
    provider: "provider_a",
    sim: "a",
    collection: "agents",
    suffix: "a",
    external: true,
    // Ids only; a member version would be refused ("member versions are not accepted").
    wire: (m, x) => ({
      type: "coordinator",
      agents: [
        { type: "agent", id: m },
        { type: "agent", id: x },
      ],
    }),
  },
  {
    provider: "provider_b Managed",
    sim: "b",
    collection: "agents",
    suffix: "b",
    external: true,
    // Ids only on the wire; the platform pins each member's current version on save.
    wire: pinnedRoster,
  },
  {
    provider: "provider_b Forward",
    sim: "b",
    collection: "templates",
    suffix: "fwd",
    external: false,
    wire: (m) => ({ type: "coordinator", agents: [{ type: "template", template_id: m }] }),
  },
  {
    provider: "provider_c",
    sim: "c",
    collection: "agents",
    suffix: "c",
    external: true,
    wire: pinnedRoster,
  },
  {
    provider: "provider_d",
    sim: "d",
    collection: "agents",
    suffix: "d",
    external: true,
    wire: pinnedRoster,
  },
];
const WITH_EXTERNAL = ROWS.filter((r) => r.external);

const sims = {} as Record<Sim, RunningSim>;
const externals = {} as Record<Sim, Obj>;
let dir: string;
const run = (...args: string[]) =>
  runCli(args, { cwd: dir, env: { AGENTS_STATE_KEY: "multiagent-key" }, timeoutMs: 60_000 });

async function dump(sim: Sim): Promise<Record<string, Obj[]>> {
  return (await simState(sims[sim])) as Record<string, Obj[]>;
}
async function log(sim: Sim): Promise<LogEntry[]> {
  const response = await fetch(`${sims[sim].origin}/_sim/log`);
  return ((await response.json()) as { entries: LogEntry[] }).entries;
}
async function stateIds(): Promise<Record<string, string>> {
  const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
  return Object.fromEntries(
    Object.entries(state.resources as Record<string, Obj>).map(([a, r]) => [a, r.id]),
  );
}
const address = (row: Row, role: "member" | "lead") =>
  `${row.provider.split(" ")[0]}.agents["${role}-${row.suffix}"]`;
const find = (d: Record<string, Obj[]>, row: Row, id: string | undefined) =>
  (d[row.collection] ?? []).find((o) => o.id === id);

/** Writes to the external agent's path, the only way to create, update or destroy it. */
async function writesTo(sim: Sim, id: string): Promise<LogEntry[]> {
  return (await log(sim)).filter((e) => e.method !== "GET" && e.path.includes(id));
}

beforeAll(async () => {
  for (const s of ["a", "b", "c", "d"] as Sim[]) sims[s] = await startSim(`provider_${s}`, { quiet: true });
  // An agent someone else created in each managed account: it carries no ownership metadata.
  for (const s of ["a", "b", "c", "d"] as Sim[]) {
    const response = await fetch(`${sims[s].url}/agents`, {
      method: "POST",
      headers: { ...KEYS[s], "content-type": "application/json" },
      body: JSON.stringify({ name: `external-${s}`, model: EXTERNAL_MODEL[s], system: "Not ours." }),
    });
    if (!response.ok) throw new Error(`seeding external-${s}: ${await response.text()}`);
    const { id } = (await response.json()) as Obj;
    // The simulator's own record (internal fields included) is what must not change.
    externals[s] = (await dump(s)).agents!.find((a) => a.id === id)!;
  }
  dir = mkdtempSync(join(tmpdir(), "agents-multiagent-"));
  let yaml = await fs.readFile(FIXTURE, "utf8");
  for (const s of ["a", "b", "c", "d"] as Sim[])
    yaml = yaml.replace(`EXTERNAL_${s.toUpperCase()}`, String(externals[s].id));
  await fs.writeFile(join(dir, "agents.yaml"), yaml);
  const env = {
    A_API_KEY: "sim-provider-a-key",
    B_API_KEY: "sim-provider-b-key",
    C_API_KEY: "sim-provider-c-key",
    D_API_KEY: "sim-provider-d-key",
    A_BASE_URL: sims.a.url,
    B_GATEWAY: sims.b.url,
    C_BASE_URL: sims.c.url,
    D_BASE_URL: sims.d.url,
  };
  await fs.writeFile(
    join(dir, ".env"),
    Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n"),
  );
});
afterAll(async () => {
  await Promise.all(Object.values(sims).map((s) => s.close()));
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

async function externalUntouched(row: Row) {
  const d = await dump(row.sim);
  expect(d.agents!.find((a) => a.id === externals[row.sim].id)).toEqual(externals[row.sim]);
  expect(await writesTo(row.sim, String(externals[row.sim].id))).toEqual([]);
}

describe("apply of coordinators with project and external members", () => {
  let ids: Record<string, string>;
  const logStart = {} as Record<Sim, number>;
  beforeAll(async () => {
    for (const s of ["a", "b", "c", "d"] as Sim[]) logStart[s] = (await log(s)).at(-1)?.seq ?? 0;
    const apply = await run("apply", "-y");
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    ids = await stateIds();
  });

  it.each(ROWS)(
    "$provider: project members are resolved to remote ids in the wire form (rules 1, 7)",
    async (row) => {
      const d = await dump(row.sim);
      const memberId = ids[address(row, "member")]!;
      const member = find(d, row, memberId)!;
      const lead = find(d, row, ids[address(row, "lead")])!;
      expect(member).toBeDefined();
      expect(lead.multiagent).toEqual(row.wire(memberId, String(externals[row.sim].id), member));
    },
  );

  it.each(ROWS)("$provider: members are created before their coordinator", async (row) => {
    const d = await dump(row.sim);
    const collection = d[row.collection]!.map((o) => o.id);
    const member = collection.indexOf(ids[address(row, "member")]);
    const lead = collection.indexOf(ids[address(row, "lead")]);
    expect(member).toBeGreaterThanOrEqual(0);
    expect(lead).toBeGreaterThan(member);
    // Every create call in this apply succeeded: the coordinator was never sent ahead of a member.
    const creates = (await log(row.sim)).filter(
      (e) => e.seq > logStart[row.sim] && e.method === "POST" && e.path.endsWith(`/${row.collection}`),
    );
    expect(creates.length).toBeGreaterThanOrEqual(2);
    expect(creates.filter((e) => e.status >= 400)).toEqual([]);
  });

  it.each(WITH_EXTERNAL)(
    "$provider: the {agent_id} member is neither created nor updated (rule 2)",
    async (row) => {
      await externalUntouched(row);
      const owned = Object.keys(ids).filter((a) => ids[a] === externals[row.sim].id);
      expect(owned).toEqual([]);
    },
  );

  it("reads every roster back as declared: the next plan has no changes", async () => {
    const plan = await run("plan", "--detailed-exitcode");
    expect(plan.stdout + plan.stderr).toContain("No changes.");
    expect(plan.code).toBe(0);
  });
});

describe("removing multiagent from every coordinator", () => {
  let ids: Record<string, string>;
  let before: Record<string, Obj>;
  beforeAll(async () => {
    ids = await stateIds();
    before = {};
    for (const row of ROWS) before[row.provider] = find(await dump(row.sim), row, ids[address(row, "lead")])!;
    for (const members of [
      "member-a, {agent_id: EXTERNAL_A}",
      "member-b, {agent_id: EXTERNAL_B}",
      "member-c, {agent_id: EXTERNAL_C}",
      "member-d, {agent_id: EXTERNAL_D}",
      "member-fwd",
    ]) {
      const real = members.replace(/EXTERNAL_([A-D])/, (_, s: string) =>
        String(externals[s.toLowerCase() as Sim].id),
      );
      await editConfig(dir, `    multiagent:\n      type: coordinator\n      agents: [${real}]\n`, "");
    }
    const apply = await run("apply", "-y");
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toMatch(/0 created, 5 updated, 0 replaced, 0 deleted/);
  });

  it.each(ROWS)("$provider: the update clears the remote roster (rule 8)", async (row) => {
    const lead = find(await dump(row.sim), row, ids[address(row, "lead")])!;
    expect(before[row.provider]!.multiagent).not.toBeNull();
    expect(lead.multiagent ?? null).toBeNull();
    // Same object, updated in place: not replaced by a new one.
    expect(lead.id).toBe(before[row.provider]!.id);
    if (row.collection === "agents") expect(lead.version).toBe(before[row.provider]!.version + 1);
  });

  it.each(WITH_EXTERNAL)("$provider: the former external member is still untouched", externalUntouched);
});

describe("destroy", () => {
  beforeAll(async () => {
    const destroy = await run("destroy", "-y");
    expect(destroy.code, destroy.stdout + destroy.stderr).toBe(0);
  });

  it.each(WITH_EXTERNAL)("$provider: the external member is not destroyed (rule 2)", externalUntouched);

  it.each(ROWS)("$provider: the project's member and coordinator are gone", async (row) => {
    const d = await dump(row.sim);
    const live = (d[row.collection] ?? []).filter(
      (o) => o.id !== externals[row.sim].id && !o.archived_at && !o.deleted_at && o.status !== "archived",
    );
    expect(live.filter((o) => String(o.name).endsWith(`-${row.suffix}`))).toEqual([]);
  });
});
