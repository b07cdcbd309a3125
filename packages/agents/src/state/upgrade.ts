// Explicit, one-step-at-a-time upgrades of older state files. A file newer than this build is
// refused rather than guessed at.
import { randomUUID } from "node:crypto";
import type { Kind, ProviderName, Spec } from "../providers/types.js";
import { type ResourceState, STATE_VERSION, type State, StateError } from "./types.js";

/** v0: the unversioned prototype format (a flat list, `type` for the kind, `remote_id`). */
interface StateV0 {
  resources: Array<{
    type: string;
    name: string;
    provider: string;
    remote_id: string;
    external?: boolean;
    spec?: Spec;
    depends_on?: string[];
  }>;
}

const upgrades: Record<number, (old: any) => any> = {
  0: (old: StateV0): Omit<State, "version"> & { version: 1 } => {
    const resources: Record<string, ResourceState> = {};
    for (const r of old.resources ?? []) {
      const address = `${r.provider}.${r.type}["${r.name}"]`;
      resources[address] = {
        address,
        kind: r.type as Kind,
        name: r.name,
        provider: r.provider as ProviderName,
        id: r.remote_id,
        external: r.external ?? false,
        spec: r.spec ?? {},
        dependsOn: r.depends_on ?? [],
        updatedAt: new Date(0).toISOString(),
      };
    }
    return { version: 1, serial: 0, lineage: randomUUID(), resources };
  },
  // v2 adds `project` and `hashKey`; a run records both on its next write (older hashes were keyed
  // with a per-user key, and are re-keyed then where that key is at hand: secrets.ts).
  1: (old: Record<string, unknown>) => ({ ...old, version: 2 }),
};

export function upgradeState(raw: unknown, source: string): { state: State; upgradedFrom?: number } {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new StateError(`${source}: not a state file (expected a JSON object)`);
  }
  let doc = raw as Record<string, unknown>;
  const from = typeof doc.version === "number" ? doc.version : 0;
  if (from > STATE_VERSION) {
    throw new StateError(
      `${source}: state version ${from} is newer than this build understands (${STATE_VERSION}); upgrade agents`,
    );
  }
  for (let v = from; v < STATE_VERSION; v++) {
    const step = upgrades[v];
    if (!step) throw new StateError(`${source}: no upgrade path from state version ${v}`);
    doc = step(doc);
  }
  const state = doc as unknown as State;
  if (
    typeof state.lineage !== "string" ||
    typeof state.serial !== "number" ||
    typeof state.resources !== "object"
  ) {
    throw new StateError(`${source}: malformed state (missing lineage, serial or resources)`);
  }
  return from === STATE_VERSION ? { state } : { state, upgradedFrom: from };
}
