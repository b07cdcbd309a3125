import { describe, expect, it } from "vitest";
import { renderAction, renderChange, renderPlan } from "../../src/plan/render.js";
import type { ActionType, FieldChange, Plan, PlannedAction } from "../../src/plan/types.js";

const action = (type: ActionType, extra: Partial<PlannedAction> = {}): PlannedAction => ({
  address: 'provider_c.agents["writer"]',
  kind: "agents",
  name: "writer",
  provider: "provider_c",
  action: type,
  reason: "because",
  changes: [],
  dependsOn: [],
  warnings: [],
  ...extra,
});

const plan = (actions: PlannedAction[], operation: Plan["operation"] = "apply"): Plan => ({
  formatVersion: 1,
  createdAt: "2026-01-01T00:00:00.000Z",
  operation,
  state: { lineage: "l", serial: 1 },
  configHash: "sha256:x",
  scope: {},
  actions,
  summary: Object.fromEntries(
    (["create", "update", "replace", "delete", "adopt", "read", "noop"] as ActionType[]).map((t) => [
      t,
      actions.filter((a) => a.action === t).length,
    ]),
  ) as Plan["summary"],
  warnings: [],
  refresh: { reads: 0, failed: 0 },
});

describe("plan rendering: one symbol per action", () => {
  it.each([
    ["create", "  +"],
    ["update", "  ~"],
    ["replace", "-/+"],
    ["delete", "  -"],
    ["adopt", " <~"],
    ["read", " <="],
  ] as const)("%s is shown as %s with its reason", (type, symbol) => {
    expect(renderAction(action(type, { remoteId: "agent_1" }))[0]).toBe(
      `${symbol} provider_c.agents["writer"] (agent_1): ${type}, because`,
    );
  });

  it("a replacement that creates the new object first is shown as +/-, as Terraform shows it", () => {
    expect(renderAction(action("replace", { remoteId: "agent_1", createBeforeDestroy: true }))[0]).toBe(
      '+/- provider_c.agents["writer"] (agent_1): replace, because',
    );
  });
});

describe("field changes", () => {
  const change = (c: Partial<FieldChange>): FieldChange => ({
    path: "instructions",
    sensitive: false,
    forcesReplacement: false,
    source: "config",
    ...c,
  });
  it.each([
    ["changed", change({ before: "a", after: "b" }), '~ instructions: "a" → "b"'],
    ["added", change({ after: "b" }), '+ instructions: "b"'],
    ["removed", change({ before: "a" }), '- instructions: "a"'],
    ["secret", change({ path: "token", sensitive: true }), "~ token: (sensitive)"],
    [
      "drift",
      change({ before: "x", after: "b", source: "drift" }),
      '~ instructions: "x" → "b"  (changed outside agents)',
    ],
    [
      "forcing",
      change({ path: "model", before: "m1", after: "m2", forcesReplacement: true }),
      '~ model: "m1" → "m2"  # forces replacement',
    ],
  ])("%s", (_label, input, expected) => {
    expect(renderChange(input)).toBe(expected);
  });
  it("truncates long values", () => {
    expect(renderChange(change({ before: "x", after: "y".repeat(200) }))).toMatch(/…$/);
  });
});

describe("whole plans", () => {
  it("says so when nothing changes, and hides no-ops", () => {
    expect(renderPlan(plan([action("noop")]))).toBe(
      "No changes. The remote resources match the configuration.\n",
    );
  });
  it("summarizes counts", () => {
    const text = renderPlan(plan([action("create"), action("update"), action("delete"), action("noop")]));
    expect(text).toContain("Plan (apply): 1 to create, 1 to update, 0 to replace, 1 to delete.");
    const destroy = renderPlan(plan([action("delete")], "destroy"));
    expect(destroy).toContain("Plan (destroy): 0 to create, 0 to update, 0 to replace, 1 to destroy.");
  });
});
