// Edits made to an agent behind the tool's back, on provider_c's simulator, through the CLI's steps
// in-process (in-process.ts): each is seen by plan as exactly that drift, written back by sync as
// exactly that change, and restored by apply, after which plan is clean again. One case per edit.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { driftLines, removedAfterAll, simulatorForFile } from "../e2e/project.js";
import { type InProcessProject, inProcessProject } from "./in-process.js";
import { wireHeaders } from "./rows.js";
import { writeSimProject } from "./sim-project.js";

const HEADERS = wireHeaders("provider_c");

const BODY = `agents:
  lead:
    model: claude-sonnet-4-5
    instructions: Lead.
    tools:
      builtin: [bash, read, write, web_search]
    multiagent:
      type: coordinator
      agents: [m1, m2]
  m1:
    model: claude-sonnet-4-5
    instructions: M1.
  m2:
    model: claude-sonnet-4-5
    instructions: M2.
`;

type Wire = Record<string, unknown> & { version: number; tools: Array<Record<string, unknown>> };

const EDITS: Array<{
  name: string;
  edit: (agent: Wire) => Record<string, unknown>;
  drift: string[];
  synced: { from: string; to: string };
}> = [
  {
    name: "a coordinator roster cleared (multiagent: null)",
    edit: () => ({ multiagent: null }),
    drift: [
      '+ multiagent.agents[0]: "m1"',
      '+ multiagent.agents[1]: "m2"',
      '+ multiagent.type: "coordinator"',
    ],
    synced: { from: "    multiagent:\n      type: coordinator\n      agents: [m1, m2]\n", to: "" },
  },
  {
    name: "one builtin tool removed",
    edit: (agent) => ({
      tools: agent.tools.map((toolset) => ({
        ...toolset,
        configs: (toolset.configs as Array<{ name: string }>).filter((c) => c.name !== "read"),
      })),
    }),
    drift: ['~ tools.builtin: ["bash","web_search","write"] → ["bash","read","web_search","write"]'],
    synced: { from: "builtin: [bash, read, write, web_search]", to: "builtin: [bash, write, web_search]" },
  },
];

const sim = simulatorForFile("provider_c");
let dir: string;
let agents: InProcessProject;

async function leadId(): Promise<string> {
  const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
  return state.resources['provider_c.agents["lead"]'].id;
}

const dirs = removedAfterAll();
beforeAll(async () => {
  dir = await writeSimProject("provider_c", sim, BODY, { dirs, prefix: "agents-remote-edits-" });
  agents = inProcessProject(dir, { AGENTS_STATE_KEY: "remote-edits" });
  expect((await agents.apply()).code).toBe(0);
});

describe.each(EDITS)("$name", ({ edit, drift, synced }) => {
  it("plan shows exactly that drift; sync writes exactly that change; apply restores it", async () => {
    const id = await leadId();
    const agent = (await (await fetch(`${sim.url}/agents/${id}`, { headers: HEADERS })).json()) as Wire;
    const saved = await fetch(`${sim.url}/agents/${id}`, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify({ version: agent.version, ...edit(agent) }),
    });
    expect(saved.ok).toBe(true);

    const plan = await agents.plan();
    expect(plan.code).toBe(2);
    const changes = driftLines(plan.text);
    expect(changes).toEqual(drift);

    const before = await fs.readFile(join(dir, "agents.yaml"), "utf8");
    expect(before).toContain(synced.from);
    const sync = await agents.sync();
    expect(sync.code).toBe(0);
    expect(await fs.readFile(join(dir, "agents.yaml"), "utf8")).toBe(before.replace(synced.from, synced.to));

    // Back to the declaration, then the remote is restored by apply and everything is clean.
    await fs.writeFile(join(dir, "agents.yaml"), before);
    expect((await agents.apply()).code).toBe(0);
    expect((await agents.plan()).code).toBe(0);
    const dry = await agents.sync({ dryRun: true });
    expect({ code: dry.code, changed: dry.changed }).toEqual({ code: 0, changed: false });
  });
});
