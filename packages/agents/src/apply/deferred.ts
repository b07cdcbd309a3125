// Removal preflight and deferred follow-up work (ProviderAdapter hooks `preflightRemove`,
// `HandlerContext.defer`, `deferred`). Used for provider_b's default memory store: its id must be
// captured and persisted before the Template and Identity are removed, a lookup failure must
// abort the destroy before anything is deleted, and the permanent delete runs after those
// removals, stays in state when it cannot finish, and is resumed by the next destroy.
import type { Plan } from "../plan/types.js";
import type { ProviderRuntime } from "../providers/registry.js";
import type { DeferredTask } from "../providers/types.js";
import type { LockedState } from "../state/locked-state.js";

function lookupIn(store: LockedState) {
  return (address: string) => {
    const recorded = store.state.resources[address];
    return recorded ? { id: recorded.id, extra: recorded.extra } : undefined;
  };
}

/**
 * Calls `preflightRemove` for every resource the plan deletes, before the first removal. A
 * failure propagates: nothing has been deleted. Tasks the handlers defer are written to state.
 */
export async function preflightRemovals(
  plan: Plan,
  store: LockedState,
  runtime: ProviderRuntime,
  signal: AbortSignal,
  warn: (address: string, message: string) => void,
): Promise<void> {
  for (const action of plan.actions) {
    if (action.action !== "delete" || action.external) continue;
    const handler = runtime.handler(action.provider, action.kind);
    const prior = store.state.resources[action.address];
    if (!handler?.preflightRemove || !prior) continue;
    const defer = (task: DeferredTask) =>
      store
        .update((_resources, state) => {
          state.deferred ??= {};
          state.deferred[task.key] = {
            ...task,
            provider: action.provider,
            address: action.address,
            since: new Date().toISOString(),
          };
        })
        .then(() => undefined);
    const ctx = runtime.context(action, lookupIn(store), signal, (m) => warn(action.address, m), defer);
    try {
      await handler.preflightRemove(ctx, prior.id, {
        id: prior.id,
        spec: prior.spec,
        extra: prior.extra,
        version: prior.version,
      });
    } catch (error) {
      throw new Error(
        `${action.address}: destroy preflight failed, nothing was deleted: ${(error as Error).message}`,
      );
    }
  }
}

interface DeferredOutcome {
  done: string[];
  failed: Array<{ address: string; message: string }>;
}

/** Runs every recorded task whose originating resource is gone from state; failures stay recorded. */
export async function runDeferred(
  store: LockedState,
  runtime: ProviderRuntime,
  signal: AbortSignal,
  warn: (address: string, message: string) => void,
  /** Told of each finished task, so the user sees the follow-up work, not only its failures. */
  onDone?: (label: string, ms: number) => void,
): Promise<DeferredOutcome> {
  const outcome: DeferredOutcome = { done: [], failed: [] };
  for (const record of Object.values(store.state.deferred ?? {})) {
    if (store.state.resources[record.address]) continue; // its resource still exists
    const label = `${record.address} (${record.description})`;
    const runner = runtime.deferredHandler(record.provider, record.type);
    if (!runner) {
      outcome.failed.push({
        address: label,
        message: `no runner for deferred task ${record.type} in this build`,
      });
      continue;
    }
    const ctx = runtime.context(record, lookupIn(store), signal, (m) => warn(record.address, m));
    const started = performance.now();
    try {
      await runner.run(ctx, record.data);
      await store.update((_resources, state) => {
        delete state.deferred?.[record.key];
        if (state.deferred && Object.keys(state.deferred).length === 0) delete state.deferred;
      });
      outcome.done.push(label);
      onDone?.(label, performance.now() - started);
    } catch (error) {
      outcome.failed.push({
        address: label,
        message: `partial destroy: ${(error as Error).message}; the task is kept in state and the next destroy resumes it`,
      });
    }
  }
  return outcome;
}

export function hasDeferred(store: LockedState): boolean {
  return Object.keys(store.state.deferred ?? {}).length > 0;
}
