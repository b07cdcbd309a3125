import { describe, expect, it } from "vitest";
import { renderAction, renderChange, renderPlan } from "../../src/plan/render.js";
import {
  ACTION_TYPES,
  type ActionType,
  type FieldChange,
  type Plan,
  type PlannedAction,
} from "../../src/plan/types.js";

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
    ACTION_TYPES.map((t) => [t, actions.filter((a) => a.action === t).length]),
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
    ["import", " <-"],
    ["forget", "  ."],
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

describe("moves (a `moved:` entry)", () => {
  const from = 'provider_c.agents["scribe"]';
  it.each([
    {
      row: "a move alone is shown as the move, and is a change",
      moved: action("noop", { previousAddress: from, reason: `moved from ${from}`, remoteId: "agent_1" }),
      line: ` -> provider_c.agents["writer"] (agent_1): move, moved from ${from}`,
    },
    {
      row: "a move with an update is shown as the update",
      moved: action("update", {
        previousAddress: from,
        reason: `moved from ${from}; 1 field`,
        remoteId: "agent_1",
      }),
      line: `  ~ provider_c.agents["writer"] (agent_1): update, moved from ${from}; 1 field`,
    },
  ])("$row", ({ moved, line }) => {
    const text = renderPlan(plan([moved]));
    expect(text).toContain(line);
    expect(text).toContain("1 to move.");
    expect(text).not.toContain("No changes");
  });

  it("import and forget are counted in the summary", () => {
    const text = renderPlan(plan([action("import"), action("forget", { address: "x" })]));
    expect(text).toContain("0 to delete, 1 to import, 1 to forget.");
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
