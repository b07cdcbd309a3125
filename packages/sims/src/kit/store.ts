import { Sequencer } from "./paging.js";
import { isObject } from "./records.js";

/** A stored object: wire fields plus `_`-prefixed bookkeeping that never leaves the simulator. */
export interface Rec {
  id: string;
  [k: string]: unknown;
}

/** The kinds provider_a and provider_b both keep, in the order their `/_sim/state` dumps list them. */
export const SHARED_COLLECTIONS = [
  "environments",
  "vaults",
  "credentials",
  "files",
  "skills",
  "agents",
  "deployments",
  "deployment_runs",
  "sessions",
] as const;

/**
 * The object store provider_a and provider_b both keep: the accepted API keys, records by
 * collection (numbered in creation order, which paging follows) and session events by session id.
 */
export interface Store<C extends string> {
  apiKeys: string[];
  seq: Sequencer;
  objects: Record<C, Map<string, Rec>>;
  events: Map<string, Rec[]>;
}

export function emptyStore<C extends string>(collections: readonly C[], defaultKey: string): Store<C> {
  return {
    apiKeys: [defaultKey],
    seq: new Sequencer(),
    objects: Object.fromEntries(collections.map((c) => [c, new Map<string, Rec>()])) as Store<C>["objects"],
    events: new Map(),
  };
}

export function put<C extends string>(store: Pick<Store<C>, "seq" | "objects">, kind: C, rec: Rec): Rec {
  store.seq.assign(rec.id);
  store.objects[kind].set(rec.id, rec);
  return rec;
}

/** Every record (archived ones and bookkeeping included) and every event, for duplicate/orphan checks. */
export function dumpRecords<C extends string>(store: Store<C>, collections: readonly C[]) {
  const out: Record<string, unknown> = {};
  for (const c of collections) out[c] = [...store.objects[c].values()];
  out.events = Object.fromEntries(store.events);
  return out;
}

export interface SeedOptions<C extends string> {
  collections: readonly C[];
  /** Completes a seeded record before it is stored (what a hand-written seed may leave out). */
  complete?: (kind: C, rec: Rec) => Rec;
  /** The simulator's own top-level keys: each returns the count to report, or undefined for none. */
  more?: Record<string, (value: unknown) => number | undefined>;
}

/**
 * `/_sim/seed` in the dump's shape: `api_keys` are added, records are added or replaced by id,
 * `events` map session ids to their events. Answers a count per key; an unknown key is a 400.
 */
export function seedStore<C extends string>(
  store: Store<C>,
  body: unknown,
  { collections, complete = (_kind, rec) => rec, more = {} }: SeedOptions<C>,
): Record<string, number> {
  if (!isObject(body)) throw seedError("seed body must be an object");
  const counts: Record<string, number> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === "api_keys") {
      for (const k of asArray(value, key))
        if (typeof k === "string" && !store.apiKeys.includes(k)) store.apiKeys.push(k);
      counts[key] = store.apiKeys.length;
    } else if ((collections as readonly string[]).includes(key)) {
      for (const rec of asArray(value, key)) {
        if (!isObject(rec) || typeof rec.id !== "string") throw seedError(`${key}: every object needs an id`);
        put(store, key as C, complete(key as C, rec as Rec));
      }
      counts[key] = store.objects[key as C].size;
    } else if (key === "events") {
      if (!isObject(value)) throw seedError("events must map session ids to arrays");
      for (const [sid, list] of Object.entries(value)) {
        const events = asArray(list, key) as Rec[];
        for (const e of events) store.seq.assign(e.id);
        store.events.set(sid, events);
      }
      counts[key] = store.events.size;
    } else if (Object.hasOwn(more, key)) {
      const count = more[key]?.(value);
      if (count !== undefined) counts[key] = count;
    } else {
      throw seedError(`unknown seed key "${key}"`);
    }
  }
  return counts;
}

export function asArray(v: unknown, key: string): unknown[] {
  if (!Array.isArray(v)) throw seedError(`${key} must be an array`);
  return v;
}

/** A refused seed: the harness answers it with status 400 and this message. */
export function seedError(message: string): Error {
  return Object.assign(new Error(message), { status: 400 });
}
