import { describe, expect, it } from "vitest";
import { removedAfterAll, simState, simulatorForFile } from "../e2e/project.js";
import { inProcessProject } from "./in-process.js";
import { writeSimProject } from "./sim-project.js";

const KEY = "sim-provider-b-key";
type Obj = Record<string, unknown>;
const b = simulatorForFile("provider_b");
const dirs = removedAfterAll();

async function createEnvironment(api: "cloud" | "forward", name: string): Promise<string> {
  const response = await fetch(`${b.origin}/api/v1/${api}/environments`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ name, config: { type: "cloud" } }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

async function project(environmentId: string, agent: string, alsoManaged = false) {
  const body = `environments:
  shared:
    environment_id: ${environmentId}
    config:
      type: cloud
agents:
  ${agent}:
    model: auto
    instructions: Help.
    environment: shared
    delivery:
      provider_b:
        type: forward
${
  alsoManaged
    ? `  ${agent}-managed:
    model: auto
    instructions: Help.
    environment: shared
`
    : ""
}`;
  const dir = await writeSimProject("provider_b", b, body, { dirs, prefix: "agents-b-ext-env-" });
  return inProcessProject(dir, { AGENTS_STATE_KEY: "b-ext-env" });
}

describe("a Forward agent on an external environment of either API", () => {
  it.each([
    ["Managed", "cloud", "managed-desk", false],
    ["Forward", "forward", "forward-desk", false],
    // Rule 3 (one API domain per declaration) binds locally managed environments only.
    ["Managed, shared with a Managed agent,", "cloud", "shared-desk", true],
  ] as const)("an environment made through the %s API", async (_label, api, agent, alsoManaged) => {
    const envId = await createEnvironment(api, `${agent}-env`);
    const agents = await project(envId, agent, alsoManaged);
    const validate = await agents.validate();
    expect(validate.code, validate.text + validate.error).toBe(0);
    const plan = await agents.plan();
    expect(plan.code, plan.text + plan.error).toBe(2);
    const apply = await agents.apply();
    expect(apply.code, apply.text + apply.error).toBe(0);
    const templates = ((await simState(b)) as Record<string, Obj[]>).templates ?? [];
    expect(templates.find((t) => t.name === agent)).toMatchObject({ environment_id: envId });
    const again = await agents.plan();
    expect(again.code, again.text + again.error).toBe(0);
    expect(again.text).toContain("No changes.");
    const destroy = await agents.destroy();
    expect(destroy.code, destroy.text + destroy.error).toBe(0);
    const env = ((await simState(b)) as Record<string, Obj[]>).environments!.find((e) => e.id === envId);
    expect(env?.archived_at ?? null).toBeNull();
  });
});
