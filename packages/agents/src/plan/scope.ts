// --provider and --target narrow a run. A scoped run never touches a resource outside its scope,
// deletes included.
import type { ResourceState, State } from "../state/types.js";
import { compareText } from "./order.js";
import type { DesiredResource } from "./types.js";

interface Scope {
  providers?: string[];
  targets?: string[];
}

/** Targets plus everything they depend on (a target cannot be applied without its dependencies). */
export function scopeDesired(desired: DesiredResource[], scope: Scope): DesiredResource[] {
  let out = scope.providers ? desired.filter((r) => scope.providers!.includes(r.provider)) : desired;
  if (scope.targets) {
    const byAddress = new Map(desired.map((r) => [r.address, r]));
    const keep = new Set<string>();
    const visit = (address: string) => {
      if (keep.has(address)) return;
      keep.add(address);
      for (const dep of byAddress.get(address)?.dependsOn ?? []) visit(dep);
    };
    for (const t of scope.targets) visit(t);
    out = out.filter((r) => keep.has(r.address));
  }
  return out;
}

/**
 * State entries in scope. For apply, a target selects itself and its dependencies; for destroy
 * it selects itself and everything that depends on it (they cannot outlive it).
 */
export function scopeState(
  state: State,
  desired: DesiredResource[],
  scope: Scope,
  operation: "apply" | "destroy",
): ResourceState[] {
  let out = Object.values(state.resources);
  if (scope.providers) out = out.filter((r) => scope.providers!.includes(r.provider));
  if (scope.targets) {
    const keep = new Set<string>();
    if (operation === "apply") {
      for (const r of scopeDesired(desired, { targets: scope.targets })) keep.add(r.address);
      for (const t of scope.targets) keep.add(t);
    } else {
      const visit = (address: string) => {
        if (keep.has(address)) return;
        keep.add(address);
        for (const r of Object.values(state.resources)) if (r.dependsOn.includes(address)) visit(r.address);
      };
      for (const t of scope.targets) visit(t);
    }
    out = out.filter((r) => keep.has(r.address));
  }
  return out.sort((a, b) => compareText(a.address, b.address));
}
