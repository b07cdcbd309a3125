// The pure parts of plan/lifecycle.ts, one row per case: which change paths an ignore_changes
// path covers, what an update sends for ignored fields, and which deletions prevent_destroy stops.
import { describe, expect, it } from "vitest";
import { forceReplacements, keepIgnored, refuseProtected, underPattern } from "../../src/plan/lifecycle.js";
import type { DesiredResource, PlannedAction } from "../../src/plan/types.js";
import type { State } from "../../src/state/types.js";

describe("an ignore_changes path covers a change path", () => {
  it.each([
    ["instructions", "instructions", true],
    ["metadata", "metadata.team", true],
    ["metadata.team", "metadata.teams", false],
    ["metadata.agents.project", "metadata.agents.project", true],
    ["credentials.*.secret_name", "credentials[2].secret_name", true],
    ["credentials.0", "credentials[1].name", false],
    ["tools", "tools_extra", false],
  ] as const)("%s covers %s: %s", (pattern, path, covered) => {
    expect(underPattern(pattern, path)).toBe(covered);
  });
});

describe("what an update sends for ignored fields", () => {
  const declared = {
    description: "declared",
    metadata: { team: "a", keep: "x" },
    credentials: [{ name: "one", secret_value: "s3cret" }],
  };
  const remote = { description: "console", metadata: { team: "b" }, credentials: [{ name: "one" }] };
  it.each([
    { ignore: ["description"], sent: { ...declared, description: "console" } },
    { ignore: ["metadata.team"], sent: { ...declared, metadata: { team: "b", keep: "x" } } },
    { ignore: ["metadata.*"], sent: { ...declared, metadata: { team: "b", keep: "x" } } },
    // A secret is never read back: the declared value is sent.
    { ignore: ["credentials"], sent: declared },
    { ignore: ["credentials.*.secret_value"], sent: declared },
    { ignore: "all" as const, sent: declared },
  ])("ignore $ignore", ({ ignore, sent }) => {
    expect(keepIgnored(declared, remote, { ignoreChanges: ignore }, ["credentials.*.secret_value"])).toEqual(
      sent,
    );
  });
});

describe("prevent_destroy stops only what deletes a remote object", () => {
  const address = 'provider_c.agents["writer"]';
  const state = {
    resources: { [address]: { address, id: "agent_1", preventDestroy: true } },
  } as unknown as State;
  const action = (extra: Partial<PlannedAction>) =>
    ({ address, action: "delete", reason: "no longer declared in the config", ...extra }) as PlannedAction;
  it.each([
    { row: "a delete", action: action({}), refused: true },
    { row: "a replace", action: action({ action: "replace", reason: "forced" }), refused: true },
    { row: "an external released from state", action: action({ external: true }), refused: false },
    { row: "a kind the provider cannot delete, released", action: action({ remains: true }), refused: false },
    { row: "an update", action: action({ action: "update" }), refused: false },
    {
      row: "a removed: entry with destroy: false (forget)",
      action: action({ action: "forget" }),
      refused: false,
    },
  ])("$row: refused $refused", ({ action: planned, refused }) => {
    const run = () => refuseProtected([planned], [], state, "apply");
    if (refused) expect(run).toThrow(/lifecycle\.prevent_destroy/);
    else expect(run).not.toThrow();
  });

  it("a replacement a change forces says to undo the change; one --replace asked for, to leave out --replace", () => {
    const forcing = action({
      action: "replace",
      reason: "credentials cannot be changed in place (forces replacement)",
    });
    expect(() => refuseProtected([forcing], [], state, "apply")).toThrow(
      `${address}: the plan would replace (delete and re-create) it (credentials cannot be changed in place (forces replacement)).\n    To keep it: undo the change that forces the replacement.`,
    );
    expect(() => refuseProtected([{ ...forcing, forced: true }], [], state, "apply")).toThrow(
      "To keep it: leave out --replace for it.",
    );
  });

  it("the declaration decides while there is one: prevent_destroy: false lets it go", () => {
    const declared = [{ address, lifecycle: { preventDestroy: false } }] as DesiredResource[];
    expect(() => refuseProtected([action({ action: "replace" })], declared, state, "apply")).not.toThrow();
  });
});

describe("--replace and the run's scope", () => {
  it("an address --target leaves out is refused, not silently dropped", () => {
    const address = 'provider_c.agents["writer"]';
    expect(() => forceReplacements([], [address], new Map(), [])).toThrow(
      `--replace ${address}: outside this run's scope (--provider/--target), so it cannot be replaced; add it with --target '${address}'`,
    );
  });
});
