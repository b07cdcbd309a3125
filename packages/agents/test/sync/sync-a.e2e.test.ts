// `agents sync` on provider_a through the CLI's own commands, in-process (e2e/cli-here.ts): its roster comes back through the same
// ownership rules as on provider_c/d (the core does not know which provider it talks to).
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere as runCli } from "../e2e/cli-here.js";
import { simulatorForFile } from "../e2e/project.js";
import { Console, FIXTURE_A, fileHash, makeProject } from "./remote.js";

const PROJECT = "sync-a";
const a = simulatorForFile("provider_a");
let dir: string;
let remote: Console;
const run = (...args: string[]) =>
  runCli(args, { cwd: dir, env: { AGENTS_STATE_KEY: "sync-a-key", AGENTS_PROJECT: PROJECT } });
const yamlPath = () => join(dir, "agents.yaml");

beforeAll(async () => {
  remote = new Console("provider_a", a);
  dir = await makeProject({ a }, FIXTURE_A);
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("agents sync on provider_a", () => {
  let externalId: string;

  it("applies, then a remote edit and an outside roster member come back into the file", async () => {
    const apply = await run("apply", "-y");
    expect(apply.stderr).toBe("");
    expect(apply.code).toBe(0);
    const analyst = await remote.agentOf(PROJECT, "analyst-a");
    await remote.updateAgent(String(analyst.id), { system: "Analyse the data and show your working." });
    const external = await remote.post("/agents", { name: "outside-helper", model: { id: "qwen-max" } });
    externalId = String(external.id);
    const chief = await remote.agentOf(PROJECT, "chief-a");
    await remote.updateAgent(String(chief.id), {
      multiagent: {
        type: "coordinator",
        agents: [
          { type: "agent", id: analyst.id },
          { type: "agent", id: externalId },
        ],
      },
    });

    const before = await fileHash(yamlPath());
    const dry = await run("sync", "--dry-run", "--detailed-exitcode");
    expect(dry.code).toBe(2);
    expect(dry.stdout).toContain("+    instructions: Analyse the data and show your working.");
    expect(await fileHash(yamlPath())).toBe(before);

    const sync = await run("sync");
    expect(sync.stderr).toBe("");
    expect(sync.code).toBe(0);
    const after = await fs.readFile(yamlPath(), "utf8");
    expect(after).toContain("# A provider_a coordinator with one project member.");
    expect(after).toContain(
      "        - analyst-a # the project's own member\n        - agent_id: " + externalId,
    );
    expect(after).toContain("    instructions: Analyse the data and show your working.");
    const plan = await run("plan", "--detailed-exitcode");
    expect(plan.stdout).toContain("No changes.");
    expect(plan.code).toBe(0);
  });

  it("refuses when a project-owned member is archived, leaving the file as it was", async () => {
    const analyst = await remote.agentOf(PROJECT, "analyst-a");
    await remote.post(`/agents/${analyst.id}/archive`, {});
    const before = await fileHash(yamlPath());
    const sync = await run("sync");
    expect(sync.code).toBe(1);
    expect(sync.stderr).toContain(
      `roster member ${analyst.id} belongs to project "${PROJECT}" but is archived`,
    );
    expect(await fileHash(yamlPath())).toBe(before);
  });
});
