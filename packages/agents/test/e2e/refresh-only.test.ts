// The CLI's wiring of --refresh-only (the engine's behaviour is in
// test/convergence/refresh-only.test.ts): the flag reaches plan and apply, apply takes -y and
// refuses without a terminal, the exit codes and the one-line error.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inProcessProject } from "../convergence/in-process.js";
import { runCli } from "./cli.js";
import { simulatorForFile } from "./project.js";

const HEADERS = {
  "x-api-key": "sim-provider-c-key",
  "anthropic-version": "2023-06-01",
  "anthropic-beta": "managed-agents-2026-04-01",
  "content-type": "application/json",
};
const ENV = { AGENTS_STATE_KEY: "refresh-only-cli", C_API_KEY: "sim-provider-c-key" };

const sim = simulatorForFile("provider_c");
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agents-refresh-only-cli-"));
  await fs.writeFile(
    join(dir, "agents.yaml"),
    `version: "1"\nproviders:\n  provider_c:\n    api_key: \${C_API_KEY}\n    base_url: ${sim.url}\nagents:\n  lead:\n    model: claude-sonnet-4-5\n    instructions: Lead.\n`,
  );
  expect((await inProcessProject(dir, ENV).apply()).code).toBe(0);
  const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
  const id = state.resources['provider_c.agents["lead"]'].id;
  const agent = (await (await fetch(`${sim.url}/agents/${id}`, { headers: HEADERS })).json()) as {
    version: number;
  };
  const edited = await fetch(`${sim.url}/agents/${id}`, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({ version: agent.version, system: "Edited by hand." }),
  });
  expect(edited.ok).toBe(true);
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

const serial = async (): Promise<number> =>
  JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8")).serial;
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: ENV });

describe("agents plan/apply --refresh-only", () => {
  it("plans the drift, refuses an unconfirmed apply, records it with -y", async () => {
    const planned = await cli("plan", "--refresh-only", "--detailed-exitcode");
    expect(planned.code).toBe(2);
    expect(planned.stdout).toContain('instructions: "Lead." → "Edited by hand."');

    // No terminal to ask on: refused, one line, state untouched.
    const before = await serial();
    const unconfirmed = await cli("apply", "--refresh-only");
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toContain("refusing to record the drift without confirmation");
    expect(unconfirmed.stderr).not.toMatch(/\n\s+at /);
    expect(await serial()).toBe(before);

    const applied = await cli("apply", "--refresh-only", "-y");
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("Recorded 1 resource in the state; nothing remote was changed.");

    expect(await serial()).toBeGreaterThan(before);
    expect((await inProcessProject(dir, ENV).planRefreshOnly()).drift).toMatchObject({
      drift: [],
      errors: [],
    });
  });
});
