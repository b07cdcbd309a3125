// Refresh reads what the remote holds for every resource in scope, in parallel and read-only.
// A transient failure becomes a warning on that resource: it is never taken as "gone".
import type { ProviderRuntime } from "../providers/registry.js";
import type { ProviderName, RemoteObject } from "../providers/types.js";
import type { ResourceState } from "../state/types.js";
import { mapBounded } from "./bounded.js";

export type RefreshResult =
  | { status: "found"; remote: RemoteObject; warnings?: string[] }
  | { status: "gone" }
  | { status: "local" }
  | { status: "error"; message: string };

export interface RefreshTarget {
  address: string;
  kind: ResourceState["kind"];
  provider: ProviderName;
  id: string;
  prior?: ResourceState;
}

export async function refresh(
  runtime: ProviderRuntime,
  targets: RefreshTarget[],
  lookup: (address: string) => { id: string; extra?: Record<string, unknown> } | undefined,
  options: { concurrency: number; signal: AbortSignal },
): Promise<Map<string, RefreshResult>> {
  const results = new Map<string, RefreshResult>();
  await mapBounded(targets, options.concurrency, async (target) => {
    results.set(target.address, await readOne(runtime, target, lookup, options.signal));
  });
  return results;
}

async function readOne(
  runtime: ProviderRuntime,
  target: RefreshTarget,
  lookup: (address: string) => { id: string; extra?: Record<string, unknown> } | undefined,
  signal: AbortSignal,
): Promise<RefreshResult> {
  const handler = runtime.handler(target.provider, target.kind);
  if (!handler) return { status: "error", message: `${target.provider} does not support ${target.kind}` };
  if (handler.localOnly) return { status: "local" };
  try {
    const warnings: string[] = [];
    const ctx = runtime.context(target, lookup, signal, (message) => warnings.push(message));
    const prior = target.prior
      ? {
          id: target.prior.id,
          spec: target.prior.spec,
          extra: target.prior.extra,
          version: target.prior.version,
        }
      : undefined;
    const remote = await handler.read(ctx, target.id, prior);
    if (remote === "gone" || remote.archived) return { status: "gone" };
    return { status: "found", remote, ...(warnings.length ? { warnings } : {}) };
  } catch (error) {
    return { status: "error", message: (error as Error).message };
  }
}
