import type { SimClock } from "../core/clock.js";
import type { IdGenerator } from "../core/prng.js";
import { EventHub } from "../kit/sse.js";
import {
  asArray,
  dumpRecords,
  emptyStore,
  put,
  type Rec,
  SHARED_COLLECTIONS,
  type Store,
  seedStore,
} from "../kit/store.js";
import { seededChannel } from "./channel-credentials.js";

/** Which gateway an object was created through: `/api/v1/cloud` or `/api/v1/forward`. */
export type Domain = "managed" | "forward";

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
  ...SHARED_COLLECTIONS,
  "memory_stores",
  "memories",
  "memory_versions",
  "templates",
  "identities",
  "channels",
  "tunnels",
] as const;
export type Collection = (typeof COLLECTIONS)[number];

export interface BState extends Store<Collection> {
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
  const state: BState = {
    ...emptyStore(COLLECTIONS, DEFAULT_KEY),
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

/** Everything held, archived and internal fields included, so tests can look for duplicates/orphans. */
export function dumpState(state: BState): Record<string, unknown> {
  // API keys are never dumped (docs/sims.md); channel secrets are stored only as sha256.
  return {
    ...dumpRecords(state, COLLECTIONS),
    mounts: state.mounts,
    idempotency_keys: [...state.idempotency.keys()],
  };
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
  if (kind === "channels") return seededChannel(rec);
  if (DOMAIN_SCOPED.includes(kind) && rec._domain === undefined) {
    return { ...rec, _domain: kind === "sessions" && rec.template_id ? "forward" : "managed" };
  }
  return rec;
}

export function seedState(state: BState, body: unknown, now: string): Record<string, number> {
  return seedStore(state, body, {
    collections: COLLECTIONS,
    complete: (kind, rec) => withSeedDefaults(kind, rec, now),
    more: {
      mounts: (value) => {
        for (const m of asArray(value, "mounts")) state.mounts.push(m as Mount);
        return state.mounts.length;
      },
      // Listed by the dump; a seed may carry them back, and they are not restored.
      idempotency_keys: () => undefined,
    },
  });
}
