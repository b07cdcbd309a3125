// External resources and import on the provider_c simulator: an environment declared with
// environment_id is verified and recorded, never changed; removing the id while tracked is
// blocked until `agents state rm`; `agents import` adopts an existing environment.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere as runCli } from "./cli-here.js";
import { liveObjects, SECRETS, simState, simulatorForFile } from "./project.js";

const env = { AGENTS_STATE_KEY: "external-key" };
const SHARED = 'provider_c.environments["shared"]';
const LEGACY = 'provider_c.environments["legacy"]';
const c = simulatorForFile("provider_c");
let dir: string;
let sharedId: string;
let legacyId: string;
const run = (...args: string[]) => runCli(args, { cwd: dir, env });

async function createRemoteEnvironment(name: string): Promise<string> {
  const response = await fetch(`${c.url}/environments`, {
    method: "POST",
    headers: {
      "x-api-key": SECRETS.C_API_KEY,
      "anthropic-version": "2023-06-01",
      "anthropic-beta": "managed-agents-2026-04-01",
      "content-type": "application/json",
    },
    body: JSON.stringify({ name, config: { type: "cloud", networking: { type: "unrestricted" } } }),
  });
  expect(response.ok).toBe(true);
  return ((await response.json()) as { id: string }).id;
}

async function writeConfig(withEnvironmentId: boolean) {
  const lines = [
    'version: "1"',
    "providers:",
    "  provider_c:",
    `    api_key: ${SECRETS.C_API_KEY}`,
    `    base_url: ${c.url}`,
    "environments:",
    "  shared:",
    "    provider: provider_c",
    ...(withEnvironmentId ? [`    environment_id: ${sharedId}`] : []),
    "    config:",
    "      type: cloud",
    "  legacy:",
    "    provider: provider_c",
    "    config:",
    "      type: cloud",
  ];
  await fs.writeFile(join(dir, "agents.yaml"), `${lines.join("\n")}\n`);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agents-external-"));
  sharedId = await createRemoteEnvironment("shared");
  legacyId = await createRemoteEnvironment("legacy");
  await writeConfig(true);
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("external resources and import", () => {
  it("imports an existing environment instead of creating one", async () => {
    const missing = await run("import", LEGACY, "env_does_not_exist");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("has no environments with id env_does_not_exist");
    const imported = await run("import", LEGACY, legacyId);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(`Imported ${LEGACY} as ${legacyId}`);
    const again = await run("import", LEGACY, legacyId);
    expect(again.stderr).toContain("is already managed");
  });

  it("verifies and records the external environment, creating nothing", async () => {
    const plan = JSON.parse((await run("plan", "--json")).stdout) as {
      actions: Array<{ address: string; action: string; changes: Array<{ path: string; after?: unknown }> }>;
    };
    const byAddress = Object.fromEntries(plan.actions.map((a) => [a.address, a]));
    expect(byAddress[SHARED]!.action).toBe("read");
    // The imported environment matches the file but lacks the ownership labels: the plan says
    // apply adds them (issue 23), instead of "No changes" with a remote sync cannot find.
    expect(byAddress[LEGACY]!.action).toBe("update");
    expect(byAddress[LEGACY]!.changes.map((c) => [c.path, c.after])).toEqual([
      ["metadata.agents.project", basename(dir)],
      ["metadata.agents.resource", LEGACY],
    ]);
    const apply = await run("apply", "-y");
    expect(apply.code).toBe(0);
    const legacy = (
      (await simState(c)) as { environments: Array<{ id: string; metadata: object }> }
    ).environments.find((e) => e.id === legacyId)!;
    expect(legacy.metadata).toMatchObject({ "agents.project": basename(dir), "agents.resource": LEGACY });
    expect((await run("plan", "--detailed-exitcode")).code).toBe(0);
    const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
    expect(state.resources[SHARED]).toMatchObject({ id: sharedId, external: true });
    expect(state.resources[LEGACY]).toMatchObject({ id: legacyId, external: false });
    const environments = liveObjects(await simState(c)).filter((o) => o.type === "environment");
    expect(environments.map((o) => o.id).sort()).toEqual([legacyId, sharedId].sort());
  });

  it("blocks removing environment_id while tracked, until agents state rm", async () => {
    await writeConfig(false);
    const blocked = await run("plan");
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain(`${SHARED}: tracked as external (${sharedId})`);
    expect(blocked.stderr).toContain(`agents state rm '${SHARED}'`);
    expect((await run("state", "rm", SHARED)).code).toBe(0);
    const plan = await run("plan", "--detailed-exitcode");
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain(`+ ${SHARED}: create`);
  });

  it("destroy releases the external environment and deletes only what agents manages", async () => {
    await writeConfig(true);
    expect((await run("apply", "-y")).code).toBe(0);
    const destroy = await run("destroy", "-y");
    expect(destroy.code).toBe(0);
    expect(destroy.stdout).toContain(`${SHARED}: released from state`);
    // The released external is not counted as destroyed (issue 10).
    expect(destroy.stdout).toMatch(/Destroy complete in [\d.]+s: 1 destroyed, 1 released from state\./);
    const environments = liveObjects(await simState(c)).filter((o) => o.type === "environment");
    expect(environments.map((o) => o.id)).toEqual([sharedId]);
  });
});
