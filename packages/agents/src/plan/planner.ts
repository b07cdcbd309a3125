// Builds a Plan from the desired resources, the state and a refresh of the remote. Read-only:
// it never writes state and never changes a remote resource.
import { isDeepStrictEqual } from "node:util";
import { closest } from "../model/suggest.js";
import type { ProviderRuntime } from "../providers/registry.js";
import type { RemoteObject, Spec, UploadIntent } from "../providers/types.js";
import type { ResourceState, State } from "../state/types.js";
import { type BoundResource, bindDesired, configHash, specsOf } from "./bind.js";
import { markMoves, planImports, planMoves, planRemoved, type StateBlocks } from "./blocks.js";
import { breather, mapBounded } from "./bounded.js";
import { fieldChanges, planDeclared, planRemoval } from "./decide.js";
import { type DeclaredOrder, declaredOrder, orderActions, propagateNewIds } from "./dependents.js";
import { checkReplace, forceReplacements, refuseProtected } from "./lifecycle.js";
import { compareText } from "./order.js";
import { LIST_REFRESH_MIN, type RefreshResult, type RefreshTarget, refresh } from "./refresh.js";
import { scopeDesired, scopeState } from "./scope.js";
import {
  ACTION_TYPES,
  type DesiredResource,
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
  /** `--replace ADDRESS`: replace these declared resources even though nothing forces it. */
  replace?: string[];
  concurrency?: number;
  signal?: AbortSignal;
  /** Which state this is, recorded in the plan (and shown as its first line). */
  source?: { backend: "file" | "postgres"; location: string; project: string };
  /** The config's `moved:`, `import:` and `removed:` lists (plan/blocks.ts). */
  blocks?: StateBlocks;
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
  const { runtime } = options;
  const operation = options.operation ?? "apply";
  const blocks = options.blocks ?? { moved: [], imports: [], removed: [] };
  // The plan compares with the state as the moves leave it (a destroy removes what is recorded,
  // under whichever address).
  const { state, moves } =
    operation === "destroy"
      ? { state: options.state, moves: new Map() }
      : planMoves(options.state, blocks.moved);
  const signal = options.signal ?? new AbortController().signal;
  const concurrency = options.concurrency ?? 10;
  const scope = { providers: options.providers, targets: options.targets };
  checkTargets(options.targets, options.desired, state);
  checkReplace(options.replace, operation, options.desired, state);
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
  const bound = await bindDesired(desired, runtime, options.stateKey, state.resources);
  const byAddress = new Map(bound.map((b) => [b.resource.address, b]));
  const hashed = specsOf(bound);
  // The config hash and the actions' order need only the declarations: worked out while the reads
  // are still on the wire.
  const hash = configHash(desired, hashed);
  const order = declaredOrder(desired);
  const phase: PlanPhase = {
    options: { ...options, state },
    runtime,
    state,
    desired,
    bound,
    byAddress,
    hashed,
    lookup,
    concurrency,
    signal,
  };

  const remote = await reading;
  // The diff needs the refresh, not the probes: on a fresh state it is worked out while they are
  // answered.
  const actions = await diffAll(phase, inState, remote.refreshed, operation);
  const replaceWarnings: string[] = [];
  forceReplacements(actions, options.replace, byAddress, replaceWarnings);
  await settleInterrupted(phase, actions);
  markMoves(actions, moves);
  planRemoved(actions, blocks.removed);
  const importWarnings =
    operation === "destroy" ? [] : await planImports(actions, blocks.imports, { ...phase, byAddress });
  // The owned-object lookups go only to providers whose credential check passed: a wrong key or
  // an unreachable base URL is reported as the incomplete plan it makes, not thrown by a lookup.
  const probeErrors = await remote.probed;
  await adoptUnrecorded(phase, actions, new Set(probeErrors.map((e) => e.target)));
  propagateNewIds(actions, state, byAddress, order);
  refuseProtected(actions, options.desired, state, operation);
  const warnings = [
    ...replaceWarnings,
    ...importWarnings,
    ...noteRefreshResults(actions, remote.refreshed),
    ...renameHints(actions, state, hashed),
  ];
  return {
    plan: assemblePlan(phase, operation, actions, warnings, remote, probeErrors, hash, order),
    hashed,
  };
}

/** What every phase of createPlan reads. */
interface PlanPhase {
  options: PlanOptions;
  runtime: ProviderRuntime;
  state: State;
  /** Declared resources in scope (none for a destroy). */
  desired: DesiredResource[];
  /** Each of them bound to its handler, comparable spec and state entry, in declaration order. */
  bound: BoundResource[];
  byAddress: Map<string, BoundResource>;
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
  const targets: RefreshTarget[] =
    operation === "destroy"
      ? []
      : inState.map((r) => ({ address: r.address, kind: r.kind, provider: r.provider, id: r.id, prior: r }));
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
  const { runtime, bound, byAddress } = phase;
  const actions: PlannedAction[] = [];
  // Probes may still be on the wire (a fresh state): let them go out and come back meanwhile.
  const breathe = breather();
  for (const entry of bound) {
    const pause = breathe();
    if (pause) await pause;
    entry.remote = refreshed.get(entry.resource.address);
    actions.push(planDeclared(runtime.project, entry));
  }
  for (const prior of inState) {
    if (byAddress.has(prior.address)) continue;
    const handler = runtime.handler(prior.provider, prior.kind);
    actions.push(planRemoval(prior, refreshed.get(prior.address), operation, handler));
  }
  return actions;
}

/**
 * A create journaled but never recorded (an interrupted run): a planned create looks the resource
 * up by ownership (or, for kinds without ownership metadata, by the unique name the create takes)
 * and adopts it; a planned create-before-destroy replacement looks for the new object beside the
 * recorded one and adopts it as the replacement; a delete removes that object too; one no longer
 * declared is deleted if found, else its journal entry is cleared.
 */
async function settleInterrupted(phase: PlanPhase, actions: PlannedAction[]): Promise<void> {
  const { options, runtime, state, byAddress, lookup, concurrency, signal } = phase;
  const planned = new Set(actions.map((a) => a.address));
  const pending = Object.values(state.pending ?? {}).filter(
    (p) =>
      (!options.providers || options.providers.includes(p.provider)) &&
      (!options.targets || options.targets.includes(p.address)) &&
      !planned.has(p.address),
  );
  // Only an action with a journaled create has anything to settle.
  const journaled = state.pending ? actions.filter((a) => state.pending![a.address] && !a.external) : [];
  await mapBounded(journaled, concurrency, async (action) => {
    if (!state.pending?.[action.address] || action.external) return;
    if (action.action === "create") {
      const bound = byAddress.get(action.address)!;
      const owned = await findOwned(
        runtime,
        action,
        lookup,
        signal,
        undefined,
        state.pending[action.address]!.uploads,
      );
      const found = owned ?? (await findNamed(runtime, action, bound.resource.spec, lookup, signal));
      // An object state already records under another address is never this create's.
      // Ids are unique per provider only: another provider may use the same id for its own object.
      if (
        !found ||
        Object.values(state.resources).some((r) => r.id === found.id && r.provider === action.provider)
      )
        return;
      adoptInstead(
        action,
        bound,
        found,
        owned
          ? `found ${found.id} owned by this project (left by an interrupted run): adopt it instead of creating a duplicate`
          : `found ${found.id} under the name an interrupted run's journaled create took: adopt it instead of creating a duplicate`,
      );
      return;
    }
    const recorded = state.resources[action.address]?.id;
    if (!recorded) return;
    const replacing = action.action === "replace" && action.createBeforeDestroy;
    if (!replacing && !["delete", "update", "noop"].includes(action.action)) return;
    const found = await findOwned(runtime, action, lookup, signal, new Set([recorded]));
    if (!found || found.id === recorded) return;
    if (replacing) {
      action.adoptId = found.id;
      action.reason += `; adopts ${found.id}, the replacement an interrupted run created, instead of creating another`;
    } else if (action.action === "noop") {
      // The config went back to what is recorded after a replacement was cut short: the
      // replacement it made is no longer wanted; or the replacement was recorded and the old
      // object's removal was cut short. An update without field changes removes it.
      Object.assign(action, {
        action: "update",
        strays: [found.id],
        reason:
          state.pending?.[action.address]?.replaces === found.id
            ? `removes ${found.id}, the object an interrupted replacement recorded ${recorded} for and never removed`
            : `removes ${found.id}, the replacement an interrupted run created and the config no longer asks for`,
      });
    } else {
      action.strays = [found.id];
      action.reason += `; also removes ${found.id}, left unrecorded by an interrupted replacement`;
    }
  });
  for (const entry of pending) {
    if (byAddress.has(entry.address)) continue;
    const found = await findOwned(runtime, entry, lookup, signal, undefined, entry.uploads);
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

/** A planned create becomes the adoption of `found`, with the field changes the adopt makes. */
function adoptInstead(
  action: PlannedAction,
  bound: BoundResource,
  found: RemoteObject,
  reason: string,
): void {
  const changes = fieldChanges({}, found.spec, bound.spec, bound.handler, true);
  Object.assign(action, {
    action: "adopt",
    remoteId: found.id,
    reason,
    changes: changes.filter((c) => !c.sensitive),
  });
}

/**
 * A declared resource state has no entry for (a lost or emptied state, or one entry missing):
 * before it is planned as a create, the remote is asked for an object carrying this project's
 * ownership markers for its address, and one found is adopted, never created a second time. Two
 * or more owned objects for one address are not guessed between: the plan stops and names them
 * with the `agents import` line for each. Only creates look: a complete state costs no call here.
 */
async function adoptUnrecorded(
  phase: PlanPhase,
  actions: PlannedAction[],
  unreadable: Set<string>,
): Promise<void> {
  const { runtime, state, byAddress, lookup, concurrency, signal } = phase;
  const creates = actions.filter(
    (a) => a.action === "create" && !a.external && !state.resources[a.address] && !unreadable.has(a.provider),
  );
  if (!creates.length) return;
  const recorded = new Set(Object.values(state.resources).map((r) => `${r.provider} ${r.id}`));
  const ambiguous: { address: string; ids: string[] }[] = [];
  const listed = await ownedByList(runtime, creates, concurrency, signal);
  await mapBounded(creates, concurrency, async (action) => {
    const bound = byAddress.get(action.address);
    if (!bound) return;
    // A kind listed once for many creates: nothing owned under this address needs no lookup.
    const owned = listed.get(`${action.provider} ${action.kind}`)?.get(action.address);
    if (owned?.length === 0) return;
    const found = await findOwned(runtime, action, lookup, signal);
    // An object state records under another address is never this one's.
    if (!found || recorded.has(`${action.provider} ${found.id}`)) return;
    const other = await findOwned(runtime, action, lookup, signal, new Set([found.id]));
    if (other && other.id !== found.id) {
      ambiguous.push({ address: action.address, ids: [found.id, other.id].sort(compareText) });
      return;
    }
    adoptInstead(
      action,
      bound,
      found,
      `found ${found.id} owned by this project under this address and not in state (a lost or emptied state): adopt it instead of creating a duplicate`,
    );
  });
  if (!ambiguous.length) return;
  ambiguous.sort((a, b) => compareText(a.address, b.address));
  const first = ambiguous[0]!;
  throw new PlanError(
    `${ambiguous.map((a) => `${a.address}: ${a.ids.length} remote objects (${a.ids.join(", ")})`).join("; ")} ` +
      "carry this project's ownership markers and none is recorded in state; agents will not guess which one is yours. " +
      `Keep one with agents import, e.g.: ${ambiguous.map((a) => `agents import '${a.address}' ${a.ids[0]}`).join(" ; ")}` +
      " (then delete the other object on the provider, or leave it unmanaged)",
    "ambiguous_owned_objects",
    first.address,
  );
}

/**
 * Where many creates of one kind look for owned objects (a first apply, a lost state), the kind is
 * listed once (the handler's `list`, as sync uses it) instead of walked once per create: by
 * provider and kind, the live owned ids under each create's address (empty when none). Kinds
 * without `list`, or with fewer than LIST_REFRESH_MIN creates, are not listed.
 */
async function ownedByList(
  runtime: ProviderRuntime,
  creates: PlannedAction[],
  concurrency: number,
  signal: AbortSignal,
): Promise<Map<string, Map<string, string[]>>> {
  const groups = new Map<string, PlannedAction[]>();
  for (const a of creates) {
    const key = `${a.provider} ${a.kind}`;
    groups.set(key, [...(groups.get(key) ?? []), a]);
  }
  const out = new Map<string, Map<string, string[]>>();
  const wide = [...groups.values()].filter((g) => g.length >= LIST_REFRESH_MIN);
  await mapBounded(wide, concurrency, async (group) => {
    const { provider, kind } = group[0]!;
    const handler = runtime.handler(provider, kind);
    if (!handler?.list || !handler.findOwned) return;
    const objects = await handler.list(
      runtime.listContext(provider, signal, () => {}),
      runtime.project,
    );
    const byAddress = new Map(group.map((a) => [a.address, [] as string[]]));
    for (const o of objects) {
      if (o.archived || o.owner?.project !== runtime.project) continue;
      byAddress.get(o.owner.resource)?.push(o.id);
    }
    out.set(`${provider} ${kind}`, byAddress);
  });
  return out;
}

/**
 * A key renamed without a `moved:` entry (or `agents state mv`) plans a delete of the old address
 * and a create of the new one: when the two are of one kind and provider and the created spec is
 * the recorded one (its name aside, which follows the key), say how to keep the remote object.
 */
function renameHints(actions: PlannedAction[], state: State, hashed: Map<string, Spec>): string[] {
  const hints: string[] = [];
  const creates = actions.filter((a) => a.action === "create");
  const withoutName = (spec: Spec | undefined, name: string): unknown => {
    if (!spec || spec.name !== name) return spec;
    const { name: _name, ...rest } = spec;
    return rest;
  };
  for (const gone of actions) {
    const prior = gone.action === "delete" && !gone.external ? state.resources[gone.address] : undefined;
    if (!prior) continue;
    const recorded = withoutName(prior.spec, prior.name);
    const twin = creates.find(
      (c) =>
        c.kind === prior.kind &&
        c.provider === prior.provider &&
        isDeepStrictEqual(withoutName(hashed.get(c.address), c.name), recorded),
    );
    if (twin)
      hints.push(
        `${gone.address} is deleted and ${twin.address} created with the same settings: if you renamed the key, keep the remote object by adding to agents.yaml: ` +
          `moved: [{from: '${gone.address}', to: '${twin.address}'}] (reviewed in the plan, kept in git; or once, by hand: agents state mv '${gone.address}' '${twin.address}')`,
      );
  }
  return hints;
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
  hash: string,
  order: DeclaredOrder,
): Plan {
  const { options, state } = phase;
  const refreshErrors: RefreshError[] = [
    ...probeErrors,
    ...[...remote.refreshed]
      .filter(([, r]) => r.status === "error")
      .map(([address, r]) => ({ target: address, message: (r as { message: string }).message }))
      .sort((a, b) => compareText(a.target, b.target)),
  ];
  const summary = Object.fromEntries(
    ACTION_TYPES.map((t) => [t, actions.filter((a) => a.action === t).length]),
  ) as Plan["summary"];
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    createdAt: new Date().toISOString(),
    operation,
    state: {
      lineage: state.lineage,
      serial: state.serial,
      ...(options.source ? { ...options.source, recorded: Object.keys(state.resources).length } : {}),
    },
    configHash: hash,
    scope: {
      ...(options.providers ? { providers: options.providers } : {}),
      ...(options.targets ? { targets: options.targets } : {}),
      ...(options.replace?.length ? { replace: options.replace } : {}),
    },
    actions: orderActions(actions, order),
    summary,
    warnings,
    refresh: {
      reads: remote.targets.length,
      failed: [...remote.refreshed.values()].filter((r) => r.status === "error").length,
      ...(refreshErrors.length ? { errors: refreshErrors } : {}),
    },
  };
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
  exclude?: ReadonlySet<string>,
  leftoverUploads?: UploadIntent[],
): Promise<RemoteObject | undefined> {
  const handler = runtime.handler(resource.provider, resource.kind);
  if (!handler?.findOwned) return undefined;
  const ctx = runtime.context(resource, lookup, signal, () => {});
  if (leftoverUploads?.length) ctx.leftoverUploads = leftoverUploads;
  const found = await handler.findOwned(ctx, ctx.owner, exclude);
  return found && !found.archived ? found : undefined;
}

/** The live object holding the unique name this create would take (kinds without ownership metadata). */
async function findNamed(
  runtime: ProviderRuntime,
  resource: Pick<PlannedAction, "address" | "kind" | "provider">,
  spec: Spec,
  lookup: (address: string) => { id: string; extra?: Record<string, unknown> } | undefined,
  signal: AbortSignal,
): Promise<RemoteObject | undefined> {
  const handler = runtime.handler(resource.provider, resource.kind);
  if (!handler?.findNamed) return undefined;
  const ctx = runtime.context(resource, lookup, signal, () => {});
  const found = await handler.findNamed(ctx, spec);
  return found && !found.archived ? found : undefined;
}
