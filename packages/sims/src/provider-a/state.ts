import type { SimClock } from "../core/clock.js";
import type { IdGenerator } from "../core/prng.js";
import { Sequencer } from "../kit/paging.js";
import { isObject } from "../kit/records.js";
import { EventHub } from "../kit/sse.js";

/** A stored object: wire fields plus `_`-prefixed bookkeeping that never leaves the simulator. */
export interface Rec {
  id: string;
  [k: string]: unknown;
}

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
] as const;
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

export interface AState {
  apiKeys: string[];
  settings: Settings;
  seq: Sequencer;
  objects: Record<Collection, Map<string, Rec>>;
  events: Map<string, Rec[]>;
  blobs: Map<string, Uint8Array>;
  hub: EventHub;
}

export const DEFAULT_KEY = "sim-provider-a-key";

export function createState(_: { ids: IdGenerator; clock: SimClock }): AState {
  return {
    apiKeys: [DEFAULT_KEY],
    settings: { ...DEFAULT_SETTINGS },
    seq: new Sequencer(),
    objects: Object.fromEntries(COLLECTIONS.map((c) => [c, new Map<string, Rec>()])) as AState["objects"],
    events: new Map(),
    blobs: new Map(),
    hub: new EventHub(),
  };
}

export function put(state: AState, kind: Collection, rec: Rec): Rec {
  state.seq.assign(rec.id);
  state.objects[kind].set(rec.id, rec);
  return rec;
}

/** Everything held (archived objects and bookkeeping included) for duplicate/orphan checks. */
export function dumpState(state: AState): Record<string, unknown> {
  const out: Record<string, unknown> = { api_keys: state.apiKeys, settings: state.settings };
  for (const c of COLLECTIONS) out[c] = [...state.objects[c].values()];
  out.events = Object.fromEntries(state.events);
  return out;
}

export function seedState(state: AState, body: unknown): Record<string, number> {
  if (!isObject(body)) throw seedError("seed body must be an object");
  const counts: Record<string, number> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === "api_keys") {
      for (const k of asArray(value, key))
        if (typeof k === "string" && !state.apiKeys.includes(k)) state.apiKeys.push(k);
      counts[key] = state.apiKeys.length;
    } else if (key === "settings") {
      if (!isObject(value)) throw seedError("settings must be an object");
      for (const [k, v] of Object.entries(value)) {
        if (!(k in DEFAULT_SETTINGS) || typeof v !== "number" || v < 0)
          throw seedError(`settings.${k} is not a known non-negative number`);
        state.settings[k as keyof Settings] = v;
      }
      counts[key] = Object.keys(value).length;
    } else if ((COLLECTIONS as readonly string[]).includes(key)) {
      for (const rec of asArray(value, key)) {
        if (!isObject(rec) || typeof rec.id !== "string") throw seedError(`${key}: every object needs an id`);
        put(state, key as Collection, rec as Rec);
        if (key === "sessions" && !state.events.has(rec.id)) state.events.set(rec.id, []);
      }
      counts[key] = state.objects[key as Collection].size;
    } else if (key === "events") {
      if (!isObject(value)) throw seedError("events must map session ids to arrays");
      for (const [sid, list] of Object.entries(value)) {
        const events = asArray(list, key) as Rec[];
        for (const e of events) state.seq.assign(e.id);
        state.events.set(sid, events);
      }
      counts[key] = state.events.size;
    } else {
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
