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

const ROWS: Array<{
  provider: Parameters<typeof startSim>[0];
  settings: (url: string) => string;
  model: string;
}> = [
  {
    provider: "provider_a",
    settings: (url) => `    api_key: sim-provider-a-key\n    workspace_id: llm-rename\n    base_url: ${url}`,
    model: "qwen-max",
  },
  {
    provider: "provider_b",
    settings: (url) => `    api_key: sim-provider-b-key\n    gateway: ${url}`,
    model: "auto",
  },
  {
    provider: "provider_c",
    settings: (url) => `    api_key: sim-provider-c-key\n    base_url: ${url}`,
    model: "claude-sonnet-4-5",
  },
  {
    provider: "provider_d",
    settings: (url) => `    api_key: sim-provider-d-key\n    base_url: ${url}`,
    model: "gpt-4o",
  },
];

const sims: RunningSim[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

type Wire = { name?: string; metadata?: Record<string, string>; archived_at?: unknown };

describe.each(ROWS)("$provider: a renamed agent key after state mv", ({ provider, settings, model }) => {
  it("plans the remote rename and the label re-stamp, applies exactly that, then plans clean", async () => {
    const sim = await startSim(provider, { quiet: true });
    sims.push(sim);
    const dir = mkdtempSync(join(tmpdir(), "agents-rename-key-"));
    dirs.push(dir);
    await fs.writeFile(
      join(dir, "agents.yaml"),
      `version: "1"\nproviders:\n  ${provider}:\n${settings(sim.url)}\nagents:\n  writer:\n    model: ${model}\n    instructions: Write clearly.\n`,
    );
    const agents = inProcessProject(dir, { AGENTS_STATE_KEY: "rename-key", AGENTS_PROJECT: "rename-key" });
    const live = async () =>
      ((await simState(sim)) as { agents: Wire[] }).agents.filter((a) => !a.archived_at);

    const first = await agents.apply();
    expect(first.code, `${first.text}\n${first.error}`).toBe(0);
    expect((await live()).map((a) => a.name)).toEqual(["writer"]);

    const from = `${provider}.agents["writer"]`;
    const to = `${provider}.agents["author"]`;
    await editConfig(dir, "  writer:", "  author:");
    await withConfiguredState(join(dir, "agents.yaml"), (backend) => moveInState(backend, from, to));

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
