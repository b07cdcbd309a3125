// `agents session start` through the real CLI against the provider_b simulator: the session of a
// Managed agent carries its environment variables in the managed `KEY=VALUE;…` form and its
// repository as a `github_repository` mounted at the derived /data/workspace/<repo>. The apply that
// sets the session up runs in the test's process (./cli-here.ts), as it is not this file's subject.
import { promises as fs } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./cli.js";
import { runCliHere } from "./cli-here.js";
import { copyProject, requestLog, simState, simulatorForFile } from "./project.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/session-b", import.meta.url));
const SECRETS = {
  B_API_KEY: "sim-provider-b-key",
  FORGE_TOKEN: "forge-session-e2e-secret-1",
  API_TOKEN: "api-session-e2e-secret-2",
  GIT_TOKEN: "ghp-session-e2e-secret-3",
};

const b = simulatorForFile("provider_b");
let dir: string;
const env = { AGENTS_STATE_KEY: "session-e2e-key" };
const cli = (...args: string[]) => runCli(args, { cwd: dir, env });

type Dump = Record<string, Array<Record<string, unknown>> | undefined>;

beforeAll(async () => {
  dir = await copyProject(FIXTURE, { ...SECRETS, B_GATEWAY: b.url }, "agents-session-e2e-");
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

function expectNoSecret(text: string) {
  for (const key of ["FORGE_TOKEN", "API_TOKEN", "GIT_TOKEN"] as const)
    expect(text).not.toContain(SECRETS[key]);
}

describe("agents session start on provider_b", () => {
  it("refuses an agent that is declared but not applied, calling nothing", async () => {
    const result = await cli("session", "start", "coder-b");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error: provider_b.agents["coder-b"] is declared but not applied yet; run agents apply first, then agents session start\n',
    );
    expect((await requestLog(b)).filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("starts a session with the declared variables, repository and first message", async () => {
    const apply = await runCliHere(["apply", "-y"], { cwd: dir, env });
    expect(apply.stderr).toBe("");
    expect(apply.code).toBe(0);
    const result = await cli("session", "start", "coder-b", "--message", "Start with the parser.", "--json");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expectNoSecret(result.stdout);
    const started = JSON.parse(result.stdout) as Record<string, string>;
    const dump = (await simState(b)) as Dump;
    const agent = (dump.agents ?? []).find((a) => a.name === "coder-b");
    expect(started).toMatchObject({ address: 'provider_b.agents["coder-b"]', agent_id: agent?.id });
    const sessions = (dump.sessions ?? []).filter((s) => s.id === started.session_id);
    expect(sessions).toHaveLength(1);
    const session = sessions[0]!;
    // The simulator parses the `KEY=VALUE;…` string (an object is a 400) and keeps the names only.
    expect(session._environment_variable_names).toEqual(["LOG_LEVEL", "API_TOKEN"]);
    const environment = (dump.environments ?? []).find((e) => e.name === "sandbox-b");
    expect(session.environment_id).toBe(environment?.id);
    const resources = session.resources as Array<Record<string, unknown>>;
    expect(resources).toContainEqual(
      expect.objectContaining({
        type: "github_repository",
        url: "https://github.com/example/widgets.git",
        mount_path: "/data/workspace/widgets",
        checkout: { type: "branch", name: "main" },
      }),
    );
    const store = (dump.memory_stores ?? []).find(
      (m) => m.name === "notes-b" || m.description === "House style",
    );
    expect(resources).toContainEqual(
      expect.objectContaining({ type: "memory_store", memory_store_id: store?.id }),
    );
    expect(session.vault_ids).toHaveLength(1);
    expect(started.event_id).toEqual(expect.any(String));
    const posted = (await requestLog(b)).filter((r) => r.method === "POST").map((r) => r.path);
    expect(posted.filter((p) => p.endsWith(`/sessions/${started.session_id}/events`))).toHaveLength(1);
    expectNoSecret(JSON.stringify(dump.sessions));
  });

  it.each([
    [
      "a resource that is not an agent",
      ["session", "start", 'provider_b.vaults["keys-b"]'],
      /^error: provider_b\.vaults\["keys-b"\] is not an agent; agents session start starts agent sessions only\n$/,
    ],
    [
      "an unknown agent",
      ["session", "start", "coder"],
      /^error: no agent coder in \S+agents\.yaml or its state \(applied agents: provider_b\.agents\["coder-b"\]\)\n$/,
    ],
  ])("refuses %s with one line and exit 1", async (_label, args, message) => {
    const result = await cli(...args);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe("");
  });
});
