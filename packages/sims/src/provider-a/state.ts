import type { SimClock } from "../core/clock.js";
import type { IdGenerator } from "../core/prng.js";
import { isObject } from "../kit/records.js";
import { EventHub } from "../kit/sse.js";
import {
  dumpRecords,
  emptyStore,
  SHARED_COLLECTIONS,
  type Store,
  seedError,
  seedStore,
} from "../kit/store.js";

export const COLLECTIONS = SHARED_COLLECTIONS;
export type Collection = (typeof COLLECTIONS)[number];

/**
 * How long the asynchronous checks take. A file audit or skill scan finishes when the simulated
 * clock has moved `*_ms` past the upload, or after `*_polls` GETs of the object have still seen
 * the pending state — whichever comes first. Both are deterministic; seed `settings` to change them.
 */
interface Settings {
  file_audit_ms: number;
  file_audit_polls: number;
  skill_scan_ms: number;
  skill_scan_polls: number;
}

const DEFAULT_SETTINGS: Settings = {
  file_audit_ms: 15_000,
  file_audit_polls: 1,
  skill_scan_ms: 180_000,
  skill_scan_polls: 1,
};

export interface AState extends Store<Collection> {
  settings: Settings;
  blobs: Map<string, Uint8Array>;
  hub: EventHub;
}

export const DEFAULT_KEY = "sim-provider-a-key";

export function createState(_: { ids: IdGenerator; clock: SimClock }): AState {
  return {
    ...emptyStore(COLLECTIONS, DEFAULT_KEY),
    settings: { ...DEFAULT_SETTINGS },
    blobs: new Map(),
    hub: new EventHub(),
  };
}

/** Everything held (archived objects and bookkeeping included) for duplicate/orphan checks. */
export function dumpState(state: AState): Record<string, unknown> {
  // API keys are never dumped (docs/sims.md).
  return { settings: state.settings, ...dumpRecords(state, COLLECTIONS) };
}

export function seedState(state: AState, body: unknown): Record<string, number> {
  return seedStore(state, body, {
    collections: COLLECTIONS,
    // A seeded session can be streamed at once, like one created through the API.
    complete: (kind, rec) => {
      if (kind === "sessions" && !state.events.has(rec.id)) state.events.set(rec.id, []);
      return rec;
    },
    more: { settings: (value) => seedSettings(state, value) },
  });
}

function seedSettings(state: AState, value: unknown): number {
  if (!isObject(value)) throw seedError("settings must be an object");
  for (const [k, v] of Object.entries(value)) {
    if (!(k in DEFAULT_SETTINGS) || typeof v !== "number" || v < 0)
      throw seedError(`settings.${k} is not a known non-negative number`);
    state.settings[k as keyof Settings] = v;
  }
  return Object.keys(value).length;
}
