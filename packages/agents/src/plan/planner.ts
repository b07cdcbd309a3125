// Builds a Plan from the desired resources, the state and a refresh of the remote. Read-only:
// it never writes state and never changes a remote resource.
import { createHash } from "node:crypto";
import { matchesAny } from "../model/field-path.js";
import { acyclicOrder, type Edges } from "../model/graph.js";
import { closest } from "../model/suggest.js";
import type { ProviderRuntime } from "../providers/registry.js";
import type { KindHandler, RemoteObject, Spec } from "../providers/types.js";
import { hashSecrets } from "../state/secrets.js";
import type { ResourceState, State } from "../state/types.js";
import { breather, mapBounded } from "./bounded.js";
import { diffValues, isEmptyValue, sameValue } from "./diff.js";
import { compareText } from "./order.js";
import { type RefreshResult, type RefreshTarget, refresh } from "./refresh.js";
import { scopeDesired, scopeState } from "./scope.js";
import {
  type ActionType,
  type DesiredResource,
  type FieldChange,
  PLAN_FORMAT_VERSION,
  type Plan,
  PlanError,
  type PlannedAction,
  type RefreshError,
} from "./types.js";

export interface PlanOptions {
  desired: DesiredResource[];
  state: State;
  runtime: ProviderRuntime;
  stateKey: Buffer;
  operation?: "apply" | "destroy";
  providers?: string[];
  targets?: string[];
  concurrency?: number;
  signal?: AbortSignal;
}

/** The comparable desired spec of each resource (handler `desired` applied, secrets keyed-hashed). */
export async function prepareDesired(
  desired: DesiredResource[],
  runtime: ProviderRuntime,
  stateKey: Buffer,
): Promise<Map<string, Spec>> {
  const out = new Map<string, Spec>();
  const breathe = breather();
  for (const resource of desired) {
    await breathe();
    const handler = runtime.requireHandler(resource.provider, resource.kind, resource.address);
    const spec = (await handler.desired?.(resource.spec, { configDir: runtime.configDir })) ?? resource.spec;
    // The provider pin is already part of the address; comparing it again would only add noise.
    const { provider: _pin, ...comparable } = spec;
    out.set(resource.address, hashSecrets(comparable, handler.sensitive, stateKey));
  }
  return out;
}

export function configHash(desired: DesiredResource[], hashed: Map<string, Spec>): string {
  const canonical = [...desired]
    .sort((a, b) => compareText(a.address, b.address))
    .map((r) => [r.address, hashed.get(r.address), r.external?.id ?? null, [...r.dependsOn].sort()]);
  return `sha256:${createHash("sha256").update(JSON.stringify(canonical)).digest("hex")}`;
}

/**
 * The plan, phase by phase: scope what is declared and recorded, read the remote (refresh, and a
 * probe of each provider nothing else reads), diff each resource, settle what an interrupted run
 * left (adopt or clear), follow new ids and versions to dependents, and assemble the result.
 */
export async function createPlan(options: PlanOptions): Promise<Plan> {
  return (await planWithSpecs(options)).plan;
}

/**
 * createPlan, also giving the comparable desired specs it prepared (what an apply records as
 * last-applied), so the apply that follows does not prepare them a second time.
 */
export async function planWithSpecs(
  options: PlanOptions,
): Promise<{ plan: Plan; hashed: Map<string, Spec> }> {
  const { runtime, state } = options;
  const operation = options.operation ?? "apply";
  const signal = options.signal ?? new AbortController().signal;
  const concurrency = options.concurrency ?? 10;
  const scope = { providers: options.providers, targets: options.targets };
  checkTargets(options.targets, options.desired, state);
  const desired = operation === "destroy" ? [] : scopeDesired(options.desired, scope);
  const inState = scopeState(state, options.desired, scope, operation);
  const lookup = (address: string) => {
    const prior = state.resources[address];
    if (prior) return { id: prior.id, extra: prior.extra };
    const external = options.desired.find((r) => r.address === address)?.external;
    return external ? { id: external.id } : undefined;
  };
  // The reads go out first; the desired specs are prepared (handlers' `desired`, secrets hashed)
  // while they are answered. Only what is in scope: a run scoped to one provider needs no adapter
  // for the others.
  const reading = readRemote({ runtime, state, desired, lookup, concurrency, signal }, inState, operation);
  reading.catch(() => {});
  await new Promise((resolve) => setImmediate(resolve));
  const hashed = await prepareDesired(desired, runtime, options.stateKey);
  const phase: PlanPhase = { options, runtime, state, desired, hashed, lookup, concurrency, signal };

  const remote = await reading;
  // The diff needs the refresh, not the probes: on a fresh state it is worked out while they are
  // answered.
  const actions = await diffAll(phase, inState, remote.refreshed, operation);
  await settleInterrupted(phase, actions);
  propagateNewIds(actions, state, runtime);
  const warnings = noteRefreshResults(actions, remote.refreshed);
  const probeErrors = await remote.probed;
  return { plan: assemblePlan(phase, operation, actions, warnings, remote, probeErrors), hashed };
}

/** What every phase of createPlan reads. */
interface PlanPhase {
  options: PlanOptions;
  runtime: ProviderRuntime;
  state: State;
  /** Declared resources in scope (none for a destroy). */
  desired: DesiredResource[];
  /** Their comparable specs, by address. */
  hashed: Map<string, Spec>;
  lookup: (address: string) => { id: string; extra?: Record<string, unknown> } | undefined;
  concurrency: number;
  signal: AbortSignal;
}

interface RemoteRead {
  targets: RefreshTarget[];
  refreshed: Map<string, RefreshResult>;
  /** Settles when every probe is answered, with the providers whose probe failed. Never rejects. */
  probed: Promise<RefreshError[]>;
}

/**
 * One read per resource: state entries, plus externals not yet recorded. A destroy reads nothing:
 * it removes what state records, and removing what is already gone succeeds. A provider the
 * refresh did not read at all (a fresh state, a destroy) gets one cheap authenticated read, so a
 * wrong key or an unreachable base URL is reported by plan, not discovered midway.
 */
async function readRemote(
  phase: Pick<PlanPhase, "runtime" | "state" | "desired" | "lookup" | "concurrency" | "signal">,
  inState: ResourceState[],
  operation: "apply" | "destroy",
): Promise<RemoteRead> {
  const { runtime, state, desired, concurrency, signal } = phase;
  const targets: RefreshTarget[] = operation === "destroy" ? [] : inState.map((r) => ({ ...r, prior: r }));
  for (const r of desired) {
    if (r.external && state.resources[r.address]?.id !== r.external.id) {
      targets.push({ address: r.address, kind: r.kind, provider: r.provider, id: r.external.id });
    }
  }
  const read = new Set(targets.map((t) => t.provider));
  const touched = [
    ...desired.map((r) => r.provider),
    ...inState.filter((r) => !r.external).map((r) => r.provider),
  ];
  const unread = [...new Set(touched)].filter((p) => !read.has(p)).sort();
  // The probes go out beside the refresh: they read what it does not.
  const probeErrors: RefreshError[] = [];
  const probed = mapBounded(unread, concurrency, async (provider) => {
    try {
      await runtime.probe(provider, signal);
    } catch (error) {
      probeErrors.push({ target: provider, message: (error as Error).message });
    }
  }).then(() => probeErrors);
  const refreshed = await refresh(runtime, targets, phase.lookup, { concurrency, signal });
  return { targets, refreshed, probed };
}

/** One action per declared resource, and a delete for each recorded one no longer declared. */
async function diffAll(
  phase: PlanPhase,
  inState: ResourceState[],
  refreshed: Map<string, RefreshResult>,
  operation: "apply" | "destroy",
): Promise<PlannedAction[]> {
  const { runtime, state, desired, hashed } = phase;
  const declared = new Set(desired.map((r) => r.address));
  const actions: PlannedAction[] = [];
  // Probes may still be on the wire (a fresh state): let them go out and come back meanwhile.
  const breathe = breather();
  for (const resource of desired) {
    await breathe();
    const handler = runtime.requireHandler(resource.provider, resource.kind, resource.address);
    const prior = state.resources[resource.address];
    const spec = hashed.get(resource.address)!;
    actions.push(
      planDeclared(runtime.project, resource, prior, spec, handler, refreshed.get(resource.address)),
    );
  }
  for (const prior of inState) {
    if (declared.has(prior.address)) continue;
    actions.push(planRemoval(prior, refreshed.get(prior.address), operation));
  }
  return actions;
}

/**
 * A create journaled but never recorded (an interrupted run): a planned create looks the resource
 * up by ownership and adopts it; one no longer declared is deleted if found, else its journal
 * entry is cleared.
 */
async function settleInterrupted(phase: PlanPhase, actions: PlannedAction[]): Promise<void> {
  const { options, runtime, state, desired, hashed, lookup, concurrency, signal } = phase;
  const desiredByAddress = new Map(desired.map((r) => [r.address, r]));
  const pending = Object.values(state.pending ?? {}).filter(
    (p) =>
      (!options.providers || options.providers.includes(p.provider)) &&
      (!options.targets || options.targets.includes(p.address)) &&
      !actions.some((a) => a.address === p.address && a.action === "create"),
  );
  await mapBounded(actions, concurrency, async (action) => {
    if (action.action !== "create" || !state.pending?.[action.address]) return;
    const found = await findOwned(runtime, action, lookup, signal);
    if (found) {
      const resource = desiredByAddress.get(action.address)!;
      const handler = runtime.requireHandler(resource.provider, resource.kind, resource.address);
      const changes = fieldChanges({}, found.spec, hashed.get(action.address)!, handler, true);
      Object.assign(action, {
        action: "adopt",
        remoteId: found.id,
        reason: `found ${found.id} owned by this project (left by an interrupted run): adopt it instead of creating a duplicate`,
        changes: changes.filter((c) => !c.sensitive),
      });
    }
  });
  for (const entry of pending) {
    if (desiredByAddress.has(entry.address)) continue;
    const found = await findOwned(runtime, entry, lookup, signal);
    actions.push({
      ...entry,
      action: "delete",
      reason: found
        ? `left by an interrupted run (${found.id}) and no longer wanted`
        : "an interrupted create left nothing behind: clear its journal entry",
      changes: [],
      remoteId: found?.id,
      dependsOn: [],
      warnings: [],
    });
  }
}

/** Read warnings go on their action; a failed read is noted there (or on the plan, without one). */
function noteRefreshResults(actions: PlannedAction[], refreshed: Map<string, RefreshResult>): string[] {
  const warnings: string[] = [];
  for (const [address, result] of refreshed) {
    if (result.status === "found" && result.warnings) {
      actions.find((a) => a.address === address)?.warnings.push(...result.warnings);
    }
    if (result.status === "error") {
      const action = actions.find((a) => a.address === address);
      const note = `could not refresh (${result.message}); planned from the last-applied state`;
      if (action) action.warnings.push(note);
      else warnings.push(`${address}: ${note}`);
    }
  }
  return warnings;
}

function assemblePlan(
  phase: PlanPhase,
  operation: "apply" | "destroy",
  actions: PlannedAction[],
  warnings: string[],
  remote: RemoteRead,
  probeErrors: RefreshError[],
): Plan {
  const { options, state, desired, hashed } = phase;
  const refreshErrors: RefreshError[] = [
    ...probeErrors,
    ...[...remote.refreshed]
      .filter(([, r]) => r.status === "error")
      .map(([address, r]) => ({ target: address, message: (r as { message: string }).message }))
      .sort((a, b) => compareText(a.target, b.target)),
  ];
  const summary = Object.fromEntries(
    (["create", "update", "replace", "delete", "adopt", "read", "noop"] as ActionType[]).map((t) => [
      t,
      actions.filter((a) => a.action === t).length,
    ]),
  ) as Plan["summary"];
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    createdAt: new Date().toISOString(),
    operation,
    state: { lineage: state.lineage, serial: state.serial },
    configHash: configHash(desired, hashed),
    scope: {
      ...(options.providers ? { providers: options.providers } : {}),
      ...(options.targets ? { targets: options.targets } : {}),
    },
    actions: orderActions(actions),
    summary,
    warnings,
    refresh: {
      reads: remote.targets.length,
      failed: [...remote.refreshed.values()].filter((r) => r.status === "error").length,
      ...(refreshErrors.length ? { errors: refreshErrors } : {}),
    },
  };
}

function planDeclared(
  project: string,
  resource: DesiredResource,
  prior: ResourceState | undefined,
  spec: Spec,
  handler: KindHandler,
  result: RefreshResult | undefined,
): PlannedAction {
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
  const changes = fieldChanges(prior.spec, observed, spec, handler, false);
  // After `agents state mv` the remote still names the old address as its owner: an update
  // re-stamps it, so sync and adoption find it under its new name (never a duplicate).
  const owner = result?.status === "found" ? result.remote.owner : undefined;
  if (owner && owner.project === project && owner.resource !== resource.address && handler.update) {
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
      createBeforeDestroy: handler.createBeforeDestroy ?? false,
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

/** Changes from what is there now (last-applied overlaid with what the remote shows) to desired. */
export function fieldChanges(
  lastApplied: Spec,
  observed: Spec | undefined,
  desired: Spec,
  handler: Pick<KindHandler, "sensitive" | "replaceOn" | "replaceOnRemoval">,
  adopting: boolean,
): FieldChange[] {
  const current: Spec = { ...lastApplied };
  const drifted = new Set<string>();
  for (const [key, value] of Object.entries(observed ?? {})) {
    if (!adopting && !sameValue(lastApplied[key], value)) drifted.add(key);
    current[key] = value;
  }
  return diffValues(current, desired, handler.sensitive).map((d) => {
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

function planRemoval(
  prior: ResourceState,
  result: RefreshResult | undefined,
  operation: string,
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
  return { ...base, action: "delete", reason: why };
}

/** A --target that names nothing declared or recorded is a typo, never an empty plan. */
function checkTargets(targets: string[] | undefined, desired: DesiredResource[], state: State): void {
  if (!targets?.length) return;
  const known = new Set([
    ...desired.map((r) => r.address),
    ...Object.keys(state.resources),
    ...Object.keys(state.pending ?? {}),
  ]);
  for (const target of targets) {
    if (known.has(target)) continue;
    const match =
      closest(target, known) ??
      [...known].find((address) => address.endsWith(`["${target}"]`) || address.endsWith(`[${target}]`));
    throw new PlanError(
      `--target ${target}: no resource with this address in the configuration or the state` +
        (match ? ` (did you mean ${match}?)` : "") +
        '; addresses are <provider>.<kind>["<name>"], see agents state list',
      "unknown_target",
      target,
    );
  }
}

async function findOwned(
  runtime: ProviderRuntime,
  resource: Pick<PlannedAction, "address" | "kind" | "provider">,
  lookup: (address: string) => { id: string; extra?: Record<string, unknown> } | undefined,
  signal: AbortSignal,
): Promise<RemoteObject | undefined> {
  const handler = runtime.handler(resource.provider, resource.kind);
  if (!handler?.findOwned) return undefined;
  const ctx = runtime.context(resource, lookup, signal, () => {});
  const found = await handler.findOwned(ctx, ctx.owner);
  return found && !found.archived ? found : undefined;
}

/**
 * A resource whose dependency gets a new remote id (replaced, or recreated after it vanished)
 * must be updated to reference the new id even though its own declaration did not change.
 */
function propagateNewIds(actions: PlannedAction[], state: State, runtime: ProviderRuntime): void {
  const byAddress = new Map(actions.map((a) => [a.address, a]));
  const renewed = (a: PlannedAction | undefined) =>
    a !== undefined &&
    (a.action === "replace" || (a.action === "create" && state.resources[a.address] !== undefined));
  for (const action of topoSort(actions.filter((a) => a.action !== "delete"))) {
    if (action.external) continue;
    const handler = runtime.requireHandler(action.provider, action.kind, action.address);
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
function orderActions(actions: PlannedAction[]): PlannedAction[] {
  const forward = actions.filter((a) => a.action !== "delete");
  const deletes = actions.filter((a) => a.action === "delete");
  return [...topoSort(forward), ...topoSort(deletes).reverse()];
}

const ACTION_EDGES: Edges<PlannedAction> = {
  id: (action) => action.address,
  deps: (action) => [...action.dependsOn].sort(),
};

/**
 * Each action after those it depends on, by address otherwise. Declared dependencies were proved
 * acyclic by validation, and recorded ones were declared once.
 */
function topoSort(actions: PlannedAction[]): PlannedAction[] {
  return acyclicOrder(
    [...actions].sort((x, y) => compareText(x.address, y.address)),
    ACTION_EDGES,
  );
}
