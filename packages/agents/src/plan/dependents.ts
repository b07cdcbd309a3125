// What a dependency's new id or new version does to the resources that reference it, and the
// order a plan lists its actions in: both follow the dependency graph.
import { acyclicOrder, type Edges } from "../model/graph.js";
import type { State } from "../state/types.js";
import type { BoundResource } from "./bind.js";
import { compareText } from "./order.js";
import type { PlannedAction } from "./types.js";

/**
 * A resource whose dependency gets a new remote id (replaced, or recreated after it vanished)
 * must be updated to reference the new id even though its own declaration did not change.
 */
export function propagateNewIds(
  actions: PlannedAction[],
  state: State,
  bound: Map<string, BoundResource>,
): void {
  // Only an update (a new version) or a replace or re-create (a new id) changes what its
  // dependents must do, and what they then become can only spread from one of those: a plan with
  // none of them has nothing to follow.
  if (!actions.some((a) => a.action === "update" || a.action === "replace" || a.action === "create")) return;
  const byAddress = new Map(actions.map((a) => [a.address, a]));
  const renewed = (a: PlannedAction | undefined) =>
    a !== undefined &&
    (a.action === "replace" || (a.action === "create" && state.resources[a.address] !== undefined));
  for (const action of inDependencyOrder(actions.filter((a) => a.action !== "delete"))) {
    if (action.external) continue;
    // Every action but a delete is a declared resource's.
    const { handler } = bound.get(action.address)!;
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
        createBeforeDestroy: handler.createBeforeDestroy ?? false,
        reason: `${why} (${action.kind} cannot be updated in place)`,
      });
  }
}

/** Stable display order: forward actions in dependency order, then deletes in reverse. */
export function orderActions(actions: PlannedAction[]): PlannedAction[] {
  const forward = actions.filter((a) => a.action !== "delete");
  const deletes = actions.filter((a) => a.action === "delete");
  return [...inDependencyOrder(forward), ...inDependencyOrder(deletes).reverse()];
}

const ACTION_EDGES: Edges<PlannedAction> = {
  id: (action) => action.address,
  deps: (action) => [...action.dependsOn].sort(),
};

/**
 * Each action after those it depends on, by address otherwise. Declared dependencies were proved
 * acyclic by validation, and recorded ones were declared once.
 */
function inDependencyOrder(actions: PlannedAction[]): PlannedAction[] {
  return acyclicOrder(
    [...actions].sort((x, y) => compareText(x.address, y.address)),
    ACTION_EDGES,
  );
}
