import type { SimClock } from "../core/clock.js";
import type { IdGenerator } from "../core/prng.js";
import { Sequencer } from "../kit/paging.js";
import { isObject } from "../kit/records.js";
import { EventHub } from "../kit/sse.js";

/** Which gateway an object was created through: `/api/v1/cloud` or `/api/v1/forward`. */
export type Domain = "managed" | "forward";

/** A stored object: the wire fields plus `_`-prefixed bookkeeping that never leaves the simulator. */
export interface Rec {
  id: string;
  [k: string]: unknown;
}

export interface Mount {
  identity_id: string;
  template_id: string;
  memory_store_id: string;
  system_managed: boolean;
  access: "read_write" | "read_only";
  created_at: string;
}

interface IdempotentReply {
  fingerprint: string;
  status: number;
  body: unknown;
}

/** Object collections, by the key they have in `/_sim/state` and `/_sim/seed`. */
export const COLLECTIONS = [
  "environments",
  "vaults",
  "credentials",
  "files",
  "skills",
  "agents",
  "deployments",
  "deployment_runs",
  "sessions",
  "memory_stores",
  "memories",
  "memory_versions",
  "templates",
  "identities",
  "channels",
  "tunnels",
] as const;
export type Collection = (typeof COLLECTIONS)[number];

export interface BState {
  apiKeys: string[];
  seq: Sequencer;
  objects: Record<Collection, Map<string, Rec>>;
  /** Session events by session id, oldest first. */
  events: Map<string, Rec[]>;
  mounts: Mount[];
  /** File bytes by file id (not dumped: the dump carries size and sha256). */
  blobs: Map<string, Uint8Array>;
  /** Forward `Idempotency-Key` replies by `method path key`. */
  idempotency: Map<string, IdempotentReply>;
  hub: EventHub;
}

export const DEFAULT_KEY = "sim-provider-b-key";

/** Tunnels cannot be created through the API; these exist from the start (and more via seed). */
const DEFAULT_TUNNELS = [
  { id: "tnl_sim_primary", name: "sim-primary" },
  { id: "tnl_sim_secondary", name: "sim-secondary" },
];

export function createState({ clock }: { ids: IdGenerator; clock: SimClock }): BState {
  const objects = Object.fromEntries(
    COLLECTIONS.map((c) => [c, new Map<string, Rec>()]),
  ) as BState["objects"];
  const state: BState = {
    apiKeys: [DEFAULT_KEY],
    seq: new Sequencer(),
    objects,
    events: new Map(),
    mounts: [],
    blobs: new Map(),
    idempotency: new Map(),
    hub: new EventHub(),
  };
  for (const t of DEFAULT_TUNNELS) put(state, "tunnels", tunnelRecord(t, clock.iso()));
  return state;
}

function tunnelRecord(t: { id: string; name?: string; status?: string }, at: string): Rec {
  return {
    id: t.id,
    type: "tunnel",
    name: t.name ?? t.id,
    status: t.status ?? "connected",
    created_at: at,
    updated_at: at,
  };
}

export function put(state: BState, kind: Collection, rec: Rec): Rec {
  state.seq.assign(rec.id);
  state.objects[kind].set(rec.id, rec);
  return rec;
}

/** Everything held, archived and internal fields included, so tests can look for duplicates/orphans. */
export function dumpState(state: BState): Record<string, unknown> {
  const out: Record<string, unknown> = { api_keys: state.apiKeys };
  for (const c of COLLECTIONS) out[c] = [...state.objects[c].values()];
  out.events = Object.fromEntries(state.events);
  out.mounts = state.mounts;
  out.idempotency_keys = [...state.idempotency.keys()];
  return out;
}

/** Adds (or replaces by id) objects given in the dump's shape; unknown keys are refused. */
const DOMAIN_SCOPED: readonly Collection[] = [
  "environments",
  "vaults",
  "credentials",
  "files",
  "skills",
  "memory_stores",
  "sessions",
];

/**
 * Hand-written seeds may omit bookkeeping: objects default to the cloud gateway (a session with a
 * `template_id` to Forward), and a tunnel needs only its id.
 */
function withSeedDefaults(kind: Collection, rec: Rec, now: string): Rec {
  if (kind === "tunnels") return { ...tunnelRecord(rec as { id: string }, now), ...rec };
  if (DOMAIN_SCOPED.includes(kind) && rec._domain === undefined) {
    return { ...rec, _domain: kind === "sessions" && rec.template_id ? "forward" : "managed" };
  }
  return rec;
}

export function seedState(state: BState, body: unknown, now: string): Record<string, number> {
  if (!isObject(body)) throw seedError("seed body must be an object");
  const counts: Record<string, number> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === "api_keys") {
      for (const k of asArray(value, key))
        if (typeof k === "string" && !state.apiKeys.includes(k)) state.apiKeys.push(k);
      counts[key] = state.apiKeys.length;
    } else if ((COLLECTIONS as readonly string[]).includes(key)) {
      for (const rec of asArray(value, key)) {
        if (!isObject(rec) || typeof rec.id !== "string") throw seedError(`${key}: every object needs an id`);
        put(state, key as Collection, withSeedDefaults(key as Collection, rec as Rec, now));
      }
      counts[key] = state.objects[key as Collection].size;
    } else if (key === "mounts") {
      for (const m of asArray(value, key)) state.mounts.push(m as Mount);
      counts[key] = state.mounts.length;
    } else if (key === "events") {
      if (!isObject(value)) throw seedError("events must map session ids to arrays");
      for (const [sid, list] of Object.entries(value)) {
        const events = asArray(list, key) as Rec[];
        for (const e of events) state.seq.assign(e.id);
        state.events.set(sid, events);
      }
      counts[key] = state.events.size;
    } else if (key !== "idempotency_keys") {
      throw seedError(`unknown seed key "${key}"`);
    }
  }
  return counts;
}

function asArray(v: unknown, key: string): unknown[] {
  if (!Array.isArray(v)) throw seedError(`${key} must be an array`);
  return v;
}

function seedError(message: string): Error {
  return Object.assign(new Error(message), { status: 400 });
}
