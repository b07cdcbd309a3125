// Renaming an agent's key in agents.yaml and moving its state entry (`agents state mv`) renames the
// remote agent at the next apply on every provider (its remote name is the logical key) and
// re-stamps its ownership label: the plan shows exactly those two field updates (issue 23, item 6),
// apply makes them, and the next plan is clean. One row per provider, in-process on its simulator.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, describe, expect, it } from "vitest";
import { withConfiguredState } from "../../src/cli/commands/state.js";
import { moveInState } from "../../src/index.js";
import { editConfig, simState } from "../e2e/project.js";
import { inProcessProject } from "./in-process.js";

const B_SETTINGS = (url: string) => `    api_key: sim-provider-b-key\n    gateway: ${url}\n`;

const ROWS: Array<{
  row: string;
  provider: Parameters<typeof startSim>[0];
  settings: (url: string) => string;
  /** The agent's fields besides instructions (and what else it needs). */
  agent: string;
  environments?: string;
  /** Where the simulator's dump keeps the agent. */
  dump: string;
}> = [
  {
    row: "provider_a",
    provider: "provider_a",
    settings: (url) =>
      `    api_key: sim-provider-a-key\n    workspace_id: llm-rename\n    base_url: ${url}\n`,
    agent: "    model: qwen-max\n",
    dump: "agents",
  },
  {
    row: "provider_b Managed",
    provider: "provider_b",
    settings: B_SETTINGS,
    agent: "    model: auto\n",
    dump: "agents",
  },
  {
    row: "provider_b Forward",
    provider: "provider_b",
    settings: B_SETTINGS,
    agent:
      "    model: auto\n    environment: desk\n    delivery:\n      provider_b:\n        type: forward\n",
    environments: "environments:\n  desk:\n    config:\n      type: cloud\n",
    dump: "templates",
  },
  {
    row: "provider_c",
    provider: "provider_c",
    settings: (url) => `    api_key: sim-provider-c-key\n    base_url: ${url}\n`,
    agent: "    model: claude-sonnet-4-5\n",
    dump: "agents",
  },
  {
    row: "provider_d",
    provider: "provider_d",
    settings: (url) => `    api_key: sim-provider-d-key\n    base_url: ${url}\n`,
    agent: "    model: gpt-4o\n",
    dump: "agents",
  },
];

const sims: RunningSim[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

type Wire = { name?: string; metadata?: Record<string, string>; archived_at?: unknown };

describe.each(ROWS)("$row: a renamed agent key after state mv", (row) => {
  it("plans the remote rename and the label re-stamp, applies exactly that, then plans clean", async () => {
    const sim = await startSim(row.provider, { quiet: true });
    sims.push(sim);
    const dir = mkdtempSync(join(tmpdir(), "agents-rename-key-"));
    dirs.push(dir);
    const file = join(dir, "agents.yaml");
    await fs.writeFile(
      file,
      `version: "1"\nproviders:\n  ${row.provider}:\n${row.settings(sim.url)}${row.environments ?? ""}` +
        `agents:\n  writer:\n${row.agent}    instructions: Write clearly.\n`,
    );
    const agents = inProcessProject(dir, { AGENTS_STATE_KEY: "rename-key", AGENTS_PROJECT: "rename-key" });
    const live = async () =>
      ((await simState(sim)) as Record<string, Wire[]>)[row.dump]!.filter((a) => !a.archived_at);

    const first = await agents.apply();
    expect(first.code, `${first.text}\n${first.error}`).toBe(0);
    expect((await live()).map((a) => a.name)).toEqual(["writer"]);

    const from = `${row.provider}.agents["writer"]`;
    const to = `${row.provider}.agents["author"]`;
    await editConfig(dir, "  writer:", "  author:");
    await withConfiguredState(file, (backend) => moveInState(backend, from, to));

    const planned = await agents.plan();
    expect(planned.code).toBe(2);
    const action = planned.plan?.actions.find((a) => a.address === to);
    expect(action?.action).toBe("update");
    expect(action?.changes.map((c) => [c.path, c.before, c.after])).toEqual([
      ["name", "writer", "author"],
      ["metadata.agents.resource", from, to],
    ]);
    expect(planned.text).toContain('~ name: "writer" → "author"');

    expect((await agents.apply()).code).toBe(0);
    const after = await live();
    expect(after.map((a) => [a.name, a.metadata?.["agents.resource"]])).toEqual([["author", to]]);
    expect((await agents.plan()).code).toBe(0);
  });
});
