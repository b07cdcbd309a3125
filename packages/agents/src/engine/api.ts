// The library API the CLI uses: plan, apply, destroy, import and state commands over a loaded
// project. Nothing here writes to the terminal; progress arrives as events.
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { hasDeferred, preflightRemovals, runDeferred } from "../apply/deferred.js";
import { type ApplyEvent, type ExecuteResult, executePlan } from "../apply/execute.js";
import { loadDotenv } from "../config/dotenv.js";
import { configHash, prepareDesired } from "../plan/bind.js";
import { planWithSpecs } from "../plan/planner.js";
import { scopeDesired } from "../plan/scope.js";
import { hasChanges, incompleteMessage, type Plan, PlanError, refreshErrors } from "../plan/types.js";
import { ALL_ADAPTERS } from "../providers/catalog.js";
import { baseUrlsFromEnv } from "../providers/endpoint.js";
import type { HttpEnvironment, RetryNotice } from "../providers/http.js";
import { ProviderRuntime } from "../providers/registry.js";
import type { ProviderAdapter, Spec } from "../providers/types.js";
import type { StateBackend } from "../state/backend.js";
import { FileBackend, STATE_FILE_NAME } from "../state/file-store.js";
import { LockedState } from "../state/locked-state.js";
import { loadStateKey } from "../state/secrets.js";
import { openBackend } from "../state/settings.js";
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
  stateKey?: Buffer;
  providers?: string[];
  targets?: string[];
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

/** Reads the state without locking it. */
export async function readProjectState(options: Pick<EngineOptions, "backend" | "statePath" | "project">) {
  const { backend, owned } = backendFor(options);
  try {
    return await backend.read();
  } finally {
    if (owned) await backend.close();
  }
}

/** Runs `run` holding the state lock; releases it (and closes a backend opened here) afterwards. */
export async function withState<T>(
  options: Pick<EngineOptions, "backend" | "statePath" | "project" | "command">,
  run: (store: LockedState) => Promise<T>,
  command = options.command ?? "agents",
): Promise<T> {
  const { backend, owned } = backendFor(options);
  try {
    const store = await LockedState.open(backend, command);
    try {
      return await run(store);
    } finally {
      await store.release();
    }
  } finally {
    if (owned) await backend.close();
  }
}

/** Refreshes and plans; holds the state lock while reading but never writes state. */
export async function plan(options: EngineOptions & { operation?: "apply" | "destroy" }): Promise<Plan> {
  const runtime = createRuntime(options);
  return withState(
    { command: "agents plan", ...options },
    async (store) => (await planWith(store, runtime, options)).plan,
  );
}

function planWith(
  store: LockedState,
  runtime: ProviderRuntime,
  options: EngineOptions & { operation?: "apply" | "destroy" },
) {
  return planWithSpecs({
    desired: options.project.desired,
    state: store.state,
    runtime,
    stateKey: options.stateKey ?? loadStateKey(options.env),
    operation: options.operation ?? "apply",
    providers: options.providers,
    targets: options.targets,
    concurrency: options.refreshConcurrency,
    signal: options.signal,
  });
}

export function apply(options: ApplyOptions): Promise<ApplyOutcome> {
  return run({ command: "agents apply", ...options }, "apply");
}

export function destroy(options: ApplyOptions): Promise<ApplyOutcome> {
  return run({ command: "agents destroy", ...options }, "destroy");
}

async function run(options: ApplyOptions, operation: "apply" | "destroy"): Promise<ApplyOutcome> {
  // --cascade widens what a destroy may end; an apply never gets it.
  const runtime = createRuntime({ ...options, cascade: operation === "destroy" && options.cascade === true });
  const stateKey = options.stateKey ?? loadStateKey(options.env);
  return withState(options, async (store) => {
    if (store.upgradedFrom !== undefined) await store.persist();
    let planned: Plan;
    let hashed: Map<string, Spec>;
    if (options.savedPlan) {
      planned = options.savedPlan;
      const scoped = operation === "destroy" ? [] : scopeDesired(options.project.desired, planned.scope);
      hashed = await prepareDesired(scoped, runtime, stateKey);
      checkSavedPlan(planned, store, configHash(scoped, hashed), operation);
    } else {
      ({ plan: planned, hashed } = await planWith(store, runtime, { ...options, stateKey, operation }));
    }
    options.onPlan?.(planned);
    // Never act on a plan that could not read part of the remote (it may be wrong anywhere).
    if (refreshErrors(planned).length > 0)
      throw new PlanError(`nothing was changed: ${incompleteMessage(planned)}`, "refresh_failed");
    const httpCalls = () => runtime.httpFactory.stats.calls;
    // A destroy also resumes follow-up work an earlier one could not finish.
    const resume = operation === "destroy" && hasDeferred(store);
    if (!hasChanges(planned) && !resume) return { plan: planned, confirmed: true, httpCalls: httpCalls() };
    if (options.confirm && !(await options.confirm(planned))) {
      return { plan: planned, confirmed: false, httpCalls: httpCalls() };
    }
    const signal = options.signal ?? new AbortController().signal;
    const warn = (address: string, message: string) =>
      options.onEvent?.({ type: "warning", address, message });
    let result: ExecuteResult = { ok: true, done: [], failed: [], skipped: [] };
    if (hasChanges(planned)) {
      await preflightRemovals(planned, store, runtime, signal, warn);
      result = await executePlan({
        plan: planned,
        desired: options.project.desired,
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
  return plan;
}
