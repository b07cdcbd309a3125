// `agents run` through the real CLI: a native deployment run on the provider_c simulator and the
// session an emulated provider_d deployment sends. The apply that sets them up runs the same command
// in the test's process (./cli-here.ts): it is not what this file is about, and a spawned CLI costs
// about a second on two cores.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./cli.js";
import { runCliHere } from "./cli-here.js";
import { liveObjects, makeProject, requestLog, simState } from "./project.js";

let c: RunningSim;
let d: RunningSim;
let dir: string;
const env = { AGENTS_STATE_KEY: "e2e-state-key" };
const cli = (...args: string[]) => runCli(args, { cwd: dir, env });

type Dump = Record<string, Array<Record<string, unknown>> | undefined>;

beforeAll(async () => {
  c = await startSim("provider_c", { quiet: true });
  d = await startSim("provider_d", { quiet: true });
  dir = await makeProject({ c, d }, "agents-e2e-run-");
});
afterAll(async () => {
  await Promise.all([c?.close(), d?.close()]);
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

async function stateEntry(address: string): Promise<{ id: string }> {
  const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8")) as {
    resources: Record<string, { id: string }>;
  };
  const entry = state.resources[address];
  if (!entry) throw new Error(`${address} is not in state`);
  return entry;
}

describe("agents run", () => {
  it("refuses a deployment that is declared but not applied, calling nothing", async () => {
    const result = await cli("run", "nightly-c");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error: provider_c.deployments["nightly-c"] is declared but not applied yet; run agents apply first, then agents run\n',
    );
    expect(await requestLog(c)).toEqual([]);
  });

  it("starts a native provider_c run by name and prints its run and session", async () => {
    const apply = await runCliHere(["apply", "-y"], { cwd: dir, env });
    expect(apply.code).toBe(0);
    const deployment = await stateEntry('provider_c.deployments["nightly-c"]');
    const result = await cli("run", "nightly-c");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const match = /run: +(\S+)\n {2}session: +(\S+)/.exec(result.stdout);
    expect(result.stdout).toContain('Started provider_c.deployments["nightly-c"].');
    const [, runId, sessionId] = match ?? [];
    const dump = (await simState(c)) as Dump;
    const runs = (dump.deployment_runs ?? []).filter((r) => r.id === runId);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ deployment_id: deployment.id, session_id: sessionId, error: null });
    const sessions = (dump.sessions ?? []).filter((s) => s.id === sessionId);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ deployment_id: deployment.id });
  });

  it("sends the session of an emulated provider_d deployment, addressed in full, as JSON", async () => {
    const before = liveObjects(await simState(d)).filter((o) => o.type === "sessions");
    expect(before).toEqual([]);
    const agent = await stateEntry('provider_d.agents["writer-d"]');
    const result = await cli("run", 'provider_d.deployments["digest-d"]', "--json");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const run = JSON.parse(result.stdout) as Record<string, string>;
    expect(run).toMatchObject({ address: 'provider_d.deployments["digest-d"]', provider: "provider_d" });
    expect(run.run_id).toBeUndefined();
    const sessions = ((await simState(d)) as Dump).sessions ?? [];
    expect(sessions.map((s) => s.id)).toEqual([run.session_id]);
    expect(JSON.stringify(sessions[0])).toContain(agent.id);
    const posted = (await requestLog(d)).filter((r) => r.method === "POST").map((r) => r.path);
    expect(posted.filter((path) => path.endsWith(`/sessions/${run.session_id}/events`))).toHaveLength(1);
  });

  it.each([
    [
      "an unknown name",
      ["run", "nightly"],
      /^error: no deployment nightly in \S+agents\.yaml or its state \(applied deployments: provider_c\.deployments\["nightly-c"\], provider_d\.deployments\["digest-d"\]\)\n$/,
    ],
    [
      "a resource that is not a deployment",
      ["run", 'provider_c.agents["writer-c"]'],
      /^error: provider_c\.agents\["writer-c"\] is not a deployment; agents run starts deployments only\n$/,
    ],
  ])("refuses %s with one line and exit 1", async (_label, args, message) => {
    const result = await cli(...args);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe("");
  });
});
