// Refresh reads what the remote holds for every resource in scope, in parallel and read-only.
// A transient failure becomes a warning on that resource: it is never taken as "gone".
//
// Plan from lists: where several resources of one kind are read and the handler can list them
// (`listForRead`), the kind's list pages are walked once and each listed object is mapped without
// its own GET. A resource the list did not show is read on its own, which is what decides "gone",
// and a listing that fails only costs the saving: every resource is then read on its own.
import type { ProviderRuntime } from "../providers/registry.js";
import type { KindHandler, ProviderName, RemoteObject } from "../providers/types.js";
import type { ResourceState } from "../state/types.js";
import { limiter } from "./bounded.js";

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

/**
 * Below this many resources of one kind, one GET each costs no more round trips than a listing
 * (they run in parallel, pages run one after another) and cannot walk a large account's pages.
 */
export const LIST_REFRESH_MIN = 8;

type Lookup = (address: string) => { id: string; extra?: Record<string, unknown> } | undefined;

export async function refresh(
  runtime: ProviderRuntime,
  targets: RefreshTarget[],
  lookup: Lookup,
  options: { concurrency: number; signal: AbortSignal },
): Promise<Map<string, RefreshResult>> {
  const results = new Map<string, RefreshResult>();
  const slot = limiter(options.concurrency);
  const listings = startListings(runtime, targets, slot, options.signal);
  await Promise.all(
    targets.map(async (target) => {
      const listed = await listings.get(groupKey(target))?.catch(() => undefined);
      const result = await slot(() =>
        readOne(runtime, target, lookup, options.signal, listed?.get(target.id)),
      );
      results.set(target.address, result);
    }),
  );
  // Input order, so plans and their warnings come out the same on every run.
  return new Map(targets.map((t) => [t.address, results.get(t.address)!]));
}

const groupKey = (target: RefreshTarget) => `${target.provider}\u0000${target.kind}`;

/** One listing per (provider, kind) with enough resources to be worth it, each holding one slot. */
function startListings(
  runtime: ProviderRuntime,
  targets: RefreshTarget[],
  slot: ReturnType<typeof limiter>,
  signal: AbortSignal,
): Map<string, Promise<ReadonlyMap<string, unknown>>> {
  const groups = new Map<string, { handler: KindHandler; target: RefreshTarget; ids: Set<string> }>();
  for (const target of targets) {
    const handler = runtime.handler(target.provider, target.kind);
    if (!handler?.listForRead || handler.localOnly) continue;
    const key = groupKey(target);
    const group = groups.get(key) ?? { handler, target, ids: new Set<string>() };
    group.ids.add(target.id);
    groups.set(key, group);
  }
  const listings = new Map<string, Promise<ReadonlyMap<string, unknown>>>();
  for (const [key, { handler, target, ids }] of groups) {
    if (ids.size < LIST_REFRESH_MIN) continue;
    const ctx = runtime.context(
      target,
      () => undefined,
      signal,
      () => {},
    );
    listings.set(
      key,
      slot(() => handler.listForRead!(ctx, ids)),
    );
  }
  return listings;
}

async function readOne(
  runtime: ProviderRuntime,
  target: RefreshTarget,
  lookup: Lookup,
  signal: AbortSignal,
  listed: unknown,
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
    const remote = await handler.read(ctx, target.id, prior, listed);
    if (remote === "gone" || remote.archived) return { status: "gone" };
    return { status: "found", remote, ...(warnings.length ? { warnings } : {}) };
  } catch (error) {
    return { status: "error", message: (error as Error).message };
  }
}
