// `plan --refresh-only` / `apply --refresh-only` on provider_c's simulator, through the CLI's steps
// in-process: a change made outside agents is shown, recorded into the state on apply without one
// write request reaching the provider (the simulator's request log says so), and a refresh-only
// plan after it is clean, while a normal plan then offers to restore what agents.yaml declares.
// One case per kind of remote change.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { removedAfterAll, requestLog, simulatorForFile } from "../e2e/project.js";
import { type InProcessProject, inProcessProject } from "./in-process.js";
import { wireHeaders } from "./rows.js";
import { writeSimProject } from "./sim-project.js";

const HEADERS = wireHeaders("provider_c");

const BODY = `agents:
  lead:
    model: claude-sonnet-4-5
    instructions: Lead.
`;

const LEAD = 'provider_c.agents["lead"]';
const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

const sim = simulatorForFile("provider_c");
let dir: string;
let agents: InProcessProject;

async function state(): Promise<{
  serial: number;
  resources: Record<string, { id: string; spec: Record<string, unknown> }>;
}> {
  return JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
}

async function call(method: string, path: string, body?: unknown): Promise<void> {
  const response = await fetch(`${sim.url}${path}`, {
    method,
    headers: HEADERS,
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  expect(response.ok, `${method} ${path}: ${response.status}`).toBe(true);
}

/** The provider's writes logged since the log was last cleared (the control API's own are not). */
async function remoteWrites(): Promise<string[]> {
  return (await requestLog(sim))
    .filter((e) => WRITES.has(e.method) && !e.path.startsWith("/_sim/"))
    .map((e) => `${e.method} ${e.path}`);
}

const EDITS: Array<{
  name: string;
  edit: (id: string) => Promise<void>;
  shown: string[];
  recorded: (s: Awaited<ReturnType<typeof state>>) => unknown;
  expected: unknown;
  /** The normal plan's action afterwards. */
  restore: string;
}> = [
  {
    name: "instructions edited outside agents",
    edit: async (id) => {
      const agent = (await (await fetch(`${sim.url}/agents/${id}`, { headers: HEADERS })).json()) as {
        version: number;
      };
      await call("POST", `/agents/${id}`, { version: agent.version, system: "Edited by hand." });
    },
    shown: [`  ~ ${LEAD}`, '      instructions: "Lead." → "Edited by hand."'],
    recorded: (s) => s.resources[LEAD]?.spec.instructions,
    expected: "Edited by hand.",
    restore: "update",
  },
  {
    name: "agent archived outside agents",
    edit: (id) => call("POST", `/agents/${id}/archive`),
    shown: [`  - ${LEAD}`],
    recorded: (s) => s.resources[LEAD],
    expected: undefined,
    restore: "create",
  },
];

const dirs = removedAfterAll();
beforeAll(async () => {
  dir = await writeSimProject("provider_c", sim, BODY, { dirs, prefix: "agents-refresh-only-" });
  agents = inProcessProject(dir, { AGENTS_STATE_KEY: "refresh-only" });
});
beforeEach(async () => {
  // Each case starts from an applied, clean project.
  expect((await agents.apply()).code).toBe(0);
  expect((await agents.planRefreshOnly()).code).toBe(0);
});

describe.each(EDITS)("$name", ({ edit, shown, recorded, expected, restore }) => {
  it("refresh-only plan shows it; apply records it with no remote write; then nothing is left to record", async () => {
    await edit((await state()).resources[LEAD]!.id);

    const planned = await agents.planRefreshOnly();
    expect(planned.code).toBe(2);
    for (const line of shown) expect(planned.text.split("\n")).toContainEqual(expect.stringContaining(line));
    expect(planned.drift?.drift.map((d) => d.address)).toEqual([LEAD]);

    // Answered "no": the state stays as it was.
    const serial = (await state()).serial;
    expect((await agents.applyRefreshOnly({ confirm: false })).code).toBe(1);
    expect((await state()).serial).toBe(serial);

    await fetch(`${sim.origin}/_sim/log`, { method: "DELETE" });
    const applied = await agents.applyRefreshOnly();
    expect({ code: applied.code, accepted: applied.accepted, error: applied.error }).toEqual({
      code: 0,
      accepted: 1,
      error: "",
    });
    expect(await remoteWrites()).toEqual([]);
    // One accepted refresh is one new version of the state, as in Terraform: the serial moves by 1.
    expect((await state()).serial).toBe(serial + 1);
    expect((await requestLog(sim)).some((e) => e.method === "GET")).toBe(true);
    expect(recorded(await state())).toEqual(expected);

    const after = await agents.planRefreshOnly();
    expect({ code: after.code, drift: after.drift?.drift }).toEqual({ code: 0, drift: [] });
    // A normal plan now brings the remote back to agents.yaml.
    const normal = await agents.plan();
    expect(normal.plan?.actions.find((a) => a.address === LEAD)?.action).toBe(restore);
  });
});
