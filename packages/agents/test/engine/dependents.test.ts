import { describe, expect, it } from "vitest";
import type { BoundResource } from "../../src/plan/bind.js";
import { propagateNewIds } from "../../src/plan/dependents.js";
import type { ActionType, PlannedAction } from "../../src/plan/types.js";
import type { KindHandler } from "../../src/providers/types.js";
import { emptyState } from "../../src/state/backend.js";
import type { ResourceState } from "../../src/state/types.js";

// What one dependency's action makes of a dependent that is itself unchanged (noop). The plan of
// only noops is the common case the propagation skips: each row where something must follow
// would be lost if that shortcut missed the action that starts it.
const skill = 'provider_a.skills["tool"]';
const agent = 'provider_a.agents["writer"]';
const handler = { update: async () => ({}), followsUpdatesOf: ["skills"] } as unknown as KindHandler;

function action(address: string, kind: "skills" | "agents", act: ActionType, dependsOn: string[] = []) {
  return {
    address,
    kind,
    name: address.slice(address.indexOf('"') + 1, -2),
    provider: "provider_a",
    action: act,
    reason: "up to date",
    changes: [],
    dependsOn,
    warnings: [],
  } as PlannedAction;
}

function recorded(address: string, kind: "skills" | "agents"): ResourceState {
  return {
    address,
    kind,
    name: "x",
    provider: "provider_a",
    id: `id-${kind}`,
    external: false,
    spec: {},
    version: 3,
    dependsOn: [],
    updatedAt: "2026-01-01T00:00:00.000Z",
  };
}

describe("propagateNewIds: what a dependency's action makes of an unchanged dependent", () => {
  it.each([
    ["noop", "noop", undefined],
    ["read", "noop", undefined],
    [
      "update (a new version the dependent pins)",
      "update",
      `${skill} gets a new version, which this resource pins`,
    ],
    ["replace (a new id)", "update", `${skill} gets a new id, which this resource must reference`],
    [
      "create of a recorded one gone remotely (a new id)",
      "update",
      `${skill} gets a new id, which this resource must reference`,
    ],
  ] as const)("dependency %s → dependent %s", (dependency, expected, reason) => {
    const state = emptyState();
    state.resources[skill] = recorded(skill, "skills");
    state.resources[agent] = recorded(agent, "agents");
    const act = dependency.split(" ")[0] as ActionType;
    const actions = [action(skill, "skills", act), action(agent, "agents", "noop", [skill])];
    const bound = new Map(actions.map((a) => [a.address, { handler } as unknown as BoundResource]));
    propagateNewIds(actions, state, bound);
    expect(actions[1]!.action).toBe(expected);
    expect(actions[1]!.reason).toBe(reason ?? "up to date");
  });
});
