// Whatever a provider refuses at apply that validate can know, validate says first (issue 23,
// item 2). Each provider's definition lists its refusals (providers/<p>/refusals.ts, through the
// catalog); for every listed refusal this proves both halves on one declaration:
//   1. apply: the provider's handler, driven against its simulator over real sockets with the
//      validator bypassed, refuses it with the listed message;
//   2. validate: the same declaration, as agents.yaml, is reported with the listed rule code.
// It also checks that every refusal has a trigger here and that docs/providers.md shows the
// table this list renders, so neither can drift.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIAGNOSTIC_CODES } from "../../src/config/diagnostics.js";
import { PROVIDER_NAMES, PROVIDERS } from "../../src/providers/catalog.js";
import type { ApplyRefusal, Spec } from "../../src/providers/types.js";
import { type Harness, makeHarness } from "../providers-ab/harness.js";
import { cfg, load, render } from "./helpers.js";
import { refusalTable } from "./refusal-table.js";
import { agent, forwardDelivery } from "./rule-rows.js";

interface Trigger {
  /** The declaration as agents.yaml (validate's half). */
  yaml: string;
  /** Creates what the refused resource depends on, then makes the call apply would make. */
  apply(h: Harness): Promise<unknown>;
}

const A_BLOCK = { api_key: "sim-provider-a-key", workspace_id: "llm-test" };
const B_BLOCK = { api_key: "sim-provider-b-key" };
const userMessage = { type: "user.message", content: "Go." };
const outcome = { type: "user.define_outcome", description: "A report", rubric: "Has charts." };

const TRIGGERS: Record<string, Trigger> = {
  "provider_a.deployment_without_environment": {
    yaml: cfg(
      ["provider_a"],
      `agents:\n${agent("runner")}\ndeployments:\n  weekly:\n    agent: runner\n    initial_events:\n      - type: user.message\n        content: Go.`,
    ),
    async apply(h) {
      await h.create("agents", "runner", { model: "qwen-plus", instructions: "Run." });
      return h.handler("deployments").create(h.ctx("deployments", "weekly"), {
        agent: "runner",
        initial_events: [userMessage],
      });
    },
  },
  "provider_a.deployment_with_only_an_outcome": {
    yaml: cfg(
      ["provider_a"],
      `environments:\n  e:\n    config: {type: cloud}\nagents:\n${agent("runner")}\ndeployments:\n  weekly:\n    agent: runner\n    environment: e\n    initial_events:\n      - type: user.define_outcome\n        description: A report\n        rubric: Has charts.`,
    ),
    async apply(h) {
      await h.create("environments", "e", { config: { type: "cloud" } });
      await h.create("agents", "runner", { model: "qwen-plus", instructions: "Run." });
      return h.handler("deployments").create(h.ctx("deployments", "weekly"), {
        agent: "runner",
        environment: "e",
        initial_events: [outcome],
      });
    },
  },
  "provider_b.forward_template_without_environment": {
    yaml: cfg(["provider_b"], `agents:\n${agent("concierge", ...forwardDelivery)}`),
    apply: (h) =>
      h.handler("agents").create(h.ctx("agents", "concierge"), {
        model: "auto",
        instructions: "Help.",
        delivery: { provider_b: { type: "forward" } },
        derived: { domain: "forward", files: [] },
      }),
  },
  "provider_b.deployment_of_forward_agent": {
    yaml: cfg(
      ["provider_b"],
      `environments:\n  e:\n    config: {type: cloud}\nagents:\n${agent("concierge", ...forwardDelivery, "environment: e")}\ndeployments:\n  nightly:\n    agent: concierge\n    environment: e\n    initial_events:\n      - type: user.message\n        content: Go.`,
    ),
    async apply(h) {
      await h.create("environments", "e", { config: { type: "cloud" }, derived: { domain: "forward" } });
      await h.create("agents", "concierge", {
        model: "auto",
        instructions: "Help.",
        environment: "e",
        delivery: { provider_b: { type: "forward" } },
        derived: { domain: "forward", files: [] },
      });
      return h.handler("deployments").create(h.ctx("deployments", "nightly"), {
        agent: "concierge",
        environment: "e",
        initial_events: [userMessage],
      });
    },
  },
  "provider_b.managed_tool_config_on_managed_delivery": {
    yaml: cfg(
      ["provider_b"],
      `agents:\n${agent("helper", "managed_tool_config:", "  enabled_tools: [list_forward_schedules]")}`,
    ),
    apply: (h) =>
      h.handler("agents").create(h.ctx("agents", "helper"), {
        model: "auto",
        instructions: "Help.",
        managed_tool_config: { enabled_tools: ["list_forward_schedules"] },
        derived: { domain: "managed" },
      }),
  },
  "provider_b.forward_coordinator_with_agent_id": {
    yaml: cfg(
      ["provider_b"],
      `environments:\n  e:\n    config: {type: cloud}\nagents:\n${agent("lead", ...forwardDelivery, "environment: e", "multiagent:", "  type: coordinator", "  agents:", "    - agent_id: tmpl_elsewhere")}`,
    ),
    async apply(h) {
      await h.create("environments", "e", { config: { type: "cloud" }, derived: { domain: "forward" } });
      return h.handler("agents").create(h.ctx("agents", "lead"), {
        model: "auto",
        instructions: "Lead.",
        environment: "e",
        delivery: { provider_b: { type: "forward" } },
        multiagent: { type: "coordinator", agents: [{ agent_id: "tmpl_elsewhere" }] },
        derived: { domain: "forward", files: [] },
      });
    },
  },
  "provider_b.model_map_without_entry": {
    yaml: cfg(
      ["provider_b"],
      "agents:\n  helper:\n    model:\n      provider_c: claude-sonnet-4-5\n    instructions: Help.\n    provider: provider_b",
    ),
    apply: (h) =>
      h.handler("agents").create(h.ctx("agents", "helper"), {
        model: { provider_c: "claude-sonnet-4-5" },
        instructions: "Help.",
        derived: { domain: "managed" },
      } as Spec),
  },
};

const BLOCKS: Partial<Record<string, Record<string, string>>> = { provider_a: A_BLOCK, provider_b: B_BLOCK };
const ROWS = PROVIDER_NAMES.flatMap((p) => PROVIDERS[p].applyRefusals.map((r) => [p, r] as const));

const sims = new Map<string, RunningSim>();
beforeAll(async () => {
  for (const p of new Set(ROWS.map(([p]) => p))) sims.set(p, await startSim(p, { quiet: true }));
});
afterAll(async () => {
  await Promise.all([...sims.values()].map((s) => s.close()));
});

describe("every apply-time refusal a provider lists is foreseen by validate", () => {
  it("lists at least the refusals issue 23 names, each with a trigger here and a known rule", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(7);
    expect(ROWS.map(([, r]) => r.id).sort()).toEqual(Object.keys(TRIGGERS).sort());
    for (const [, r] of ROWS) expect(Object.keys(DIAGNOSTIC_CODES)).toContain(r.rule);
  });

  it.each(ROWS.map(([p, r]) => [r.id, p, r] as const))("%s", async (_id, provider, refusal: ApplyRefusal) => {
    const trigger = TRIGGERS[refusal.id]!;
    const sim = sims.get(provider)!;
    const h = await makeHarness(PROVIDERS[provider].adapter, BLOCKS[provider]!, sim.url);
    const refused = await trigger.apply(h).then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    expect(refused, "apply must refuse it").toContain(refusal.message);
    const validated = load(trigger.yaml);
    expect(
      validated.diagnostics.filter((d) => d.code === refusal.rule && d.severity === "error"),
      render(validated),
    ).not.toEqual([]);
  });

  it("docs/providers.md shows this table", () => {
    const docs = readFileSync(
      fileURLToPath(new URL("../../../../docs/providers.md", import.meta.url)),
      "utf8",
    );
    expect(docs).toContain(refusalTable());
  });
});
