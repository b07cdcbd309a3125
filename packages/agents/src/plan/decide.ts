// The action for one resource, decided from what is declared, what state recorded and what the
// remote shows: create, update, replace, read or noop for a declared resource, delete for one
// that is not (any more).
import { matchesAny } from "../model/field-path.js";
import type { KindHandler, Owner, Spec } from "../providers/types.js";
import type { ResourceState } from "../state/types.js";
import type { BoundResource } from "./bind.js";
import { diffValues, isEmptyValue, sameValue } from "./diff.js";
import { replacesFirst, withoutIgnored } from "./lifecycle.js";
import type { RefreshResult } from "./refresh.js";
import { type FieldChange, PlanError, type PlannedAction } from "./types.js";

export function planDeclared(project: string, bound: BoundResource): PlannedAction {
  const { resource, prior, spec, handler, remote: result } = bound;
  const base = {
    address: resource.address,
    kind: resource.kind,
    name: resource.name,
    provider: resource.provider,
    dependsOn: resource.dependsOn,
    changes: [] as FieldChange[],
    warnings: [] as string[],
  };
  if (resource.external) {
    if (prior && !prior.external) {
      throw new PlanError(
        `${resource.address}: ${resource.external.field} was added to a resource agents created (${prior.id}); ` +
          `agents would stop managing it. Remove ${resource.external.field}, or release it first with: agents state rm '${resource.address}'`,
        "ownership",
        resource.address,
      );
    }
    if (result?.status === "gone") {
      throw new PlanError(
        `${resource.address}: external ${resource.external.field} ${resource.external.id} was not found on ${resource.provider}`,
        "external_not_found",
        resource.address,
      );
    }
    const recorded = prior?.id === resource.external.id;
    return {
      ...base,
      action: recorded ? "noop" : "read",
      external: true,
      remoteId: resource.external.id,
      reason: recorded
        ? "external: verified, never changed by agents"
        : "external: verify it exists and record it (never created, updated or deleted)",
    };
  }
  if (prior?.external) {
    throw new PlanError(
      `${resource.address}: tracked as external (${prior.id}) but its environment_id/identity_id line was removed; ` +
        `agents never creates, updates or deletes an external resource. Restore the line, or release it first with: agents state rm '${resource.address}'`,
      "ownership",
      resource.address,
    );
  }
  // A create lists every declared field; only a create needs that diff (from nothing).
  const create = (reason: string): PlannedAction => ({
    ...base,
    changes: fieldChanges({}, undefined, spec, handler, false).map((c) => ({
      ...c,
      forcesReplacement: false,
    })),
    action: "create",
    reason,
  });
  if (!prior) return create("declared in the config and not in state");
  if (result?.status === "gone")
    return create(`${prior.id} no longer exists remotely (deleted outside agents)`);
  const observed = result?.status === "found" ? result.remote.spec : undefined;
  const notYetApplied = result?.status === "found" ? result.remote.notYetApplied : undefined;
  const changes = withoutIgnored(
    keyNamed(fieldChanges(prior.spec, observed, spec, handler, false, notYetApplied), resource.name),
    resource.lifecycle,
  );
  // After `agents state mv` the remote still names the old address as its owner: an update
  // re-stamps it, so sync and adoption find it under its new name (never a duplicate).
  const owner = result?.status === "found" ? result.remote.owner : undefined;
  // An imported object may carry no ownership labels (or another project's): its first update
  // stamps this project's, so sync and adoption find it. The plan shows that update.
  if (result?.status === "found" && prior.extra?.imported === true && handler.update) {
    changes.push(...ownershipStamp(owner, project, resource.address));
  } else if (owner && owner.project === project && owner.resource !== resource.address && handler.update) {
    changes.push({
      path: "metadata.agents.resource",
      before: owner.resource,
      after: resource.address,
      sensitive: false,
      forcesReplacement: false,
      source: "drift",
    });
  }
  const withId = { ...base, remoteId: prior.id, changes };
  if (changes.length === 0) return { ...withId, action: "noop", reason: "up to date" };
  const forcing = changes.filter((c) => c.forcesReplacement).map((c) => c.path);
  if (forcing.length > 0 || !handler.update) {
    return {
      ...withId,
      action: "replace",
      createBeforeDestroy: replacesFirst(handler, resource.lifecycle),
      reason: forcing.length
        ? `${forcing.join(", ")} cannot be changed in place (forces replacement)`
        : `${resource.kind} cannot be updated in place on ${resource.provider}`,
    };
  }
  const drift = changes.some((c) => c.source === "drift");
  const config = changes.some((c) => c.source === "config");
  const reason =
    drift && config
      ? "changed in the config and outside agents (drift)"
      : drift
        ? "changed outside agents (drift): restore the declared values"
        : `${changes.length} field${changes.length === 1 ? "" : "s"} changed in the config`;
  return { ...withId, action: "update", reason };
}

/** The remote name fields a declaration may leave out: the object is then named after its key. */
const KEY_NAMED = new Set(["name", "display_name"]);

/**
 * Every handler names an object after its key when the declaration gives no `name` (a vault no
 * `display_name`), and reads a name equal to the key back as absent. An object named otherwise (an
 * imported one, one renamed outside agents, one whose key was renamed) is renamed to the key by
 * the update: the change says so (`~ name: "handmade-env" → "env"`) instead of reading as the
 * field's removal.
 */
export function keyNamed(changes: FieldChange[], key: string): FieldChange[] {
  for (const change of changes) {
    if (
      KEY_NAMED.has(change.path) &&
      !change.sensitive &&
      typeof change.before === "string" &&
      isEmptyValue(change.after)
    )
      change.after = key;
  }
  return changes;
}

/**
 * The ownership labels an imported object lacks (none, or another project's): the update that
 * follows its import stamps this project's, so sync and adoption find it.
 */
export function ownershipStamp(owner: Owner | undefined, project: string, address: string): FieldChange[] {
  const labels = [
    ["metadata.agents.project", owner?.project, project],
    ["metadata.agents.resource", owner?.resource, address],
  ] as const;
  return labels
    .filter(([, before, after]) => before !== after)
    .map(([path, before, after]) => ({
      path,
      ...(before !== undefined ? { before } : {}),
      after,
      sensitive: false,
      forcesReplacement: false,
      source: "config" as const,
    }));
}

/** Changes from what is there now (last-applied overlaid with what the remote shows) to desired. */
export function fieldChanges(
  lastApplied: Spec,
  observed: Spec | undefined,
  desired: Spec,
  handler: Pick<KindHandler, "sensitive" | "replaceOn" | "replaceOnRemoval">,
  adopting: boolean,
  notYetApplied: readonly string[] = [],
): FieldChange[] {
  const current: Spec = { ...lastApplied };
  for (const [key, value] of Object.entries(observed ?? {})) current[key] = value;
  const differences = diffValues(current, desired, handler.sensitive);
  // Where each change comes from is worked out only when there is one (most resources of a plan
  // have none).
  if (differences.length === 0) return [];
  const drifted = new Set<string>();
  for (const [key, value] of Object.entries(observed ?? {})) {
    if (!adopting && !notYetApplied.includes(key) && !sameValue(lastApplied[key], value)) drifted.add(key);
  }
  return differences.map((d) => {
    const sensitive = matchesAny(handler.sensitive, d.segments);
    const top = String(d.segments[0] ?? "");
    return {
      path: d.path,
      ...(sensitive ? {} : { before: d.before, after: d.after }),
      sensitive,
      forcesReplacement:
        matchesAny(handler.replaceOn, d.segments) ||
        ((handler.replaceOnRemoval ?? []).includes(top) &&
          !isEmptyValue(current[top]) &&
          isEmptyValue(desired[top])),
      source: drifted.has(top) ? "drift" : "config",
    };
  });
}

export function planRemoval(
  prior: ResourceState,
  result: RefreshResult | undefined,
  operation: string,
  handler?: Pick<KindHandler, "cannotDelete">,
): PlannedAction {
  const base = {
    address: prior.address,
    kind: prior.kind,
    name: prior.name,
    provider: prior.provider,
    remoteId: prior.id,
    dependsOn: prior.dependsOn,
    changes: [],
    warnings: [],
  };
  const why = operation === "destroy" ? "agents destroy" : "no longer declared in the config";
  if (prior.external) {
    return {
      ...base,
      action: "delete",
      external: true,
      reason: `${why}; external, so only released from state (never deleted remotely)`,
    };
  }
  if (result?.status === "gone") {
    return { ...base, action: "delete", reason: `${why}; already gone remotely, so only removed from state` };
  }
  if (handler?.cannotDelete) {
    return {
      ...base,
      action: "delete",
      remains: true,
      reason: `${why}; ${handler.cannotDelete}, so it is only released from state and remains on ${prior.provider}`,
    };
  }
  return { ...base, action: "delete", reason: why };
}
