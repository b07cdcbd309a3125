// The `lifecycle:` rules of a declaration and `--replace ADDRESS`, applied to a plan: which
// changes a plan ignores, which replacements it is asked for, in which order a replacement runs,
// and which deletions it refuses (docs/configuration.md#lifecycle). The rules of a declaration are
// data on DesiredResource; a resource no longer declared keeps its prevent_destroy in state.
import { closest } from "../model/suggest.js";
import type { KindHandler, Spec } from "../providers/types.js";
import type { ResourceState, State } from "../state/types.js";
import type { BoundResource } from "./bind.js";
import {
  type DesiredResource,
  type FieldChange,
  type LifecycleRules,
  PlanError,
  type PlannedAction,
} from "./types.js";

/** Whether a replacement creates the new object first: the declaration's choice, else the kind's. */
export function replacesFirst(
  handler: Pick<KindHandler, "createBeforeDestroy">,
  rules?: LifecycleRules,
): boolean {
  return rules?.createBeforeDestroy ?? handler.createBeforeDestroy ?? false;
}

/** A change path as plans print it (`credentials[0].name`) in the dotted form patterns use. */
function dotted(path: string): string {
  return path.replace(/\[(\d+)\]/g, ".$1");
}

const compiled = new Map<string, RegExp>();

/** True when `path` (a FieldChange path) lies at or under the field `pattern` names. */
export function underPattern(pattern: string, path: string): boolean {
  let re = compiled.get(pattern);
  if (!re) {
    const body = pattern
      .split(".")
      .map((part) => (part === "*" ? "[^.]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("\\.");
    re = new RegExp(`^${body}(?:\\.|$)`);
    compiled.set(pattern, re);
  }
  return re.test(dotted(path));
}

/**
 * The changes `lifecycle.ignore_changes` leaves: drift and edits of an ignored field plan nothing
 * (a create, which makes the object from the declaration, is not filtered).
 */
export function withoutIgnored(changes: FieldChange[], rules: LifecycleRules | undefined): FieldChange[] {
  const ignored = rules?.ignoreChanges;
  if (!ignored || changes.length === 0) return changes;
  if (ignored === "all") return [];
  return changes.filter((c) => !ignored.some((pattern) => underPattern(pattern, c.path)));
}

/**
 * The spec an update sends for a resource with ignore_changes: the declaration, with each ignored
 * field as the remote holds it now, so the update keeps what was changed there. A field the
 * remote does not report back (a secret is never read back) is sent as declared, and so is every
 * field under `all` (such an update only follows a dependency's new id or re-stamps ownership).
 */
export function keepIgnored(
  declared: Spec,
  remote: Spec,
  rules: LifecycleRules | undefined,
  sensitive: readonly string[] = [],
): Spec {
  const ignored = rules?.ignoreChanges;
  if (!ignored || ignored === "all") return declared;
  let out: unknown = declared;
  for (const pattern of ignored) {
    // A path at, over or under a secret is never taken from the remote, which cannot show it.
    if (sensitive.some((s) => underPattern(pattern, s.replaceAll("*", "0")) || underPattern(s, pattern)))
      continue;
    out = overlay(out, remote, pattern.split("."));
  }
  return out as Spec;
}

function overlay(target: unknown, source: unknown, parts: string[]): unknown {
  if (parts.length === 0) return source === undefined ? target : source;
  const [head, ...rest] = parts as [string, ...string[]];
  if (Array.isArray(target)) {
    const from = Array.isArray(source) ? source : [];
    if (head === "*") return target.map((item, i) => overlay(item, from[i], rest));
    const index = Number(head);
    if (!Number.isInteger(index) || index >= target.length) return target;
    const copy = [...target];
    copy[index] = overlay(target[index], from[index], rest);
    return copy;
  }
  const object = (value: unknown) =>
    value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  const into = object(target);
  const from = object(source);
  if (target !== undefined && !into) return target;
  const keys = head === "*" ? new Set([...Object.keys(into ?? {}), ...Object.keys(from ?? {})]) : [head];
  const out: Record<string, unknown> = { ...into };
  for (const key of keys) {
    const value = overlay(into?.[key], from?.[key], rest);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** `--replace` names a declared, recorded resource: anything else is refused with a suggestion. */
export function checkReplace(
  replace: readonly string[] | undefined,
  operation: "apply" | "destroy",
  desired: readonly DesiredResource[],
  state: State,
): void {
  if (!replace?.length) return;
  if (operation === "destroy")
    throw new PlanError("--replace plans a replacement; a destroy plan deletes instead", "bad_replace");
  const declared = new Map(desired.map((r) => [r.address, r]));
  const known = new Set([...declared.keys(), ...Object.keys(state.resources)]);
  for (const address of replace) {
    const resource = declared.get(address);
    if (!resource) {
      const recorded = state.resources[address] !== undefined;
      const match = recorded
        ? undefined
        : (closest(address, known) ??
          [...known].find((a) => a.endsWith(`["${address}"]`) || a.endsWith(`[${address}]`)));
      throw new PlanError(
        recorded
          ? `--replace ${address}: not declared in the configuration any more, so this plan deletes it; there is nothing to replace it with`
          : `--replace ${address}: no resource with this address in the configuration` +
              (match ? ` (did you mean ${match}?)` : "") +
              '; addresses are <provider>.<kind>["<name>"] as plans print them, see agents state list',
        "unknown_replace",
        address,
      );
    }
    if (resource.external)
      throw new PlanError(
        `--replace ${address}: an external resource (${resource.external.field}) is never created or deleted by agents, so it cannot be replaced`,
        "bad_replace",
        address,
      );
  }
}

/**
 * Turns the action of each `--replace` address into a replacement (a resource not recorded yet is
 * created anyway, with a warning). Dependents then follow the new id (propagateNewIds).
 */
export function forceReplacements(
  actions: PlannedAction[],
  replace: readonly string[] | undefined,
  bound: Map<string, BoundResource>,
  warnings: string[],
): void {
  if (!replace?.length) return;
  const planned = new Set(actions.map((a) => a.address));
  const outside = replace.find((address) => !planned.has(address));
  if (outside)
    throw new PlanError(
      `--replace ${outside}: outside this run's scope (--provider/--target), so it cannot be replaced; add it with --target '${outside}'`,
      "unknown_replace",
      outside,
    );
  const wanted = new Set(replace);
  for (const action of actions) {
    if (!wanted.has(action.address) || action.action === "delete") continue;
    const entry = bound.get(action.address);
    if (!entry) continue;
    if (action.action === "create" || action.action === "adopt") {
      warnings.push(
        `--replace ${action.address}: not recorded in state, so there is no object to replace; it is ${action.action === "create" ? "created" : "adopted"} as planned`,
      );
      continue;
    }
    if (action.action === "replace") {
      action.forced = true;
      action.reason += "; also asked for with --replace";
      continue;
    }
    Object.assign(action, {
      action: "replace",
      forced: true,
      createBeforeDestroy: replacesFirst(entry.handler, entry.resource.lifecycle),
      reason: `replacement asked for with --replace${action.action === "update" ? ` (with ${action.changes.length} field change${action.changes.length === 1 ? "" : "s"})` : ""}`,
    });
  }
}

/**
 * Whether a resource is protected by prevent_destroy: its declaration decides while it is declared
 * (so setting `prevent_destroy: false` is how a user lets it go); once its declaration is gone,
 * what the last apply recorded.
 */
function isProtected(
  address: string,
  declared: ReadonlyMap<string, DesiredResource>,
  recorded: ResourceState | undefined,
): boolean {
  const resource = declared.get(address);
  if (resource) return resource.lifecycle?.preventDestroy === true;
  return recorded?.preventDestroy === true;
}

/**
 * Refuses a plan that would delete or replace a resource protected by `lifecycle.prevent_destroy`,
 * naming every such address, why the plan would delete it, and how to go ahead. A delete that only
 * releases the resource from state (external, or a kind the provider cannot delete) is allowed.
 */
export function refuseProtected(
  actions: readonly PlannedAction[],
  desired: readonly DesiredResource[],
  state: State,
  operation: "apply" | "destroy",
): void {
  const destroying = actions.filter(
    (a) =>
      ((a.action === "delete" && !a.external && !a.remains) || a.action === "replace") &&
      state.resources[a.address] !== undefined,
  );
  if (destroying.length === 0) return;
  const declared = new Map(desired.map((r) => [r.address, r]));
  const refused = destroying.filter((a) => isProtected(a.address, declared, state.resources[a.address]));
  if (refused.length === 0) return;
  const lines = refused.map((a) => {
    const what = a.action === "replace" ? "replace (delete and re-create)" : "delete";
    const how =
      a.action === "replace"
        ? a.forced
          ? "leave out --replace for it"
          : "undo the change that forces the replacement"
        : operation === "destroy"
          ? "leave it out with --target for the other resources"
          : declared.has(a.address)
            ? "keep its declaration"
            : "put its declaration back";
    return (
      `  ${a.address}: the plan would ${what} it (${a.reason}).\n` +
      `    To keep it: ${how}. To let it go: set \`prevent_destroy: false\` in its lifecycle block` +
      (declared.has(a.address) ? "" : " (with its declaration put back)") +
      ", apply, then run this again" +
      (a.action === "delete"
        ? `; or stop managing it and leave it in place: agents state rm '${a.address}' (or a \`removed:\` entry with \`destroy: false\`)`
        : "")
    );
  });
  throw new PlanError(
    `lifecycle.prevent_destroy: ${refused.length === 1 ? "a resource is" : `${refused.length} resources are`} protected from deletion, and nothing was changed:\n${lines.join("\n")}`,
    "prevent_destroy",
    refused[0]!.address,
  );
}

/**
 * The state entries whose recorded prevent_destroy no longer matches their declaration: each a new
 * object (state entries are never changed in place), for an apply to write.
 */
export function protectionUpdates(state: State, desired: readonly DesiredResource[]): ResourceState[] {
  const out: ResourceState[] = [];
  for (const resource of desired) {
    const entry = state.resources[resource.address];
    if (!entry) continue;
    const wanted = resource.lifecycle?.preventDestroy === true;
    if (wanted === (entry.preventDestroy === true)) continue;
    const { preventDestroy: _old, ...rest } = entry;
    out.push(wanted ? { ...rest, preventDestroy: true } : rest);
  }
  return out;
}
