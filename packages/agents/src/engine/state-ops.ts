// `agents import` and `agents state list|show|rm|mv`. Every write holds the state lock.

import { importedEntry } from "../apply/imported.js";
import { parseAddress } from "../model/address.js";
import { compareText } from "../plan/order.js";
import { stateLine } from "../plan/render.js";
import type { ProviderRuntime } from "../providers/registry.js";
import type { StateBackend } from "../state/backend.js";
import { LockedState } from "../state/locked-state.js";
import { moveEntry } from "../state/moves.js";
import { canonicalJson, serialize } from "../state/serialize.js";
import { type ResourceState, type State, StateError } from "../state/types.js";
import { upgradeState } from "../state/upgrade.js";
import { createRuntime, type EngineOptions, withState } from "./api.js";

/**
 * The line `state list` prints first: which state it read, for which project (the state's recorded
 * one, else `project`, the name a run would take from AGENTS_PROJECT or the folder), how many
 * resources it holds.
 */
export async function stateSourceLine(backend: StateBackend, project: string): Promise<string> {
  const { state } = await backend.read();
  return stateLine({
    ...state,
    backend: backend.kind,
    location: backend.location,
    project: state.project ?? project,
    recorded: Object.keys(state.resources).length,
  })!;
}

export async function listState(backend: StateBackend): Promise<ResourceState[]> {
  const { state } = await backend.read();
  return Object.values(state.resources).sort((a, b) => compareText(a.address, b.address));
}

export async function showState(backend: StateBackend, address: string): Promise<ResourceState> {
  const { state } = await backend.read();
  const entry = state.resources[address];
  if (!entry) throw new StateError(notInState(address, Object.keys(state.resources)));
  return entry;
}

/** Forgets a resource without touching the remote (how an external resource is released). */
export async function removeFromState(
  backend: StateBackend,
  address: string,
  command = "agents state rm",
): Promise<ResourceState> {
  const store = await LockedState.open(backend, command);
  try {
    const entry = store.state.resources[address];
    if (!entry) throw new StateError(notInState(address, Object.keys(store.state.resources)));
    await store.update((resources) => {
      delete resources[address];
    });
    return entry;
  } finally {
    await store.release();
  }
}

export async function moveInState(backend: StateBackend, from: string, to: string): Promise<ResourceState> {
  const target = parsed(to);
  const source = parsed(from);
  if (target.provider !== source.provider || target.kind !== source.kind) {
    throw new StateError(
      `state mv renames within one provider and kind: ${from} → ${to} changes ${target.provider !== source.provider ? "the provider" : "the kind"}`,
    );
  }
  const store = await LockedState.open(backend, "agents state mv");
  try {
    const entry = store.state.resources[from];
    if (!entry) throw new StateError(notInState(from, Object.keys(store.state.resources)));
    if (store.state.resources[to])
      throw new StateError(`${to} is already in state; remove it first with agents state rm`);
    let moved = entry;
    await store.update((resources) => {
      moved = moveEntry(resources, from, target);
    });
    return moved;
  } finally {
    await store.release();
  }
}

/** Adopts an existing remote resource for a declared address: reads it, then records it. */
export async function importResource(
  options: EngineOptions,
  address: string,
  remoteId: string,
): Promise<ResourceState> {
  const declared = options.project.desired.find((r) => r.address === address);
  if (!declared) {
    throw new StateError(
      `${address} is not declared in ${options.project.configPath}; declare it first, then import`,
    );
  }
  if (declared.external) {
    throw new StateError(
      `${address} is external (${declared.external.field}); it is verified on apply, not imported`,
    );
  }
  return withState(
    options,
    async (store, project) => {
      const runtime: ProviderRuntime = createRuntime({ ...options, project });
      const handler = runtime.requireHandler(declared.provider, declared.kind, address);
      const existing = store.state.resources[address];
      if (existing)
        throw new StateError(
          `${address} is already managed as ${existing.id}; release it first with agents state rm '${address}'`,
        );
      const lookup = (a: string) => {
        const r = store.state.resources[a];
        return r ? { id: r.id, extra: r.extra } : undefined;
      };
      const ctx = runtime.context(declared, lookup, options.signal ?? new AbortController().signal, () => {});
      const remote = await handler.read(ctx, remoteId);
      if (remote === "gone" || remote.archived) {
        throw new StateError(
          `${declared.provider} has no ${declared.kind} with id ${remoteId} (or it is archived)`,
        );
      }
      const entry = importedEntry(declared, remote);
      await store.update((resources) => {
        resources[address] = entry;
      });
      return entry;
    },
    "agents import",
  );
}

function notInState(address: string, known: string[]): string {
  const hint = known.length
    ? ` (state holds: ${known.slice(0, 5).join(", ")}${known.length > 5 ? ", ..." : ""})`
    : " (state is empty)";
  return `${address} is not in state${hint}`;
}

function parsed(address: string) {
  const result = parseAddress(address);
  if (!result.ok) throw new StateError(result.error);
  return result.value;
}

/** The stored state as JSON text (`agents state pull`); creates still in flight are kept under `pending`. */
export async function pullState(backend: StateBackend): Promise<string> {
  const { state } = await backend.read();
  const text = serialize(state);
  if (!state.pending || Object.keys(state.pending).length === 0) return text;
  return `${JSON.stringify({ ...JSON.parse(text), pending: state.pending }, null, 2)}\n`;
}

/** Parses and upgrades a state document (a pulled state, or a state file). */
function parseStateText(text: string, label: string): State {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new StateError(`${label}: not valid JSON (${(error as Error).message})`);
  }
  const { state } = upgradeState(raw, label);
  if (typeof state.lineage !== "string" || typeof state.serial !== "number" || !state.resources)
    throw new StateError(`${label}: not an agents state (lineage, serial and resources are required)`);
  return state;
}

export interface TransferResult {
  resources: number;
  serial: number;
  lineage: string;
  /** False when the target already held exactly this state. */
  changed: boolean;
}

/**
 * Writes `incoming` over the state `store` holds, refusing what would lose work: a different
 * lineage (an unrelated state), an older serial, or a same-serial state that differs (diverged
 * copies). `force` overrides those refusals, never the lock.
 */
async function replaceChecked(
  store: LockedState,
  incoming: State,
  what: string,
  force: boolean,
): Promise<TransferResult> {
  const current = store.state;
  const summary = (s: State, changed: boolean): TransferResult => ({
    resources: Object.keys(s.resources).length,
    serial: s.serial,
    lineage: s.lineage,
    changed,
  });
  if (store.existed && !force) {
    if (current.lineage !== incoming.lineage) {
      throw new StateError(
        `lineage mismatch: ${what} is lineage ${incoming.lineage}, but ${store.location} holds lineage ${current.lineage} (an unrelated state); nothing was written. Use --force only if you mean to replace it`,
      );
    }
    if (incoming.serial < current.serial) {
      throw new StateError(
        `${what} is older (serial ${incoming.serial}) than ${store.location} (serial ${current.serial}); nothing was written. Use --force only if you mean to roll back`,
      );
    }
    if (incoming.serial === current.serial) {
      if (sameContent(incoming, current)) return summary(current, false);
      throw new StateError(
        `${what} and ${store.location} both have serial ${current.serial} but differ (diverged copies); nothing was written`,
      );
    }
  }
  // Creates in flight on either side stay journaled: dropping one could duplicate a resource.
  const pending = { ...current.pending, ...incoming.pending };
  const written = await store.replace({ ...incoming, pending });
  return summary(written, true);
}

function sameContent(a: State, b: State): boolean {
  const strip = ({ pending: _p, ...s }: State) => canonicalJson({ ...s, serial: 0 });
  return strip(a) === strip(b);
}

/** `agents state push`: replaces the stored state with a state document, under the lock. */
export async function pushState(
  backend: StateBackend,
  text: string,
  label: string,
  options: { force?: boolean } = {},
): Promise<TransferResult> {
  const incoming = parseStateText(text, label);
  const store = await LockedState.open(backend, "agents state push");
  try {
    return await replaceChecked(store, incoming, label, options.force === true);
  } finally {
    await store.release();
  }
}

/**
 * `agents state migrate`: copies the state (and its journal) from one backend to another, holding
 * both locks, then reads the target back to check it. The source is left as it was.
 */
export async function migrateState(
  from: StateBackend,
  to: StateBackend,
  options: { force?: boolean } = {},
): Promise<TransferResult> {
  if (from.kind === to.kind && from.location === to.location)
    throw new StateError(`the source and the target are the same state (${from.location})`);
  const source = await LockedState.open(from, "agents state migrate");
  try {
    if (!source.existed && Object.keys(source.state.pending ?? {}).length === 0)
      throw new StateError(`there is no state to migrate at ${from.location}`);
    const target = await LockedState.open(to, "agents state migrate");
    let result: TransferResult;
    try {
      result = await replaceChecked(target, source.state, from.location, options.force === true);
    } finally {
      await target.release();
    }
    const check = await to.read();
    if (!sameContent(check.state, { ...source.state, serial: check.state.serial }))
      throw new StateError(`the state read back from ${to.location} differs from ${from.location}`);
    return result;
  } finally {
    await source.release();
  }
}
