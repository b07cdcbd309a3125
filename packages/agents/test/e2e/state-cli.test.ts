// The state commands and the lock, through the CLI's own commands, in-process (e2e/cli-here.ts).
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStateFile, readState } from "../../src/state/file-store.js";
import { runCliHere as runCli } from "./cli-here.js";

let dir: string;
const env = { AGENTS_STATE_KEY: "test-key", C_KEY: "sk-test-secret-1234" };
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "agents-cli-"));
  await fs.writeFile(
    join(dir, "agents.yaml"),
    [
      'version: "1"',
      "providers:",
      "  provider_c:",
      "    api_key: ${C_KEY}",
      "environments:",
      "  shared:",
      "    provider: provider_c",
      "    environment_id: env_external_1",
      "    config:",
      "      type: cloud",
      "",
    ].join("\n"),
  );
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

async function seedState() {
  const store = await openStateFile(join(dir, "agents.state.json"), "seed");
  const entry = (name: string, external: boolean) => ({
    address: `provider_c.environments["${name}"]`,
    kind: "environments" as const,
    name,
    provider: "provider_c" as const,
    id: `env_${name}`,
    external,
    spec: {},
    dependsOn: [],
    updatedAt: new Date().toISOString(),
  });
  await store.update((r) => {
    r[entry("shared", true).address] = entry("shared", true);
    r[entry("old", false).address] = entry("old", false);
  });
  await store.release();
}

describe("agents state", () => {
  it("lists, shows, moves and removes entries without touching any remote", async () => {
    await seedState();
    const list = await runCli(["state", "list"], { cwd: dir, env });
    expect(list.code).toBe(0);
    expect(list.stdout).toBe(
      `state: file ${join(dir, "agents.state.json")} (project "${basename(dir)}", 2 resources)\n` +
        'provider_c.environments["old"]  env_old\nprovider_c.environments["shared"]  env_shared  (external)\n',
    );
    const show = await runCli(["state", "show", 'provider_c.environments["old"]'], { cwd: dir, env });
    expect(JSON.parse(show.stdout)).toMatchObject({ id: "env_old", external: false });
    const mv = await runCli(
      ["state", "mv", 'provider_c.environments["old"]', 'provider_c.environments["renamed"]'],
      {
        cwd: dir,
        env,
      },
    );
    expect(mv.code).toBe(0);
    const rm = await runCli(["state", "rm", 'provider_c.environments["shared"]'], { cwd: dir, env });
    expect(rm.stdout).toContain("the remote resource was not touched");
    const { state } = await readState(join(dir, "agents.state.json"));
    expect(Object.keys(state.resources)).toEqual(['provider_c.environments["renamed"]']);
    expect(state.resources['provider_c.environments["renamed"]']!.name).toBe("renamed");
  });

  it("names the problem for an unknown address, without a stack trace", async () => {
    await seedState();
    const result = await runCli(["state", "rm", 'provider_c.agents["nope"]'], { cwd: dir, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: provider_c\.agents\["nope"\] is not in state \(state holds: /);
    expect(result.stderr).not.toMatch(/\s+at .+\.js:\d+/);
  });
});

describe("the state lock", () => {
  it("a second run fails at once naming the holder; force-unlock releases it", async () => {
    const holder = await openStateFile(join(dir, "agents.state.json"), "agents apply");
    // A run that waited for the lock would be killed by the deadline (code null), not exit 1.
    const blocked = await runCli(["plan"], { cwd: dir, env, timeoutMs: 20_000 });
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain('state is locked by "agents apply"');
    expect(blocked.stderr).toContain(`pid ${process.pid}`);
    expect(blocked.stderr).toContain(`agents force-unlock ${holder.lock.id}`);
    const wrong = await runCli(["force-unlock", "not-the-id"], { cwd: dir, env });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("lock id mismatch");
    const unlocked = await runCli(["force-unlock", holder.lock.id], { cwd: dir, env });
    expect(unlocked.code).toBe(0);
    expect(unlocked.stdout).toContain('held by "agents apply"');
    const list = await runCli(["state", "rm", 'provider_c.environments["x"]'], { cwd: dir, env });
    expect(list.stderr).not.toContain("locked");
  });
});
