// Every project shipped under examples/ runs here against the simulators, in-process through the
// library API (the steps the CLI runs, the text it prints): validate → apply → plan has no
// changes → sync leaves agents.yaml as it is → destroy → the simulators hold nothing live of the
// project. One case per example folder, found on disk. e2e/examples.test.ts runs one example
// through the spawned CLI.
import { existsSync, promises as fs } from "node:fs";
import { join } from "node:path";
import type { RunningSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadProject, loadTestFile, runAgentTests } from "../../src/index.js";
import { copyExample, EXAMPLES, exampleEnv, examples, liveOf, startSims } from "./examples.js";
import { type InProcessProject, inProcessProject } from "./in-process.js";

let sims: Map<string, RunningSim>;
beforeAll(async () => {
  sims = await startSims();
});
afterAll(async () => {
  await Promise.all([...sims.values()].map((s) => s.close()));
});

describe.each(examples)("examples/%s", (name) => {
  let dir: string;
  let agents: InProcessProject;
  // Secrets the example's .env carries: none may reach the state file or any text produced.
  let secrets: string[] = [];

  beforeAll(async () => {
    ({ dir, secrets } = await copyExample(name, sims));
    agents = inProcessProject(dir, exampleEnv(name, sims));
  });
  afterAll(async () => {
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it("validates", async () => {
    const validate = await agents.validate();
    expect(validate.error).toBe("");
    expect(validate.code).toBe(0);
  });

  it("applies, then plans no changes, and sync leaves the file as it is", async () => {
    const apply = await agents.apply();
    expect(apply.error).toBe("");
    expect({ code: apply.code, out: apply.code === 0 ? "" : apply.text }).toEqual({ code: 0, out: "" });
    // The project is on a simulator now (the destroy check below is not vacuous).
    const owned = (await liveOf(sims, dir)).reduce((n, { left }) => n + left.length, 0);
    expect(owned).toBeGreaterThan(0);
    const plan = await agents.plan();
    expect(plan.text).toContain("No changes.");
    expect(plan.code).toBe(0);
    // Sync right after apply leaves agents.yaml byte-identical.
    const yaml = await fs.readFile(join(dir, "agents.yaml"), "utf8");
    const sync = await agents.sync();
    expect({ code: sync.code, error: sync.error }).toEqual({ code: 0, error: "" });
    expect(sync.changed).toBe(false);
    expect(await fs.readFile(join(dir, "agents.yaml"), "utf8")).toBe(yaml);
    const state = await fs.readFile(join(dir, "agents.state.json"), "utf8");
    for (const secret of secrets) {
      expect(state).not.toContain(secret);
      for (const text of agents.texts) expect(text).not.toContain(secret);
    }
  });

  // An example that ships conversation tests (docs/testing.md): they pass against its applied agents.
  if (existsSync(join(EXAMPLES, name, "agents.test.yaml")))
    it("passes its agents.test.yaml", async () => {
      const env = { ...process.env, ...exampleEnv(name, sims) };
      const options = { project: await loadProject({ file: join(dir, "agents.yaml"), env }), env };
      const agents = options.project.desired.filter((r) => r.kind === "agents").map((r) => r.name);
      const file = loadTestFile(join(dir, "agents.test.yaml"), agents);
      expect(file.diagnostics).toEqual([]);
      const run = await runAgentTests({ ...options, files: [file.testFile!] });
      expect(run.results.filter((r) => r.status !== "passed")).toEqual([]);
      expect(run.passed).toBeGreaterThan(0);
    });

  it("destroys, leaving nothing of the project on any simulator", async () => {
    const destroy = await agents.destroy();
    expect(destroy.error).toBe("");
    expect(destroy.code).toBe(0);
    for (const live of await liveOf(sims, dir)) expect(live).toEqual({ provider: live.provider, left: [] });
    const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
    expect(state.resources).toEqual({});
  });
});
