// What a dependency's new id or new version does to the resources that reference it, and the
// order a plan lists its actions in: both follow the dependency graph.
import { acyclicOrder, type Edges } from "../model/graph.js";
import type { State } from "../state/types.js";
import type { BoundResource } from "./bind.js";
import { replacesFirst } from "./lifecycle.js";
import { compareText } from "./order.js";
import { isRemoval, type PlannedAction } from "./types.js";

/**
 * A resource whose dependency gets a new remote id (replaced, or recreated after it vanished)
 * must be updated to reference the new id even though its own declaration did not change.
 */
export function propagateNewIds(
  actions: PlannedAction[],
  state: State,
  bound: Map<string, BoundResource>,
  declared?: DeclaredOrder,
): void {
  // Only an update (a new version) or a replace or re-create (a new id) changes what its
  // dependents must do, and what they then become can only spread from one of those: a plan with
  // none of them has nothing to follow.
  if (!actions.some((a) => a.action === "update" || a.action === "replace" || a.action === "create")) return;
  const byAddress = new Map(actions.map((a) => [a.address, a]));
  const renewed = (a: PlannedAction | undefined) =>
    a !== undefined &&
    (a.action === "replace" || (a.action === "create" && state.resources[a.address] !== undefined));
  for (const action of forwardOrder(
    actions.filter((a) => !isRemoval(a)),
    declared,
  )) {
    if (action.external) continue;
    // Every action but a delete is a declared resource's.
    const { handler, resource } = bound.get(action.address)!;
    // A dependency updated in place gets a new version this resource pins: follow it.
    const versioned = action.dependsOn.filter((dep) => {
      const d = byAddress.get(dep);
      return d?.action === "update" && (handler.followsUpdatesOf ?? []).includes(d.kind);
    });
    if (versioned.length > 0 && handler.update && (action.action === "noop" || action.action === "update")) {
      for (const dep of versioned) {
        const prior = state.resources[dep]?.extra?.version ?? state.resources[dep]?.version;
        action.changes.push({
          path: `${byAddress.get(dep)!.kind}.${byAddress.get(dep)!.name}.version`,
          before: prior,
          after: "(new version, known after apply)",
          sensitive: false,
          forcesReplacement: false,
          source: "config",
        });
      }
      if (action.action === "noop") {
        const why = `${versioned.join(", ")} ${versioned.length === 1 ? "gets" : "get"} a new version, which this resource pins`;
        Object.assign(action, { action: "update", reason: why });
      }
    }
    if (action.action !== "noop") continue;
    const changed = action.dependsOn.filter((dep) => renewed(byAddress.get(dep)));
    if (changed.length === 0) continue;
    const why = `${changed.join(", ")} ${changed.length === 1 ? "gets" : "get"} a new id, which this resource must reference`;
    if (handler.update) Object.assign(action, { action: "update", reason: why });
    else
      Object.assign(action, {
        action: "replace",
        createBeforeDestroy: replacesFirst(handler, resource.lifecycle),
        reason: `${why} (${action.kind} cannot be updated in place)`,
      });
  }
}

/** Stable display order: forward actions in dependency order, then deletes in reverse. */
export function orderActions(actions: PlannedAction[], declared?: DeclaredOrder): PlannedAction[] {
  const forward = actions.filter((a) => !isRemoval(a));
  const deletes = actions.filter(isRemoval);
  return [...forwardOrder(forward, declared), ...inDependencyOrder(deletes).reverse()];
}

/** The addresses of declared resources in the order inDependencyOrder gives their actions. */
export type DeclaredOrder = readonly string[];

/**
 * The dependency order of the declared resources, worked out from the declarations alone (a
 * declared resource's action has its address and dependencies), so a plan can do it while its
 * reads are on the wire instead of after them.
 */
export function declaredOrder(
  desired: readonly Pick<PlannedAction, "address" | "dependsOn">[],
): DeclaredOrder {
  return inDependencyOrder(desired).map((r) => r.address);
}

/**
 * inDependencyOrder(forward), taken from `declared` when the forward actions are exactly the
 * declared resources' (one action per declared address; a forward action is a declared resource's).
 */
function forwardOrder(forward: PlannedAction[], declared: DeclaredOrder | undefined): PlannedAction[] {
  if (declared?.length === forward.length) {
    const byAddress = new Map(forward.map((a) => [a.address, a]));
    if (byAddress.size === declared.length) {
      const ordered: PlannedAction[] = [];
      for (const address of declared) {
        const action = byAddress.get(address);
        if (!action) break;
        ordered.push(action);
      }
      if (ordered.length === forward.length) return ordered;
    }
  }
  return inDependencyOrder(forward);
}

type Ordered = Pick<PlannedAction, "address" | "dependsOn">;

const ACTION_EDGES: Edges<Ordered> = {
  id: (action) => action.address,
  deps: (action) => [...action.dependsOn].sort(),
};

/**
 * Each action after those it depends on, by address otherwise. Declared dependencies were proved
 * acyclic by validation, and recorded ones were declared once.
 */
function inDependencyOrder<T extends Ordered>(actions: readonly T[]): T[] {
  return acyclicOrder<T>(
    [...actions].sort((x, y) => compareText(x.address, y.address)),
    ACTION_EDGES,
  );
}
