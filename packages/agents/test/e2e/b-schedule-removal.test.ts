// provider_b cannot clear a deployment's schedule in an update (docs/wire/provider-b.md §3.7): removing
// `schedule:` must be planned as a replacement, shown as such, and converge (issue 10).
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere as runCli } from "./cli-here.js";
import { editConfig, liveObjects, simState, simulatorForFile } from "./project.js";

const CONFIG = `version: "1"
providers:
  provider_b:
    api_key: \${B_API_KEY}
    gateway: \${B_GATEWAY}
environments:
  sandbox:
    provider: provider_b
    config:
      type: cloud
agents:
  writer:
    provider: provider_b
    model: auto
    instructions: Write clearly.
    environment: sandbox
deployments:
  daily:
    provider: provider_b
    agent: writer
    environment: sandbox
    resources:
      - type: git_repository
        url: https://github.com/example/notes
        authorization_token: \${GIT_TOKEN}
    initial_events:
      - type: user.message
        content: Daily summary.
    schedule:
      expression: "0 9 * * *"
      timezone: UTC
`;

const GIT_TOKEN = "ghp-schedule-test-secret-77";
const b = simulatorForFile("provider_b");
let dir: string;
const run = (...args: string[]) =>
  runCli(args, { cwd: dir, env: { AGENTS_STATE_KEY: "sched-key" }, timeoutMs: 60_000 });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agents-b-sched-"));
  await fs.writeFile(join(dir, "agents.yaml"), CONFIG);
  await fs.writeFile(
    join(dir, ".env"),
    `B_API_KEY=sim-provider-b-key\nB_GATEWAY=${b.url}\nGIT_TOKEN=${GIT_TOKEN}\n`,
  );
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("removing a provider_b deployment schedule", () => {
  it("is planned as a replacement and converges", async () => {
    expect((await run("apply", "-y")).code).toBe(0);
    // The git token is a secret: the state holds a keyed hash, never the value.
    const state = await fs.readFile(join(dir, "agents.state.json"), "utf8");
    expect(state).not.toContain(GIT_TOKEN);
    expect(state).toContain("hmac-sha256:");
    const show = await run("state", "show", 'provider_b.deployments["daily"]');
    expect(show.code).toBe(0);
    expect(show.stdout).not.toContain(GIT_TOKEN);
    await editConfig(dir, `    schedule:\n      expression: "0 9 * * *"\n      timezone: UTC\n`, "");
    const plan = await run("plan", "--detailed-exitcode");
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/provider_b\.deployments\["daily"\] \([^)]+\): replace, schedule/);
    expect(plan.stdout).toContain("# forces replacement");
    const apply = await run("apply", "-y");
    expect(apply.stderr).toBe("");
    expect(apply.code).toBe(0);
    expect((await run("plan", "--detailed-exitcode")).code).toBe(0);
  });

  it("changing the schedule stays an update", async () => {
    await editConfig(
      dir,
      "        content: Daily summary.\n",
      `        content: Daily summary.\n    schedule:\n      expression: "0 8 * * *"\n      timezone: UTC\n`,
    );
    expect((await run("apply", "-y")).code).toBe(0);
    await editConfig(dir, `"0 8 * * *"`, `"0 7 * * *"`);
    const plan = await run("plan", "--detailed-exitcode");
    expect(plan.stdout).toMatch(/deployments\["daily"\] \([^)]+\): update/);
    expect((await run("apply", "-y")).code).toBe(0);
    expect((await run("destroy", "-y")).code).toBe(0);
    const live = liveObjects(await simState(b)).filter(
      (o) => o.type === "deployments" || o.type === "agents",
    );
    expect(live).toEqual([]);
  });
});
