import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BoundResource } from "../../src/plan/bind.js";
import { declaredOrder, orderActions, propagateNewIds } from "../../src/plan/dependents.js";
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

describe("orderActions with the declared order worked out before the reads", () => {
  // A declared resource i may depend on any other (an edge to a later one only where it keeps the
  // graph acyclic: i > j), names come in any order, and removals (deletes) sit beside them.
  const project = fc
    .record({
      names: fc.uniqueArray(fc.stringMatching(/^[a-zA-Z0-9_-]{1,4}$/), { minLength: 1, maxLength: 12 }),
      edges: fc.array(fc.tuple(fc.nat(11), fc.nat(11)), { maxLength: 20 }),
      removed: fc.uniqueArray(fc.stringMatching(/^z[a-z]{1,3}$/), { maxLength: 3 }),
      shuffle: fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
    })
    .map(({ names, edges, removed, shuffle }) => {
      const address = (n: string) => `provider_a.agents["${n}"]`;
      const declared = names.map((n, i) => ({
        address: address(n),
        dependsOn: edges
          .filter(([from, to]) => from % names.length === i && to % names.length < i)
          .map(([, to]) => address(names[to % names.length]!)),
      }));
      const order = declared.map((_, i) => i).sort((x, y) => (shuffle[x] ?? 0) - (shuffle[y] ?? 0));
      const actions = [
        ...order.map((i) => ({
          ...action(declared[i]!.address, "agents", "noop"),
          dependsOn: declared[i]!.dependsOn,
        })),
        ...removed.map((n) => action(address(n), "agents", "delete")),
      ];
      return { declared: order.map((i) => declared[i]!), actions };
    });

  it("gives exactly the order worked out from the actions themselves", () => {
    fc.assert(
      fc.property(project, ({ declared, actions }) => {
        const expected = orderActions(actions).map((a) => a.address);
        expect(orderActions(actions, declaredOrder(declared)).map((a) => a.address)).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });

  it("falls back to the actions' own order when they are not the declared resources'", () => {
    const a = action('provider_a.agents["a"]', "agents", "noop");
    const b = action('provider_a.agents["b"]', "agents", "noop", [a.address]);
    const stale = declaredOrder([{ address: 'provider_a.agents["x"]', dependsOn: [] }, a]);
    expect(orderActions([b, a], stale).map((x) => x.address)).toEqual([a.address, b.address]);
  });
});
