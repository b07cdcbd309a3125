// `agents session send` through the CLI's own program, in-process (e2e/cli-here.ts), on the
// provider_c simulator: a refused stream open (529 naming a wait) is said on stderr as every
// call's pause is, once, and the reply still comes; a refusal that outlasts every sending ends the
// command with one error that names the provider and what to do, with no reconnect behind it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apply, createSession, loadProject } from "../../../src/index.js";
import { DEFAULT_RETRY_POLICY } from "../../../src/providers/http.js";
import { runCliHere } from "../../e2e/cli-here.js";
import { OTHER_PROJECT_YAML } from "../../engine/sessions-project.js";

const KEY = "sim-provider-c-key";
const STREAM = "/events/stream$";
let sim: RunningSim;
let dir: string;
let env: Record<string, string>;
let session: string;

beforeAll(async () => {
  sim = await startSim("provider_c", { quiet: true });
  dir = mkdtempSync(join(tmpdir(), "agents-session-cli-"));
  writeFileSync(join(dir, "agents.yaml"), OTHER_PROJECT_YAML);
  env = { C_API_KEY: KEY, C_BASE_URL: sim.url, AGENTS_STATE_KEY: "session-cli-test" };
  const project = await loadProject({ file: join(dir, "agents.yaml"), env });
  const outcome = await apply({ project, env, confirm: async () => true });
  expect(outcome.result?.ok).toBe(true);
  session = (await createSession({ project, env }, "talk-c")).id;
});
afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The stream opens the simulator refused since `from` (its request log). */
const refusedOpens = (from: number) =>
  sim.log.since(from).filter((e) => e.path.includes("/events/stream") && e.status === 529);

describe("agents session send, when the provider refuses the stream open", () => {
  it("says the pause on stderr once, then prints the reply", async () => {
    sim.faults.set({
      rules: [
        {
          method: "GET",
          path: STREAM,
          nth: 1,
          action: { type: "status", status: 529, headers: { "retry-after-ms": "20", "retry-after": "1" } },
        },
      ],
    });
    const from = sim.log.last;
    const result = await runCliHere(["session", "send", session, "hello"], { cwd: dir, env });
    expect(result.stderr).toBe("provider_c: 529 (overloaded), resuming in 1 s\n");
    expect(result.stdout).toContain("(simulated) received: hello");
    expect(result.code).toBe(0);
    expect(refusedOpens(from)).toHaveLength(1);
  });

  it("ends in one error naming the provider and what to do once the refusals are spent", async () => {
    sim.faults.set({
      rules: [
        {
          method: "GET",
          path: STREAM,
          repeat: true,
          nth: 1,
          action: { type: "status", status: 529, headers: { "retry-after-ms": "2" } },
        },
      ],
    });
    const from = sim.log.last;
    const result = await runCliHere(["session", "send", session, "hello"], { cwd: dir, env });
    const attempts = DEFAULT_RETRY_POLICY.maxRefusals + 1;
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^error: provider_c GET /sessions/${session}/events/stream: 529 overloaded_error: .*; provider_c was overloaded and refused all ${attempts} attempts: try again in a few minutes$`,
      ),
    );
    expect(lines.slice(0, -1).every((l) => l === "provider_c: 529 (overloaded), resuming in 1 s")).toBe(true);
    expect(result.stderr).not.toContain(KEY);
    expect(result.code).toBe(1);
    // No reconnect after the last refusal: the stream was opened exactly as often as the client allows.
    expect(refusedOpens(from)).toHaveLength(attempts);
    sim.faults.clear();
  });
});
