// `agents import` and `agents state list|show|rm|mv`. Every write holds the state lock.

import { formatAddress, parseAddress } from "../model/address.js";
import type { ProviderRuntime } from "../providers/registry.js";
import { LockedStateFile, readState } from "../state/file-store.js";
import { type ResourceState, StateError } from "../state/types.js";
import { createRuntime, type EngineOptions, statePathFor } from "./api.js";

export async function listState(statePath: string): Promise<ResourceState[]> {
  const { state } = await readState(statePath);
  return Object.values(state.resources).sort((a, b) => a.address.localeCompare(b.address));
}

export async function showState(statePath: string, address: string): Promise<ResourceState> {
  const { state } = await readState(statePath);
  const entry = state.resources[address];
  if (!entry) throw new StateError(notInState(address, Object.keys(state.resources)));
  return entry;
}

/** Forgets a resource without touching the remote (how an external resource is released). */
export async function removeFromState(
  statePath: string,
  address: string,
  command = "agents state rm",
): Promise<ResourceState> {
  const store = await LockedStateFile.open(statePath, command);
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

export async function moveInState(statePath: string, from: string, to: string): Promise<ResourceState> {
  const target = parsed(to);
  const source = parsed(from);
  if (target.provider !== source.provider || target.kind !== source.kind) {
    throw new StateError(
      `state mv renames within one provider and kind: ${from} → ${to} changes ${target.provider !== source.provider ? "the provider" : "the kind"}`,
    );
  }
  const store = await LockedStateFile.open(statePath, "agents state mv");
  try {
    const entry = store.state.resources[from];
    if (!entry) throw new StateError(notInState(from, Object.keys(store.state.resources)));
    if (store.state.resources[to])
      throw new StateError(`${to} is already in state; remove it first with agents state rm`);
    const moved = { ...entry, address: formatAddress(target), name: target.name };
    await store.update((resources) => {
      delete resources[from];
      resources[moved.address] = moved;
      for (const r of Object.values(resources))
        r.dependsOn = r.dependsOn.map((d) => (d === from ? moved.address : d));
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
  const runtime: ProviderRuntime = createRuntime(options);
  const handler = runtime.requireHandler(declared.provider, declared.kind, address);
  const store = await LockedStateFile.open(statePathFor(options), "agents import");
  try {
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
    const entry: ResourceState = {
      address,
      kind: declared.kind,
      name: declared.name,
      provider: declared.provider,
      id: remote.id,
      external: false,
      // What the remote shows becomes last-applied: the next plan lists what differs from the file.
      spec: remote.spec,
      ...(remote.extra ? { extra: remote.extra } : {}),
      ...(remote.version !== undefined ? { version: remote.version } : {}),
      dependsOn: [...declared.dependsOn].sort(),
      updatedAt: new Date().toISOString(),
    };
    await store.update((resources) => {
      resources[address] = entry;
    });
    return entry;
  } finally {
    await store.release();
  }
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
