// Executes a plan: one DAG task per action, each finished step journaled into state before the
// task counts as done. Creates are journaled as intents first so a crash is recoverable by
// adoption (see state/types.ts `pending`).

import { Interrupted, walkGraph } from "../model/graph.js";
import { limiter } from "../plan/bounded.js";
import { keepIgnored } from "../plan/lifecycle.js";
import { type DesiredResource, isRemoval, type Plan, type PlannedAction } from "../plan/types.js";
import { ProviderHttpError } from "../providers/http.js";
import type { ProviderRuntime } from "../providers/registry.js";
import type { KindHandler, PriorState, RemoteObject, Spec, UploadIntent } from "../providers/types.js";
import type { LockedState } from "../state/locked-state.js";
import type { PendingCreate, ResourceState, State } from "../state/types.js";
import { importedEntry } from "./imported.js";

export type ApplyEvent =
  | { type: "start"; address: string; action: PlannedAction["action"] }
  | { type: "done"; address: string; action: PlannedAction["action"]; ms: number; remoteId?: string }
  | { type: "failed"; address: string; action: PlannedAction["action"]; ms: number; message: string }
  | { type: "skipped"; address: string; action: PlannedAction["action"]; because: string }
  | { type: "warning"; address: string; message: string };

interface ExecuteOptions {
  plan: Plan;
  desired: DesiredResource[];
  /** Comparable desired specs (secrets keyed-hashed): what state records as last-applied. */
  hashed: Map<string, Spec>;
  store: LockedState;
  runtime: ProviderRuntime;
  parallelism?: number;
  onEvent?: (event: ApplyEvent) => void;
  /** Stops starting new steps; steps already running finish and are recorded. */
  signal?: AbortSignal;
}

export interface ExecuteResult {
  ok: boolean;
  done: string[];
  failed: Array<{ address: string; message: string }>;
  skipped: Array<{ address: string; because: string }>;
}

export async function executePlan(options: ExecuteOptions): Promise<ExecuteResult> {
  const { plan, store, runtime } = options;
  const emit = options.onEvent ?? (() => {});
  const signal = options.signal ?? new AbortController().signal;
  // Requests in flight are not cut by an interrupt: a half-sent create is what the journal is
  // for, but a finished one is better.
  const requestSignal = new AbortController().signal;
  const desiredByAddress = new Map(options.desired.map((r) => [r.address, r]));
  // Uploads an interrupted run journaled and never recorded: the resource's step settles them
  // (even a step with nothing else to do).
  const leftovers = new Map(
    Object.values(store.state.pending ?? {})
      .filter((p) => p.uploads?.length)
      .map((p) => [p.address, [...p.uploads!]]),
  );
  // A noop also runs to clear a replacement's journal entry whose old object is already gone.
  const actions = plan.actions.filter(
    (a) => a.action !== "noop" || leftovers.has(a.address) || store.state.pending?.[a.address]?.replaces,
  );
  const actionByAddress = new Map(actions.map((a) => [a.address, a]));

  const lookup = (address: string) => {
    const recorded = store.state.resources[address];
    if (recorded) return { id: recorded.id, extra: recorded.extra };
    const external = desiredByAddress.get(address)?.external;
    return external ? { id: external.id } : undefined;
  };

  // `--parallelism` bounds the remote calls in flight, not the steps: a step journals its intent
  // and records its result outside its slot, so the state writes of some steps overlap the calls
  // of others and the walk runs at the pace of the provider, not of fsync.
  const parallelism = Math.max(1, options.parallelism ?? 10);
  const slot = limiter(parallelism);
  // An interrupt stops a step only before its first call: a step that has called the provider
  // finishes (a replacement that created its new resource still removes the old one).
  const remoteFor = () => {
    let started = false;
    return <R>(call: () => Promise<R>): Promise<R> =>
      slot(async () => {
        if (!started && signal.aborted) throw new Interrupted();
        started = true;
        return call();
      });
  };

  const usedBy = referencesInState(actions, store.state.resources);
  const retiring = retireAfterDependents(actions, store.state);
  // The old object of each of those replacements, handed from its step to its retirement.
  const replaced = new Map<string, PriorState>();
  const newStep = (action: PlannedAction) => {
    const warn = (message: string) => emit({ type: "warning", address: action.address, message });
    const ctx = runtime.context(action, lookup, requestSignal, warn);
    const step = new Step(
      action,
      desiredByAddress.get(action.address),
      options.hashed,
      store,
      runtime,
      ctx,
      remoteFor(),
      leftovers.get(action.address) ?? [],
    );
    step.replaced = replaced;
    return step;
  };
  const tasks = actions.map((action) => ({
    id: action.address,
    deps: isRemoval(action) ? (usedBy.get(action.address) ?? []) : action.dependsOn,
    run: async () => {
      const step = newStep(action);
      if (retiring.has(action.address)) step.retireLater = true;
      await step.run();
    },
  }));
  // A create-before-destroy replacement's old object goes once what references it is re-pointed.
  for (const [address, after] of retiring) {
    const action = actionByAddress.get(address)!;
    tasks.push({
      id: retireId(address),
      deps: [address, ...after],
      run: () => newStep(action).retire(),
    });
  }

  // Steps that failed or were skipped: a retirement waiting on its own replacement says nothing more.
  const unfinished = new Set<string>();
  const result = await walkGraph(tasks, {
    // One step waiting for a slot per step in a call: enough to keep every slot busy.
    parallelism: parallelism * 2,
    signal,
    onEvent: (event) => {
      const retired = retiredAddress(event.id);
      if (retired !== undefined) {
        if (event.type === "failed")
          emit({
            type: "failed",
            address: retired,
            action: "replace",
            ms: event.ms,
            message: messageOf(event.error),
          });
        else if (event.type === "skipped" && !unfinished.has(retired))
          emit({
            type: "warning",
            address: retired,
            message: `the old object is kept because ${event.because}; the next apply removes it`,
          });
        return;
      }
      const action = actionByAddress.get(event.id)!.action;
      if (event.type === "failed" || event.type === "skipped") unfinished.add(event.id);
      if (event.type === "start") emit({ type: "start", address: event.id, action });
      else if (event.type === "done")
        emit({
          type: "done",
          address: event.id,
          action,
          ms: event.ms,
          remoteId: store.state.resources[event.id]?.id,
        });
      else if (event.type === "failed")
        emit({ type: "failed", address: event.id, action, ms: event.ms, message: messageOf(event.error) });
      else emit({ type: "skipped", address: event.id, action, because: event.because });
    },
  });
  // A retirement is part of its replacement: it is reported under the replacement's address, and
  // one skipped is a warning above (the next apply removes the old object), not a skipped step.
  const skipped = result.skipped.filter((s) => retiredAddress(s.id) === undefined);
  return {
    ok: result.failed.length === 0 && skipped.length === 0,
    done: result.done.filter((id) => retiredAddress(id) === undefined),
    failed: result.failed.map((f) => ({
      address: retiredAddress(f.id) ?? f.id,
      message: messageOf(f.error),
    })),
    skipped: skipped.map((s) => ({ address: s.id, because: s.because })),
  };
}

/**
 * An update that removes the old object an interrupted create-before-destroy replacement left
 * (`strays` holds the id its journal entry `replaces`): the resources that reference the address
 * are updated before it goes, as in the replacement itself.
 */
function supersededLeft(action: PlannedAction, state: State): boolean {
  const old = state.pending?.[action.address]?.replaces;
  return old !== undefined && (action.strays ?? []).includes(old);
}

const RETIRE = "\u0000retire ";
const retireId = (address: string) => `${RETIRE}${address}`;
function retiredAddress(id: string): string | undefined {
  return id.startsWith(RETIRE) ? id.slice(RETIRE.length) : undefined;
}

/**
 * Create-before-destroy replacements of a recorded object that other recorded resources of this
 * plan reference (their actions re-point them at the new id): by address, those actions, which the
 * old object's removal waits for. A replacement nothing recorded references removes its old object
 * in its own step. When a re-pointing step fails or is interrupted, the old object stays (still in
 * use) and its journal entry (`replaces`) has the next apply remove it.
 */
function retireAfterDependents(actions: readonly PlannedAction[], state: State): Map<string, string[]> {
  const recorded = state.resources;
  const out = new Map<string, string[]>();
  for (const action of actions) {
    const replacing = action.action === "replace" && action.createBeforeDestroy && recorded[action.address];
    // Also the old object an interrupted replacement left (its dependents are re-pointed first).
    if (!replacing && !(action.action === "update" && supersededLeft(action, state))) continue;
    // Only a recorded dependent references the old object; a new one is made with the new id.
    const after = actions
      .filter(
        (a) =>
          !isRemoval(a) &&
          a.address !== action.address &&
          recorded[a.address] !== undefined &&
          a.dependsOn.includes(action.address),
      )
      .map((a) => a.address);
    if (after.length > 0) out.set(action.address, after);
  }
  return out;
}

/**
 * Forward actions wait for what they reference (`dependsOn`). A delete waits for every other
 * action on a resource that (per state) still references it, so nothing is deleted while in use:
 * by address, the actions whose recorded entry depends on it. One pass over the actions, not one
 * per delete (a 500-resource destroy would otherwise check 250,000 pairs before its first call).
 */
function referencesInState(
  actions: PlannedAction[],
  recorded: Record<string, ResourceState>,
): Map<string, string[]> {
  const usedBy = new Map<string, string[]>();
  for (const other of actions) {
    for (const dependency of new Set(recorded[other.address]?.dependsOn ?? [])) {
      if (dependency === other.address) continue;
      const users = usedBy.get(dependency);
      if (users) users.push(other.address);
      else usedBy.set(dependency, [other.address]);
    }
  }
  return usedBy;
}

let createsSeen = 0;
/**
 * Failpoint for crash tests: `AGENTS_FAILPOINT=after-create:N` kills the process right after the
 * N-th create returned and before its result is recorded (the worst moment for duplicates).
 */
function crashPoint(name: string): void {
  const spec = process.env.AGENTS_FAILPOINT;
  if (!spec?.startsWith(`${name}:`)) return;
  if (++createsSeen === Number(spec.slice(name.length + 1))) process.kill(process.pid, "SIGKILL");
}

/**
 * A create the provider refused because the name is taken by an object this project does not own:
 * never adopted (destroy would then remove someone else's object); the user imports it or renames.
 */
function foreignConflict(action: PlannedAction, error: ProviderHttpError): Error {
  return new Error(
    `${error.message}\nhint: the object this create conflicts with on ${action.provider} does not carry this ` +
      "project's ownership, so agents will not take it over. To manage it from this file, import it: " +
      `agents import '${action.address}' <its id>; otherwise change the declaration so that its name ` +
      "(or other unique key, such as an identity's external_id) is free",
  );
}

/** Every string in a JSON value (ids kept in a resource's extra), added to `into`. */
function collectStrings(value: unknown, into: Set<string>): void {
  if (typeof value === "string") into.add(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, into);
  else if (value && typeof value === "object")
    for (const item of Object.values(value)) collectStrings(item, into);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

class Step {
  constructor(
    private readonly action: PlannedAction,
    private readonly desired: DesiredResource | undefined,
    private readonly hashed: Map<string, Spec>,
    private readonly store: LockedState,
    private readonly runtime: ProviderRuntime,
    private readonly ctx: import("../providers/types.js").HandlerContext,
    /** Runs a call to the provider in one of the `--parallelism` slots. */
    private readonly remote: <R>(call: () => Promise<R>) => Promise<R>,
    /** Uploads an interrupted run journaled for this resource and never recorded. */
    private readonly leftovers: readonly UploadIntent[],
  ) {
    this.uploads = [...leftovers];
    if (leftovers.length > 0) ctx.leftoverUploads = leftovers;
    ctx.journalUpload = (intent) => this.journalUpload(intent);
  }

  /** Every upload journaled for this resource and not yet settled: the leftovers, then this run's. */
  private readonly uploads: UploadIntent[];
  /** The journal entry of this step's create, once written. */
  private intent: PendingCreate | undefined;
  /**
   * The old id, in a create-before-destroy replacement: the create's journal entry names it
   * (`replaces`) and recording the new object keeps that entry until the old one is removed, so a
   * run cut in between leaves the old object (now unrecorded) to the next plan, which removes it
   * as a stray instead of leaving a second live object of this address.
   */
  private replacing: string | undefined;

  /** Set when a later task removes this replacement's old object (after its dependents). */
  retireLater = false;
  /** Old objects of replacements whose removal waits, by address (see retireLater). */
  replaced = new Map<string, PriorState>();

  /** Journals an upload before it is sent, on the create's entry (or a new one for an update). */
  private async journalUpload(upload: UploadIntent): Promise<void> {
    this.uploads.push(upload);
    const { address, kind, name, provider } = this.action;
    this.intent = {
      ...(this.intent ?? { address, kind, name, provider, since: new Date().toISOString() }),
      uploads: [...this.uploads],
    };
    await this.store.intend(this.intent);
  }

  /**
   * Deletes the leftover uploads nothing uses: every id state records, and `result`'s, are kept.
   * Runs before the result is recorded, so a crash in between leaves the intents for the next run.
   */
  private async settleLeftovers(result?: RemoteObject, without?: string): Promise<void> {
    const handler = this.handler;
    if (this.leftovers.length === 0 || !handler.settleUploads) return;
    const keep = new Set<string>();
    for (const entry of Object.values(this.store.state.resources)) {
      if (entry.address !== without) collectStrings(entry.extra, keep.add(entry.id));
    }
    if (result) collectStrings(result.extra, keep.add(result.id));
    const settle = handler.settleUploads.bind(handler);
    await this.remote(() => settle(this.ctx, this.leftovers, keep));
  }

  private get handler(): KindHandler {
    return this.runtime.requireHandler(this.action.provider, this.action.kind, this.action.address);
  }

  private get prior(): PriorState | undefined {
    const r = this.store.state.resources[this.action.address];
    return r ? { id: r.id, spec: r.spec, extra: r.extra, version: r.version } : undefined;
  }

  private get spec(): Spec {
    if (!this.desired) throw new Error(`${this.action.address}: not declared in the current config`);
    return this.desired.spec;
  }

  async run(): Promise<void> {
    switch (this.action.action) {
      case "create":
        return this.create();
      case "update":
        return this.update();
      case "replace":
        return this.replace();
      case "adopt":
        return this.adopt(this.action.remoteId!);
      case "read":
        return this.record({ id: this.action.remoteId!, spec: {} }, true);
      case "delete":
        return this.delete();
      case "noop":
        return this.settleOnly();
      case "import":
        return this.importObject(this.action.remoteId!);
      case "forget":
        return this.forget();
    }
  }

  /**
   * An `import:` entry: the object is read again (it may have gone since the plan), updated when
   * the plan listed changes, and recorded. A kind that cannot be updated in place, or a change that
   * forces replacement, is recorded as `agents import` records it, the remote as last-applied, so
   * the next plan shows the replacement (the plan's reason said so).
   */
  private async importObject(id: string): Promise<void> {
    const handler = this.handler;
    const current = await this.remote(() => handler.read(this.ctx, id));
    if (current === "gone" || current.archived)
      throw new Error(
        `${this.action.address}: ${id} no longer exists remotely, so it cannot be imported; nothing was recorded. Run agents plan again`,
      );
    if (this.action.changes.length === 0) return this.record(current, false);
    // What cannot change in place is left to the next plan, which shows the replacement.
    if (handler.update && !this.action.changes.some((c) => c.forcesReplacement)) {
      const update = handler.update.bind(handler);
      const prior: PriorState = { id, spec: current.spec, extra: current.extra, version: current.version };
      return this.record(await this.remote(() => update(this.ctx, id, this.spec, prior)), false);
    }
    const entry = importedEntry(this.desired!, current);
    await this.store.update((resources, state) => {
      resources[entry.address] = entry;
      delete state.pending![entry.address];
    });
  }

  /** A `removed:` entry with `destroy: false`: state drops the resource; nothing is called. */
  private async forget(): Promise<void> {
    const { address } = this.action;
    await this.store.update((resources, state) => {
      delete resources[address];
      delete state.pending![address];
    });
  }

  /** Nothing to change, but an interrupted run left uploads for this resource: settle them. */
  private async settleOnly(): Promise<void> {
    await this.settleLeftovers();
    await this.store.update((_resources, state) => {
      delete state.pending![this.action.address];
    });
  }

  private async create(): Promise<void> {
    const { address, kind, name, provider } = this.action;
    // A create journaled by an earlier run and never recorded: that run's request may have made
    // the object the provider now answers a name conflict with.
    const journaled = this.store.state.pending?.[address] !== undefined;
    // Uploads left by an interrupted run stay journaled until they are settled.
    this.intent = {
      address,
      kind,
      name,
      provider,
      since: new Date().toISOString(),
      ...(this.uploads.length > 0 ? { uploads: [...this.uploads] } : {}),
      ...(this.replacing ? { replaces: this.replacing } : {}),
    };
    await this.store.intend(this.intent);
    let remote: RemoteObject;
    try {
      remote = await this.remote(() => this.handler.create(this.ctx, this.spec));
    } catch (error) {
      if (!(error instanceof ProviderHttpError && error.conflict)) throw error;
      // A conflict may be our own resource from an earlier, interrupted run: adopt it.
      const found = await this.findMine(journaled);
      if (!found) throw foreignConflict(this.action, error);
      this.ctx.warn(`create conflicted; adopted ${found.id}, which this project already owns`);
      return this.adopt(found.id);
    }
    crashPoint("after-create");
    await this.record(remote, false);
  }

  /**
   * The object a conflicting create collided with, when it is this project's: it carries this
   * resource's ownership metadata, or (kinds that cannot carry any) it holds the create's unique
   * name while an earlier run's create of this address was journaled and never recorded. Never an
   * object state records, here or under another address.
   */
  private async findMine(journaled: boolean): Promise<RemoteObject | undefined> {
    const handler = this.handler;
    // Ids are unique per provider only: another provider may use the same id for its own object.
    const recorded = new Set(
      Object.values(this.store.state.resources)
        .filter((r) => r.provider === this.action.provider)
        .map((r) => r.id),
    );
    const usable = (found: RemoteObject | undefined) =>
      found && !found.archived && !recorded.has(found.id) ? found : undefined;
    if (handler.findOwned) {
      const findOwned = handler.findOwned.bind(handler);
      const owned = usable(await this.remote(() => findOwned(this.ctx, this.ctx.owner, recorded)));
      if (owned) return owned;
    }
    if (handler.findNamed && journaled) {
      const findNamed = handler.findNamed.bind(handler);
      return usable(await this.remote(() => findNamed(this.ctx, this.spec)));
    }
    return undefined;
  }

  private async adopt(id: string): Promise<void> {
    const handler = this.handler;
    const current = await this.remote(() => handler.read(this.ctx, id));
    if (current === "gone" || current.archived)
      throw new Error(`${this.action.address}: ${id} vanished before adoption`);
    const prior: PriorState = { id, spec: current.spec, extra: current.extra, version: current.version };
    const needsUpdate = this.action.changes.length > 0 || this.action.action !== "adopt";
    if (needsUpdate && handler.update) {
      const update = handler.update.bind(handler);
      await this.record(await this.remote(() => update(this.ctx, id, this.spec, prior)), false);
    } else if (needsUpdate && handler.complete) {
      // No in-place update: an object a crash left half-made gets only what it lacks.
      const complete = handler.complete.bind(handler);
      await this.record(await this.remote(() => complete(this.ctx, id, this.spec, current)), false);
    } else {
      await this.record(current, false);
    }
  }

  /** Objects of this address an interrupted replacement left unrecorded (plan: `strays`). */
  private async removeStrays(prior: PriorState | undefined): Promise<void> {
    for (const stray of this.action.strays ?? []) {
      await this.remote(() => this.handler.remove(this.ctx, stray, prior));
    }
  }

  private async update(): Promise<void> {
    const prior = this.prior;
    if (!prior) throw new Error(`${this.action.address}: not in state`);
    try {
      const handler = this.handler;
      // The old object an interrupted replacement left goes in retire(), after its dependents;
      // until then its journal entry stays (`replacing` keeps record() from clearing it).
      if (this.retireLater) this.replacing = prior.id;
      else await this.removeStrays(prior);
      if (this.action.changes.length === 0 && this.action.strays?.length) {
        // Only the objects an interrupted replacement left: the recorded one is up to date.
        if (!this.retireLater)
          await this.store.update((_resources, state) => {
            delete state.pending![this.action.address];
          });
        return;
      }
      const spec = await this.updateSpec(prior);
      await this.record(await this.remote(() => handler.update!(this.ctx, prior.id, spec, prior)), false);
    } catch (error) {
      if (!(error instanceof ProviderHttpError && error.status === 404)) throw error;
      // The plan said update; a create now would do something nobody reviewed.
      throw new Error(
        `${this.action.address}: changed since the plan: ${prior.id} no longer exists remotely, so it cannot be updated; ` +
          "nothing was created. Run agents plan again (it will show a create)",
      );
    }
  }

  /**
   * What an update sends: the declaration, except that fields under `lifecycle.ignore_changes`
   * keep what the remote holds now (read just before, so a change made there since the plan is
   * kept too).
   */
  private async updateSpec(prior: PriorState): Promise<Spec> {
    const rules = this.desired?.lifecycle;
    if (!Array.isArray(rules?.ignoreChanges) || rules.ignoreChanges.length === 0) return this.spec;
    const handler = this.handler;
    const current = await this.remote(() => handler.read(this.ctx, prior.id, prior));
    if (current === "gone") return this.spec;
    return keepIgnored(this.spec, current.spec, rules, handler.sensitive);
  }

  private async replace(): Promise<void> {
    const prior = this.prior;
    if (!prior) return this.create();
    if (this.action.createBeforeDestroy) {
      // The new object an interrupted run of this replacement created is adopted, not made again.
      this.replacing = prior.id;
      if (this.action.adoptId) {
        const { address, kind, name, provider } = this.action;
        const since = new Date().toISOString();
        const uploads = this.uploads.length > 0 ? { uploads: [...this.uploads] } : {};
        this.intent = { address, kind, name, provider, since, ...uploads, replaces: prior.id };
        await this.store.intend(this.intent);
        await this.adopt(this.action.adoptId);
      } else await this.create();
      // The journal entry (`replaces`) stands for the old object until it is removed.
      if (this.retireLater) {
        this.replaced.set(this.action.address, prior);
        return;
      }
      return this.removeReplaced(prior);
    }
    await this.remote(() => this.handler.remove(this.ctx, prior.id, prior));
    await this.store.update((resources) => {
      delete resources[this.action.address];
    });
    await this.create();
  }

  /** The old object of a create-before-destroy replacement, once what referenced it is re-pointed. */
  async retire(): Promise<void> {
    const old = this.replaced.get(this.action.address);
    if (old) return this.removeReplaced(old);
    // An update removing what an interrupted replacement left.
    await this.removeStrays(this.prior);
    await this.store.update((_resources, state) => {
      delete state.pending![this.action.address];
    });
  }

  private async removeReplaced(prior: PriorState): Promise<void> {
    try {
      await this.remote(() => this.handler.remove(this.ctx, prior.id, prior));
    } catch (error) {
      throw new Error(
        `${this.action.address}: replacement ${this.store.state.resources[this.action.address]?.id} is recorded, ` +
          `but removing the old ${prior.id} failed (${messageOf(error)}); the next apply removes it`,
      );
    }
    await this.store.update((_resources, state) => {
      delete state.pending![this.action.address];
    });
  }

  private async delete(): Promise<void> {
    const { address } = this.action;
    const prior = this.prior;
    if (!this.action.external && this.action.remoteId) {
      const remoteId = this.action.remoteId;
      await this.remote(() => this.handler.remove(this.ctx, remoteId, prior));
    }
    await this.removeStrays(prior);
    await this.settleLeftovers(undefined, address);
    await this.store.update((resources, state) => {
      delete resources[address];
      delete state.pending![address];
    });
  }

  private async record(remote: RemoteObject, external: boolean): Promise<void> {
    const desired = this.desired!;
    await this.settleLeftovers(remote);
    const entry: ResourceState = {
      address: desired.address,
      kind: desired.kind,
      name: desired.name,
      provider: desired.provider,
      id: remote.id,
      external,
      spec: this.hashed.get(desired.address) ?? {},
      ...(remote.extra ? { extra: remote.extra } : {}),
      ...(remote.version !== undefined ? { version: remote.version } : {}),
      dependsOn: [...desired.dependsOn].sort(),
      updatedAt: new Date().toISOString(),
      ...(desired.lifecycle?.preventDestroy ? { preventDestroy: true as const } : {}),
    };
    await this.store.update((resources, state) => {
      resources[desired.address] = entry;
      if (!this.replacing) delete state.pending![desired.address];
    });
  }
}
