// A plan that cannot read the remote never says it matches (issue 10), for the failures that the
// HTTP client retries first: each read of one agent fails on every attempt (5xx, connection reset)
// or the provider is unreachable, and the plan ends incomplete (exit 1) naming the resource, and
// apply refuses to change anything. In-process with the real retry policy and its waits skipped
// (the waits themselves are test/providers/http.test.ts's); the spawned CLI's exit codes and stderr
// for the same refusal are test/e2e/refresh-failures.test.ts's (the 401 row).
import { promises as fs } from "node:fs";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { editConfig, makeProject, setFaults } from "../e2e/project.js";
import { type InProcessProject, inProcessProject } from "./in-process.js";

let c: RunningSim;
let d: RunningSim;
let dir: string;
let agents: InProcessProject;

beforeAll(async () => {
  c = await startSim("provider_c", { quiet: true });
  d = await startSim("provider_d", { quiet: true });
  dir = await makeProject({ c, d }, "agents-refresh-");
  agents = inProcessProject(dir, { AGENTS_STATE_KEY: "e2e-state-key" }, { http: { sleep: async () => {} } });
  const apply = await agents.apply();
  expect({ code: apply.code, error: apply.error }).toEqual({ code: 0, error: "" });
  expect((await agents.plan()).code).toBe(0);
});
afterAll(async () => {
  if (dir) {
    await agents.destroy();
    await fs.rm(dir, { recursive: true, force: true });
  }
  await Promise.all([c?.close(), d?.close()]);
});

/** The plan is incomplete and names the agent; apply then changes nothing. */
async function expectIncompleteAndRefused() {
  const plan = await agents.plan();
  expect(plan.code).toBe(1);
  expect(plan.text).not.toContain("No changes");
  expect(plan.text).not.toContain("match the configuration");
  expect(plan.text).toContain("the plan is incomplete");
  expect(plan.text).toMatch(/^ {2}provider_c\.agents\["writer-c"\]: /m);
  return plan;
}

describe("a refresh failure on an applied project, after the client's retries", () => {
  // One row per failure: each read of one agent fails on every attempt (retries included).
  const FAILURES: Array<[string, unknown]> = [
    ["503", { type: "status", status: 503 }],
    ["connection reset", { type: "reset" }],
  ];
  it.each(FAILURES)(
    "ends non-zero, naming the resource, on %s; apply changes nothing",
    async (_label, action) => {
      await setFaults(c, { rules: [{ method: "GET", path: "/agents/[^/]+$", action }] });
      try {
        await expectIncompleteAndRefused();
        const apply = await agents.apply();
        expect(apply.code).toBe(1);
        expect(apply.error).toContain("nothing was changed");
      } finally {
        await setFaults(c, {});
      }
      expect((await agents.plan()).code).toBe(0);
    },
  );

  it("ends non-zero when the provider is unreachable", async () => {
    await editConfig(dir, "base_url: ${C_BASE_URL}", "base_url: http://127.0.0.1:9/v1");
    try {
      await expectIncompleteAndRefused();
    } finally {
      await editConfig(dir, "base_url: http://127.0.0.1:9/v1", "base_url: ${C_BASE_URL}");
    }
    expect((await agents.plan()).code).toBe(0);
  });
});
