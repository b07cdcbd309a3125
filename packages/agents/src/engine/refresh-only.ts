// `plan --refresh-only` / `apply --refresh-only` (Terraform's semantics): read every recorded
// resource in scope, show what changed outside agents, and on apply accept it into the state.
// Nothing here sends a write to a provider: only the handlers' reads run, and the state is the one
// thing written. agents.yaml is not compared at all (a normal plan does that).
import { sameValue } from "../plan/diff.js";
import { type RefreshResult, refresh } from "../plan/refresh.js";
import { scopeState } from "../plan/scope.js";
import { PlanError, type RefreshError } from "../plan/types.js";
import type { ProviderRuntime } from "../providers/registry.js";
import type { ResourceState } from "../state/types.js";
import { createRuntime, type EngineOptions, withState } from "./api.js";

export interface DriftChange {
  /** Top-level field of the resource's spec. */
  path: string;
  /** Last-applied value (from state) and what the remote holds now. */
  before?: unknown;
  after?: unknown;
}

export interface Drift {
  address: string;
  remoteId: string;
  /** `changed`: fields differ; `gone`: the remote object no longer exists (it leaves the state). */
  status: "changed" | "gone";
  changes: DriftChange[];
}

export interface RefreshOnlyPlan {
  /** Resources read. */
  reads: number;
  drift: Drift[];
  /** Reads that failed: such a refresh is incomplete and is never accepted. */
  errors: RefreshError[];
}

export interface RefreshOnlyOptions extends EngineOptions {
  /** Asked when there is drift to accept; false stops with the state untouched. */
  confirm?: (plan: RefreshOnlyPlan) => Promise<boolean>;
  onPlan?: (plan: RefreshOnlyPlan) => void;
}

export interface RefreshOnlyOutcome {
  plan: RefreshOnlyPlan;
  confirmed: boolean;
  /** Resources whose state entry was rewritten or removed. */
  accepted: number;
}

/** Reads the remote for the recorded resources in scope; holds the lock, writes nothing. */
export function planRefreshOnly(options: EngineOptions): Promise<RefreshOnlyPlan> {
  return withState({ command: "agents plan", ...options }, async (store, project) => {
    const runtime = createRuntime({ ...options, project });
    const recorded = scopeState(store.state, project.desired, options, "apply");
    return (await readDrift(runtime, store.state.resources, recorded, options)).plan;
  });
}

/** planRefreshOnly, then (once confirmed) the drift is written into the state; never a remote write. */
export function applyRefreshOnly(options: RefreshOnlyOptions): Promise<RefreshOnlyOutcome> {
  return withState({ command: "agents apply", ...options }, async (store, project) => {
    const runtime = createRuntime({ ...options, project });
    const recorded = scopeState(store.state, project.desired, options, "apply");
    const { plan, found } = await readDrift(runtime, store.state.resources, recorded, options);
    options.onPlan?.(plan);
    if (plan.errors.length > 0)
      throw new PlanError(
        `nothing was recorded: the refresh is incomplete (${plan.errors.map((e) => `${e.target}: ${e.message}`).join("; ")})`,
        "refresh_failed",
      );
    if (plan.drift.length === 0) return { plan, confirmed: true, accepted: 0 };
    if (options.confirm && !(await options.confirm(plan))) return { plan, confirmed: false, accepted: 0 };
    const now = new Date().toISOString();
    // Accepted drift is one new version of the state (Terraform's serial + 1), stored whole: handed
    // over as a new resources map, not journaled record by record. Journaled, each record moved the
    // serial and the whole write at release moved it once more (one drifted resource: serial + 2).
    await store.update((view, next) => {
      const resources = { ...view };
      next.resources = resources;
      for (const drift of plan.drift) {
        const prior = resources[drift.address];
        if (!prior) continue;
        if (drift.status === "gone") {
          delete resources[drift.address];
          continue;
        }
        const remote = found.get(drift.address);
        const spec = { ...prior.spec };
        for (const change of drift.changes) {
          if (change.after === undefined) delete spec[change.path];
          else spec[change.path] = change.after;
        }
        resources[drift.address] = {
          ...prior,
          spec,
          ...(remote?.version !== undefined ? { version: remote.version } : {}),
          updatedAt: now,
        };
      }
    });
    return { plan, confirmed: true, accepted: plan.drift.length };
  });
}

async function readDrift(
  runtime: ProviderRuntime,
  all: Record<string, ResourceState>,
  recorded: ResourceState[],
  options: EngineOptions,
): Promise<{ plan: RefreshOnlyPlan; found: Map<string, { version?: number | string }> }> {
  const signal = options.signal ?? new AbortController().signal;
  const targets = recorded.map((r) => ({
    address: r.address,
    kind: r.kind,
    provider: r.provider,
    id: r.id,
    prior: r,
  }));
  const lookup = (address: string) => {
    const prior = all[address];
    return prior ? { id: prior.id, extra: prior.extra } : undefined;
  };
  const refreshed = await refresh(runtime, targets, lookup, {
    concurrency: options.refreshConcurrency ?? 10,
    signal,
  });
  const drift: Drift[] = [];
  const errors: RefreshError[] = [];
  const found = new Map<string, { version?: number | string }>();
  for (const prior of recorded) {
    const result = refreshed.get(prior.address) as RefreshResult;
    if (result.status === "error") errors.push({ target: prior.address, message: result.message });
    else if (result.status === "gone") {
      drift.push({ address: prior.address, remoteId: prior.id, status: "gone", changes: [] });
    } else if (result.status === "found") {
      found.set(prior.address, { version: result.remote.version });
      const handler = runtime.handler(prior.provider, prior.kind);
      const skip = new Set(result.remote.notYetApplied ?? []);
      const changes: DriftChange[] = [];
      for (const [key, value] of Object.entries(result.remote.spec)) {
        // A secret never shows back and is never compared (state keeps its keyed hash).
        if (skip.has(key) || holdsSecret(handler?.sensitive, key)) continue;
        if (!sameValue(prior.spec[key], value))
          changes.push({
            path: key,
            ...(prior.spec[key] !== undefined ? { before: prior.spec[key] } : {}),
            ...(value !== undefined ? { after: value } : {}),
          });
      }
      if (changes.length > 0)
        drift.push({ address: prior.address, remoteId: prior.id, status: "changed", changes });
    }
  }
  return { plan: { reads: targets.length, drift, errors }, found };
}

/** The refresh-only plan in words: what changed outside agents, resource by resource. */
export function renderRefreshOnly(plan: RefreshOnlyPlan): string {
  const lines: string[] = [];
  for (const e of plan.errors) lines.push(`! ${e.target}: could not refresh (${e.message})`);
  if (plan.drift.length === 0) {
    if (plan.errors.length === 0)
      lines.push(`No changes outside agents: the remote matches the state (${plan.reads} read).`);
  } else {
    lines.push("Objects changed outside agents since the last apply:", "");
    for (const d of plan.drift) {
      if (d.status === "gone") {
        lines.push(`  - ${d.address} (${d.remoteId}) was deleted outside agents: it leaves the state`);
        continue;
      }
      lines.push(`  ~ ${d.address} (${d.remoteId})`);
      for (const c of d.changes) lines.push(`      ${c.path}: ${show(c.before)} → ${show(c.after)}`);
    }
    lines.push(
      "",
      `Refresh-only: ${plan.drift.length} ${plan.drift.length === 1 ? "resource" : "resources"} to record in the state; nothing remote is changed.`,
      "Accept with: agents apply --refresh-only. A normal `agents plan` then shows how to bring them back to agents.yaml.",
    );
  }
  if (plan.errors.length > 0)
    lines.push("The refresh is incomplete: nothing can be recorded until every read succeeds.");
  return `${lines.join("\n")}\n`;
}

function show(value: unknown): string {
  return value === undefined ? "(unset)" : JSON.stringify(value);
}

/** A top-level field that is, or holds, a sensitive one (`headers.*`, `env[*].value`). */
function holdsSecret(sensitive: readonly string[] | undefined, key: string): boolean {
  return (sensitive ?? []).some((pattern) => pattern.split(/[.[]/)[0] === key);
}
