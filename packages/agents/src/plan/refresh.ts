// Refresh reads what the remote holds for every resource in scope, in parallel and read-only.
// A transient failure becomes a warning on that resource: it is never taken as "gone".
//
// Plan from lists: where several resources of one kind are read and the handler can list them
// (`listForRead`), the kind's list pages are walked once and each listed object is mapped without
// its own GET. A resource the list did not show is read on its own, which is what decides "gone",
// and a listing that fails only costs the saving: every resource is then read on its own.

import type { HttpClient } from "../providers/http.js";
import type { ProviderRuntime } from "../providers/registry.js";
import type { KindHandler, ListContext, ProviderName, RemoteObject } from "../providers/types.js";
import type { ResourceState } from "../state/types.js";
import { breather, limiter } from "./bounded.js";

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
  // The concurrency bounds calls in flight, not reads: a read waiting for its kind's listing, or
  // between two calls, holds no slot.
  const bounded = boundedCalls(limiter(options.concurrency));
  const listings = startListings(runtime, bounded, targets, options.signal);
  // The listings' first pages are the head of the plan's critical path (their pages follow one
  // another): let them go out before the reads are set up, and set the reads up in slices, so
  // that a page answered meanwhile is read and its next page sent without waiting for them all.
  if (listings.size > 0) await new Promise((resolve) => setImmediate(resolve));
  const reads: Promise<void>[] = [];
  const read = (target: RefreshTarget, listed: unknown) =>
    readOne(runtime, bounded, target, lookup, options.signal, listed).then((result) => {
      results.set(target.address, result);
    });
  // A listed kind's reads are set up once its listing has settled (in input order, as they would
  // have resumed), unless the handler reads meanwhile what the list cannot show.
  const afterListing = new Map<string, RefreshTarget[]>();
  const breathe = breather();
  for (const target of targets) {
    const pause = breathe();
    if (pause) await pause;
    const key = groupKey(target);
    const listing = listings.get(key);
    if (listing && !runtime.handler(target.provider, target.kind)?.readsWhileListing) {
      const waiting = afterListing.get(key) ?? [];
      afterListing.set(key, waiting);
      waiting.push(target);
      continue;
    }
    reads.push(
      read(
        target,
        listing?.then((found) => found.get(target.id)).catch(() => undefined),
      ),
    );
  }
  for (const [key, waiting] of afterListing) {
    const listing = listings.get(key)!.catch(() => undefined);
    reads.push(
      listing.then(async (found) => {
        await Promise.all(waiting.map((target) => read(target, listedOf(found, target.id))));
      }),
    );
  }
  await Promise.all(reads);
  // Input order, so plans and their warnings come out the same on every run.
  return new Map(targets.map((t) => [t.address, results.get(t.address)!]));
}

const groupKey = (target: RefreshTarget) => `${target.provider}\u0000${target.kind}`;

/** The listed object for `id`, or undefined (a listing that failed, or an answer not a map). */
function listedOf(found: ReadonlyMap<string, unknown> | undefined, id: string): unknown {
  try {
    return found?.get(id);
  } catch {
    return undefined;
  }
}

/** Gives a context whose provider clients make their calls through the slots; `first` for listings. */
type Bound = <C extends ListContext>(ctx: C, first?: boolean) => C;

function boundedCalls(slot: ReturnType<typeof limiter>): Bound {
  const clients = new Map<string, WeakMap<HttpClient, HttpClient>>();
  // A provider's API clients (one object per provider session), wrapped once per kind of slot:
  // every read of that provider shares them.
  const apiSets = new Map<string, WeakMap<object, Record<string, HttpClient>>>();
  return (ctx, first = false) => {
    const key = first ? "first" : "queued";
    const cache = clients.get(key) ?? new WeakMap<HttpClient, HttpClient>();
    clients.set(key, cache);
    const bound = (http: HttpClient): HttpClient => {
      let wrapped = cache.get(http);
      if (!wrapped) {
        wrapped = {
          request: (req) => slot(() => http.request(req), { first }),
          addSecret: (v) => http.addSecret(v),
        };
        cache.set(http, wrapped);
      }
      return wrapped;
    };
    let apis: Record<string, HttpClient> | undefined;
    if (ctx.apis) {
      const sets = apiSets.get(key) ?? new WeakMap<object, Record<string, HttpClient>>();
      apiSets.set(key, sets);
      apis = sets.get(ctx.apis);
      if (!apis) {
        apis = Object.fromEntries(Object.entries(ctx.apis).map(([name, http]) => [name, bound(http)]));
        sets.set(ctx.apis, apis);
      }
    }
    return { ...ctx, http: bound(ctx.http), ...(apis ? { apis } : {}) };
  };
}

/** One listing per (provider, kind) with enough resources to be worth it. */
function startListings(
  runtime: ProviderRuntime,
  bounded: Bound,
  targets: RefreshTarget[],
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
    const ctx = bounded(
      runtime.context(
        target,
        () => undefined,
        signal,
        () => {},
      ),
      true,
    );
    const listing = handler.listForRead!(ctx, ids);
    listing.catch(() => {});
    listings.set(key, listing);
  }
  return listings;
}

async function readOne(
  runtime: ProviderRuntime,
  bounded: Bound,
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
    const ctx = bounded(runtime.context(target, lookup, signal, (message) => warnings.push(message)));
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
