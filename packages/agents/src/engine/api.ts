// The library API the CLI uses: plan, apply, destroy, import and state commands over a loaded
// project. Nothing here writes to the terminal; progress arrives as events.
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { hasDeferred, preflightRemovals, runDeferred } from "../apply/deferred.js";
import { type ApplyEvent, type ExecuteResult, executePlan } from "../apply/execute.js";
import { recordMoves } from "../apply/moves.js";
import { loadDotenv } from "../config/dotenv.js";
import { configHash, prepareDesired } from "../plan/bind.js";
import { protectionUpdates, refuseProtected } from "../plan/lifecycle.js";
import { planWithSpecs } from "../plan/planner.js";
import { scopeDesired } from "../plan/scope.js";
import {
  hasChanges,
  incompleteMessage,
  NEW_STATE,
  type Plan,
  PlanError,
  refreshErrors,
} from "../plan/types.js";
import { ALL_ADAPTERS } from "../providers/catalog.js";
import { baseUrlsFromEnv } from "../providers/endpoint.js";
import type { HttpEnvironment, RetryNotice } from "../providers/http.js";
import { ProviderRuntime } from "../providers/registry.js";
import type { ProviderAdapter, Spec } from "../providers/types.js";
import type { StateBackend, StateRead } from "../state/backend.js";
import { FileBackend, STATE_FILE_NAME } from "../state/file-store.js";
import { LockedState } from "../state/locked-state.js";
import { hashSecrets, legacyStateKeys, rekeyHashes, stateHashKey } from "../state/secrets.js";
import { openBackend } from "../state/settings.js";
import type { LockInfo, ResourceState, State } from "../state/types.js";
import { writeAtomically } from "../state/write.js";
import { asIdentity, resolveIdentity } from "./identity.js";
import type { LoadedProject } from "./project.js";

export interface EngineOptions {
  project: LoadedProject;
  /**
   * The adapters that talk to the providers. Default: every adapter in the catalog, as for
   * `loadProject`; pass the same list to both when you narrow it.
   */
  adapters?: ProviderAdapter[];
  /** A state file to use instead of the project's state settings (`project.state`). */
  statePath?: string;
  /** An open backend to use (the caller closes it); wins over statePath and project.state. */
  backend?: StateBackend;
  /**
   * The key of the state's keyed hashes of secret fields. Default: the state's own (`hashKey`);
   * tests may fix one.
   */
  stateKey?: Buffer;
  providers?: string[];
  targets?: string[];
  /**
   * `--replace ADDRESS` (plan and apply): replace these declared resources although nothing
   * forces it; an address that names no declared, recorded resource is refused.
   */
  replace?: string[];
  /** Remote reads in flight during refresh (default 10). */
  refreshConcurrency?: number;
  /**
   * Per provider base-URL overrides; default: the AGENTS_BASE_URL_<PROVIDER> variables of `env`
   * and the project's `.env` (plain http:// to a host that is not loopback is refused there).
   */
  baseUrls?: Partial<Record<string, string>>;
  http?: HttpEnvironment;
  /** Each HTTP retry about to wait (the CLI prints it: a long retry loop is never silent). */
  onRetry?: (notice: RetryNotice) => void;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Label written into the lock file. */
  command?: string;
  /**
   * A line about how the run reads the state, for stderr: today, that the state's recorded project
   * name is used instead of the folder's (engine/identity.ts).
   */
  onNotice?: (line: string) => void;
  /** The lock just taken (the CLI names its id if the user quits at once, leaving it held). */
  onLocked?: (lock: LockInfo) => void;
}

export interface ApplyOptions extends EngineOptions {
  /** A saved plan to apply exactly; refused when state or config changed since. */
  savedPlan?: Plan;
  parallelism?: number;
  /** Asked after planning when there are changes; false stops without changing anything. */
  confirm?: (plan: Plan) => Promise<boolean>;
  onPlan?: (plan: Plan) => void;
  onEvent?: (event: ApplyEvent) => void;
  /**
   * Destroy only: let handlers end provider-side dependents the project does not declare (e.g.
   * sessions holding an environment) when they block a removal. See docs/engine.md.
   */
  cascade?: boolean;
}

export interface ApplyOutcome {
  plan: Plan;
  /** Undefined when nothing ran (no changes, or not confirmed). */
  result?: ExecuteResult;
  confirmed: boolean;
  httpCalls: number;
}

function statePathFor(options: Pick<EngineOptions, "statePath" | "project">): string {
  return options.statePath ?? join(dirname(options.project.configPath), STATE_FILE_NAME);
}

/**
 * The environment the engine reads its own variables from (AGENTS_BASE_URL_<PROVIDER>): the
 * project's `.env` files under the process environment, as for `${VAR}` in agents.yaml.
 */
function engineEnv(options: Pick<EngineOptions, "env" | "project">): NodeJS.ProcessEnv {
  return { ...loadDotenv(options.project.configDir).values, ...(options.env ?? process.env) };
}

export function createRuntime(options: EngineOptions & { cascade?: boolean }): ProviderRuntime {
  return new ProviderRuntime({
    adapters: options.adapters ?? ALL_ADAPTERS,
    blocks: options.project.blocks,
    project: options.project.project,
    configDir: options.project.configDir,
    secrets: options.project.secrets,
    baseUrls: options.baseUrls ?? baseUrlsFromEnv(engineEnv(options), options.project.blocks),
    http: {
      ...options.http,
      policy: { ...options.http?.policy },
      ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    },
    ...(options.cascade ? { cascade: true } : {}),
  });
}

/** The backend the options name: an explicit one, a state file path, or the project's settings. */
function backendFor(options: Pick<EngineOptions, "backend" | "statePath" | "project">): {
  backend: StateBackend;
  owned: boolean;
} {
  if (options.backend) return { backend: options.backend, owned: false };
  if (options.statePath || !options.project.state)
    return { backend: new FileBackend(statePathFor(options)), owned: true };
  return { backend: openBackend(options.project.state), owned: true };
}

/**
 * Reads the state without locking it; `project` is the project as that state knows it (its
 * recorded name wins over the folder's, as in withState, and `onNotice` hears when it did).
 */
export async function readProjectState(
  options: Pick<EngineOptions, "backend" | "statePath" | "project" | "onNotice">,
): Promise<StateRead & { location: string; project: LoadedProject }> {
  const { backend, owned } = backendFor(options);
  try {
    const read = await backend.read();
    const identity = resolveIdentity(options.project, read.state, backend.location);
    if (identity.notice) options.onNotice?.(identity.notice);
    return { ...read, location: backend.location, project: asIdentity(options.project, identity) };
  } finally {
    if (owned) await backend.close();
  }
}

/**
 * Runs `run` holding the state lock; releases it (and closes a backend opened here) afterwards.
 * `run` gets the project as this state knows it: the state's recorded project name wins over the
 * folder's (engine/identity.ts), and `onNotice` hears when it did.
 */
export async function withState<T>(
  options: Pick<EngineOptions, "backend" | "statePath" | "project" | "command" | "onNotice" | "onLocked">,
  run: (store: LockedState, project: LoadedProject) => Promise<T>,
  command = options.command ?? "agents",
): Promise<T> {
  const { backend, owned } = backendFor(options);
  try {
    const store = await LockedState.open(backend, command);
    options.onLocked?.(store.lock);
    try {
      const identity = resolveIdentity(options.project, store.state, backend.location);
      if (identity.notice) options.onNotice?.(identity.notice);
      return await run(store, asIdentity(options.project, identity));
    } finally {
      await store.release();
    }
  } finally {
    if (owned) await backend.close();
  }
}

/** Refreshes and plans; holds the state lock while reading but never writes state. */
export async function plan(options: EngineOptions & { operation?: "apply" | "destroy" }): Promise<Plan> {
  return withState({ command: "agents plan", ...options }, async (store, project) => {
    const runtime = createRuntime({ ...options, project });
    const view = await stateView(store, project, runtime, options);
    const made = (await planWith(view, project, runtime, options)).plan;
    // A state that does not exist yet got a lineage and a hash key made up by this read: the plan
    // keeps them, so its apply can give the new state the identity the plan was made for.
    if (!store.existed && store.state.hashKey) made[NEW_STATE] = { hashKey: store.state.hashKey };
    return made;
  });
}

/**
 * The state as this run compares with it: the key of its keyed hashes, and a state older than v2
 * with each stored hash that a per-user key of the old scheme reproduces from the declared value
 * re-keyed to the state's key (so it does not show as changed). `migrate` records the project,
 * the key and those entries on the run's next write; undefined when there is nothing to record.
 */
interface StateView {
  state: State;
  key: Buffer;
  backend: StateBackend;
  migrate?: (resources: Record<string, ResourceState>, state: State) => void;
}

async function stateView(
  store: LockedState,
  project: LoadedProject,
  runtime: ProviderRuntime,
  options: EngineOptions,
): Promise<StateView> {
  const state = store.state;
  const key = options.stateKey ?? stateHashKey(state);
  const rekeyed: Record<string, ResourceState> = {};
  const legacy = state.hashKey ? [] : legacyStateKeys(engineEnv(options));
  for (const r of legacy.length > 0 ? project.desired : []) {
    const prior = state.resources[r.address];
    const handler = runtime.handler(r.provider, r.kind);
    if (!prior || prior.external || !handler?.sensitive?.length) continue;
    const declared = (await handler.desired?.(r.spec, { configDir: project.configDir })) ?? r.spec;
    const { provider: _pin, ...comparable } = declared;
    const after = hashSecrets(comparable, handler.sensitive, key);
    let spec: unknown = prior.spec;
    for (const old of legacy)
      spec = rekeyHashes(spec, hashSecrets(comparable, handler.sensitive, old), after);
    if (JSON.stringify(spec) !== JSON.stringify(prior.spec))
      rekeyed[r.address] = { ...prior, spec: spec as Spec };
  }
  const view: StateView = {
    state:
      Object.keys(rekeyed).length > 0 ? { ...state, resources: { ...state.resources, ...rekeyed } } : state,
    key,
    backend: store.backend,
  };
  if (state.project !== project.project || !state.hashKey || Object.keys(rekeyed).length > 0)
    view.migrate = (resources, next) => {
      next.project = project.project;
      next.hashKey ??= key.toString("hex");
      Object.assign(resources, rekeyed);
    };
  return view;
}

function planWith(
  view: StateView,
  project: LoadedProject,
  runtime: ProviderRuntime,
  options: EngineOptions & { operation?: "apply" | "destroy" },
) {
  return planWithSpecs({
    desired: project.desired,
    state: view.state,
    runtime,
    stateKey: view.key,
    operation: options.operation ?? "apply",
    providers: options.providers,
    targets: options.targets,
    replace: options.replace,
    concurrency: options.refreshConcurrency,
    signal: options.signal,
    source: { backend: view.backend.kind, location: view.backend.location, project: project.project },
    ...(project.stateBlocks ? { blocks: project.stateBlocks } : {}),
  });
}

export function apply(options: ApplyOptions): Promise<ApplyOutcome> {
  return run({ command: "agents apply", ...options }, "apply");
}

export function destroy(options: ApplyOptions): Promise<ApplyOutcome> {
  return run({ command: "agents destroy", ...options }, "destroy");
}

async function run(options: ApplyOptions, operation: "apply" | "destroy"): Promise<ApplyOutcome> {
  return withState(options, async (store, project) => {
    // --cascade widens what a destroy may end; an apply never gets it.
    const runtime = createRuntime({
      ...options,
      project,
      cascade: operation === "destroy" && options.cascade === true,
    });
    // A plan saved before the first apply: while the state is still absent, it takes the identity
    // the plan was made for (otherwise checkSavedPlan refuses the plan as made for another state).
    const fresh = options.savedPlan?.[NEW_STATE];
    if (fresh && options.savedPlan?.state.serial === 0)
      store.adoptIdentity(options.savedPlan.state.lineage, fresh.hashKey);
    const view = await stateView(store, project, runtime, options);
    // Migrate on write: an upgraded state is written at once; the project and the hash key are
    // recorded before the first create is sent (a crash must not leave creates behind that another
    // clone would look up under its own folder's name).
    const migrate = async () => {
      if (view.migrate) await store.update(view.migrate);
      else if (store.upgradedFrom !== undefined) await store.persist();
    };
    let planned: Plan;
    let hashed: Map<string, Spec>;
    if (options.savedPlan) {
      planned = options.savedPlan;
      const scoped = operation === "destroy" ? [] : scopeDesired(project.desired, planned.scope);
      hashed = await prepareDesired(scoped, runtime, view.key);
      checkSavedPlan(planned, store, configHash(scoped, hashed), operation);
      // The rule may have been set since the plan was saved; the plan itself names no rule.
      refuseProtected(planned.actions, project.desired, view.state, operation);
    } else {
      ({ plan: planned, hashed } = await planWith(view, project, runtime, { ...options, operation }));
    }
    options.onPlan?.(planned);
    // Never act on a plan that could not read part of the remote (it may be wrong anywhere).
    if (refreshErrors(planned).length > 0)
      throw new PlanError(`nothing was changed: ${incompleteMessage(planned)}`, "refresh_failed");
    const httpCalls = () => runtime.httpFactory.stats.calls;
    // A destroy also resumes follow-up work an earlier one could not finish.
    const resume = operation === "destroy" && hasDeferred(store);
    // prevent_destroy as declared now is recorded for each resource, so it still holds once the
    // declaration is removed from the file (a plan without other changes records it too).
    const recordProtection = async () => {
      const changed = operation === "apply" ? protectionUpdates(store.state, project.desired) : [];
      if (changed.length > 0)
        await store.update((resources) => {
          for (const entry of changed) resources[entry.address] = entry;
        });
    };
    if (!hasChanges(planned) && !resume) {
      if ((store.existed && operation === "apply") || store.upgradedFrom !== undefined) await migrate();
      await recordProtection();
      return { plan: planned, confirmed: true, httpCalls: httpCalls() };
    }
    if (options.confirm && !(await options.confirm(planned))) {
      return { plan: planned, confirmed: false, httpCalls: httpCalls() };
    }
    await migrate();
    const signal = options.signal ?? new AbortController().signal;
    const warn = (address: string, message: string) =>
      options.onEvent?.({ type: "warning", address, message });
    let result: ExecuteResult = { ok: true, done: [], failed: [], skipped: [] };
    if (hasChanges(planned)) {
      await recordMoves(planned, store);
      await preflightRemovals(planned, store, runtime, signal, warn);
      result = await executePlan({
        plan: planned,
        desired: project.desired,
        hashed,
        store,
        runtime,
        parallelism: options.parallelism,
        onEvent: options.onEvent,
        signal: options.signal,
      });
    }
    const deferred = await runDeferred(store, runtime, signal, warn, (address, ms) =>
      options.onEvent?.({ type: "done", address, action: "delete", ms }),
    );
    if (deferred.failed.length > 0)
      result = { ...result, ok: false, failed: [...result.failed, ...deferred.failed] };
    await recordProtection();
    return { plan: planned, result, confirmed: true, httpCalls: httpCalls() };
  });
}

function checkSavedPlan(saved: Plan, store: LockedState, hash: string, operation: string): void {
  if (saved.operation !== operation) {
    throw new PlanError(`the saved plan is a ${saved.operation} plan, not ${operation}`, "stale_plan");
  }
  const now = store.state;
  if (saved.state.lineage !== now.lineage) {
    throw new PlanError(
      `the saved plan was made for a different state (lineage ${saved.state.lineage}, this state is ${now.lineage}); run agents plan again`,
      "stale_plan",
    );
  }
  if (saved.state.serial !== now.serial) {
    throw new PlanError(
      `the state changed since the plan was saved (serial ${saved.state.serial} → ${now.serial}); run agents plan again`,
      "stale_plan",
    );
  }
  if (saved.configHash !== hash) {
    throw new PlanError(
      "agents.yaml (or a secret it uses) changed since the plan was saved; run agents plan again",
      "stale_plan",
    );
  }
}

/**
 * Saves `plan` for `agents apply FILE`: the plan as `plan --json` prints it, plus, for a plan made
 * against a state that does not exist yet, `newState` (that state's hash key). Replaced
 * atomically, 0600 also when FILE existed: with a hash key next to a keyed hash of the
 * declarations, the file is as sensitive as a state file (docs/state.md §Saved plans before the
 * first apply).
 */
export async function writePlanFile(path: string, plan: Plan): Promise<void> {
  const fresh = plan[NEW_STATE];
  await writeAtomically(path, `${JSON.stringify(fresh ? { ...plan, newState: fresh } : plan, null, 2)}\n`);
}

export async function readPlanFile(path: string): Promise<Plan> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new PlanError(`${path}: not a saved plan (${(error as Error).message})`, "bad_plan_file");
  }
  const plan = parsed as Plan;
  if (plan?.formatVersion !== 1 || !Array.isArray(plan.actions) || !plan.state) {
    throw new PlanError(`${path}: not a saved plan (expected formatVersion 1 with actions)`, "bad_plan_file");
  }
  const { newState, ...rest } = parsed as Plan & { newState?: unknown };
  if (newState === undefined) return plan;
  const hashKey = (newState as { hashKey?: unknown } | null)?.hashKey;
  if (typeof hashKey !== "string" || !/^[0-9a-f]{64}$/.test(hashKey))
    throw new PlanError(
      `${path}: not a saved plan (newState.hashKey must be 64 hex digits)`,
      "bad_plan_file",
    );
  return Object.assign(rest as Plan, { [NEW_STATE]: { hashKey } });
}
