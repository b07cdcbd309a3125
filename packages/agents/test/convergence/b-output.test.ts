import { describe, expect, it } from "vitest";
import { editConfig, removedAfterAll, simState, simulatorForFile } from "../e2e/project.js";
import { inProcessProject } from "./in-process.js";
import { forwardConcierge, writeSimProject } from "./sim-project.js";

const KEY = "sim-provider-b-key";
type Obj = Record<string, any>;
const b = simulatorForFile("provider_b");
const dump = async () => (await simState(b)) as Record<string, Obj[]>;

const dirs = removedAfterAll();
async function project(body: string) {
  const dir = await writeSimProject("provider_b", b, body, { dirs, prefix: "agents-b-output-" });
  return { dir, agents: inProcessProject(dir, { AGENTS_STATE_KEY: "b-output" }) };
}

describe("provider_b: the plan shows what apply does", () => {
  it("removing managed_tool_config plans the tools' removal and apply turns them off", async () => {
    const { dir, agents } = await project(
      forwardConcierge(
        "managed_tool_config:",
        "  enabled_tools: [create_forward_schedule, list_forward_schedules]",
      ),
    );
    expect((await agents.apply()).code).toBe(0);
    await editConfig(
      dir,
      "    managed_tool_config:\n      enabled_tools: [create_forward_schedule, list_forward_schedules]\n",
      "",
    );
    const plan = await agents.plan();
    expect(plan.code, plan.text + plan.error).toBe(2);
    expect(plan.text).toContain('- managed_tool_config.enabled_tools[0]: "create_forward_schedule"');
    const apply = await agents.apply();
    expect(apply.code, apply.text + apply.error).toBe(0);
    const template = (await dump()).templates!.find((t) => t.name === "concierge")!;
    expect(template.managed_tool_config).toEqual({ enabled_tools: [] });
    const again = await agents.plan();
    expect(again.code, again.text).toBe(0);
    // Tools enabled outside agents while the file declares none are not agents' to manage.
    await fetch(`${b.origin}/api/v1/forward/templates/${template.id}`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ managed_tool_config: { enabled_tools: ["list_forward_schedules"] } }),
    });
    expect((await agents.plan()).code).toBe(0);
    expect((await agents.destroy()).code).toBe(0);
  });

  it("a deployment's tunnel, which the API never takes, is no change at all", async () => {
    const { dir, agents } = await project(`tunnels:
  primary:
    tunnel_id: tnl_sim_primary
  secondary:
    tunnel_id: tnl_sim_secondary
environments:
  e:
    config:
      type: cloud
agents:
  runner:
    model: auto
    instructions: Run.
deployments:
  nightly:
    agent: runner
    environment: e
    tunnel: primary
    initial_events:
      - type: user.message
        content: Go.
`);
    const first = await agents.apply();
    expect(first.code, first.text + first.error).toBe(0);
    const deployment = (await dump()).deployments!.find((d) => d.name === "nightly")!;
    expect(deployment).not.toHaveProperty("tunnel_id");
    await editConfig(dir, "    tunnel: primary\n", "    tunnel: secondary\n");
    const plan = await agents.plan();
    expect(plan.code, plan.text + plan.error).toBe(0);
    // The warning says the tunnel is dropped; no plan line shows it as a change.
    expect(plan.text).toContain("takes no tunnel; it is dropped");
    expect(plan.text).not.toMatch(/^\s+[~+-] tunnel/m);
    expect(plan.text).toContain("No changes.");
    await editConfig(dir, "    tunnel: secondary\n", "");
    expect((await agents.plan()).code).toBe(0);
    expect((await agents.destroy()).code).toBe(0);
  });

  it("a memory seed's diff shows its text, for a file edit and for a remote edit", async () => {
    const { dir, agents } = await project(`memory_stores:
  policies:
    description: Support policies
    entries:
      - key: refunds.md
        content: Refunds within 30 days.
`);
    expect((await agents.apply()).code).toBe(0);
    await editConfig(dir, "Refunds within 30 days.", "Refunds within 14 days.");
    const plan = await agents.plan();
    expect(plan.code, plan.text + plan.error).toBe(2);
    expect(plan.text).toContain('"Refunds within 30 days." → "Refunds within 14 days."');
    expect(plan.text).not.toMatch(/[0-9a-f]{64}/);
    expect((await agents.apply()).code).toBe(0);
    expect((await agents.plan()).code).toBe(0);
    // An agent (or a person) rewrites the seed: the drift line shows what the remote now holds.
    const store = (await dump()).memory_stores!.find((m) => m.name === "policies")!;
    const memory = (await dump()).memories!.find(
      (m) => m.memory_store_id === store.id || m.store_id === store.id,
    )!;
    const edit = await fetch(`${b.url}/memory_stores/${store.id}/memories/${memory.id}`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ content: "Refunds never." }),
    });
    expect(edit.status).toBe(200);
    const drift = await agents.plan();
    expect(drift.code, drift.text + drift.error).toBe(2);
    expect(drift.text).toContain('"Refunds never." → "Refunds within 14 days."  (changed outside agents)');
    expect((await agents.destroy()).code).toBe(0);
  });
});
