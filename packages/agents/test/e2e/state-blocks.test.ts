// The `moved:` list through the CLI itself (issue 38, item 2): validate points at a shorthand
// address with the form to write, the spawned `agents plan --out` shows the move, and applying
// that saved plan records it (the engine's cases: test/convergence/state-blocks.test.ts).
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeSimProject } from "../convergence/sim-project.js";
import { runCli } from "./cli.js";
import { runCliHere } from "./cli-here.js";
import { editConfig, simulatorForFile } from "./project.js";

const c = simulatorForFile("provider_c");
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

const FROM = 'provider_c.agents["writer"]';
const TO = 'provider_c.agents["author"]';

describe("moved through the CLI", () => {
  it("validate names the address form, a saved plan shows the move, applying it records the move", async () => {
    const dir = await writeSimProject(
      "provider_c",
      c,
      "agents:\n  writer:\n    model: claude-sonnet-4-5\n    instructions: Write clearly.\n",
      { dirs, prefix: "agents-blocks-e2e-" },
    );
    const env = { AGENTS_STATE_KEY: "blocks-e2e" };
    const here = (...args: string[]) => runCliHere(args, { cwd: dir, env });
    expect((await here("apply", "-y")).code).toBe(0);
    const id = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8")).resources[FROM].id;

    await editConfig(dir, "  writer:", "  author:");
    await fs.appendFile(
      join(dir, "agents.yaml"),
      `moved:\n  - from: provider_c.agents.writer\n    to: ${TO}\n`,
    );
    const invalid = await here("validate");
    expect(invalid.code).toBe(1);
    const lines = (await fs.readFile(join(dir, "agents.yaml"), "utf8")).split("\n");
    const line = lines.findIndex((l) => l.includes("from: provider_c.agents.writer")) + 1;
    expect(invalid.stdout + invalid.stderr).toContain(`agents.yaml:${line}:11 error AGENTS1070`);
    expect(invalid.stdout + invalid.stderr).toContain(`write ${FROM}`);

    await editConfig(dir, "from: provider_c.agents.writer", `from: ${FROM}`);
    const planned = await runCli(["plan", "--out", "plan.json"], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain(`~ ${TO} (${id}): update, moved from ${FROM}; 2 fields to update`);
    expect(planned.stdout).toContain("1 to move");
    const applied = await here("apply", "plan.json");
    expect(applied.code, applied.stderr).toBe(0);
    const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8")).resources;
    expect(Object.keys(state)).toEqual([TO]);
    expect(state[TO].id).toBe(id);
    expect((await here("plan", "--detailed-exitcode")).code).toBe(0);
  });
});
