// The plan's side of the `moved:`, `import:` and `removed:` lists (config/schema/blocks.ts): what
// each does to this plan, against the state it reads. Validation already proved each address
// well-formed, each `from` undeclared and each `to` declared, and no two entries claiming one
// address; what only the state and the remote can tell is checked here.
//
// - moved: the state entry at `from` (or at any step of a chain a → b → c) is planned at the final
//   `to`, as `agents state mv` would leave it; the action there carries `previousAddress`, and apply
//   renames the entry before it runs. Once renamed, the entry stays: the same list plans nothing.
// - import: a declared address state does not record is planned as `import` of the remote id
//   (read now: an id that does not exist is an error naming the address and the id), with the
//   changes the config then makes; apply records it, as `agents import` does, and updates it.
// - removed: a recorded address no longer declared is planned as `forget` (`destroy: false`: state
//   drops it, the remote object stays) or as the delete it would be anyway (`destroy: true`).
import { parseAddress } from "../model/address.js";
import { ProviderHttpError } from "../providers/http.js";
import type { ProviderRuntime } from "../providers/registry.js";
import { moveEntry } from "../state/moves.js";
import type { State } from "../state/types.js";
import type { BoundResource } from "./bind.js";
import { mapBounded } from "./bounded.js";
import { fieldChanges, keyNamed, ownershipStamp } from "./decide.js";
import { PlanError, type PlannedAction } from "./types.js";

export interface MovedBlock {
  from: string;
  to: string;
}
export interface ImportBlock {
  to: string;
  id: string;
}
export interface RemovedBlock {
  from: string;
  destroy: boolean;
}

/** The three lists as the engine gets them, addresses in the form plans print. */
export interface StateBlocks {
  moved: MovedBlock[];
  imports: ImportBlock[];
  removed: RemovedBlock[];
}

export function hasBlocks(blocks: StateBlocks | undefined): blocks is StateBlocks {
  return !!blocks && blocks.moved.length + blocks.imports.length + blocks.removed.length > 0;
}

/**
 * The state as the plan compares with it once the moves are made: a copy with each entry a move
 * applies to renamed (as `agents state mv` renames it), and, by new address, the address each was
 * recorded under. The state itself is left alone: apply makes the moves the plan shows.
 */
export function planMoves(
  state: State,
  moved: readonly MovedBlock[],
): { state: State; moves: Map<string, string> } {
  const moves = new Map<string, string>();
  if (moved.length === 0) return { state, moves };
  const next = new Map(moved.map((m) => [m.from, m.to]));
  const resources = { ...state.resources };
  for (const from of next.keys()) {
    if (!state.resources[from]) continue;
    // Follow the chain to its end (validation refused cycles; the bound is a guard).
    let to = next.get(from)!;
    for (let steps = 0; next.has(to) && steps < next.size; steps++) to = next.get(to)!;
    const other = moves.get(to);
    if (other !== undefined) {
      throw new PlanError(
        `moved: ${other} and ${from} would both move to ${to}, and state records both; ` +
          `keep one with agents state rm '${from}' (the remote object stays), or fix the moved list`,
        "moved_conflict",
        to,
      );
    }
    const recorded = state.resources[to];
    if (recorded) {
      throw new PlanError(
        `moved: cannot move ${from} to ${to}: state already records ${to} (${recorded.id}). ` +
          `If ${to} is the object you mean to keep, forget the old entry instead (removed: [{from: '${from}', destroy: false}], or agents state rm '${from}'); ` +
          "otherwise release the entry at the target first with agents state rm",
        "moved_target_in_state",
        to,
      );
    }
    moves.set(to, from);
  }
  if (moves.size === 0) return { state, moves };
  for (const [to, from] of moves) {
    const parsed = parseAddress(to);
    if (!parsed.ok) throw new PlanError(`moved: ${parsed.error}`, "bad_address", to);
    moveEntry(resources, from, parsed.value);
  }
  return { state: { ...state, resources }, moves };
}

/** Marks the action of each moved address with the address state records it under until apply. */
export function markMoves(actions: PlannedAction[], moves: ReadonlyMap<string, string>): void {
  if (moves.size === 0) return;
  for (const action of actions) {
    const from = moves.get(action.address);
    if (from === undefined) continue;
    action.previousAddress = from;
    // The remote still names the old address as its owner: re-stamping it is the move's own
    // change, not drift.
    for (const change of action.changes)
      if (change.path === "metadata.agents.resource" && change.before === from) change.source = "config";
    const drift = action.changes.some((c) => c.source === "drift");
    const fields = action.changes.length;
    const why =
      action.action === "update" && !drift
        ? `${fields} field${fields === 1 ? "" : "s"} to update (a remote name follows its key; the ownership label names the new address)`
        : action.reason;
    action.reason = `moved from ${from}${action.action === "noop" ? "" : `; ${why}`}`;
  }
}

/** A delete of an address a `removed:` entry names becomes a forget (`destroy: false`), or says why. */
export function planRemoved(actions: PlannedAction[], removed: readonly RemovedBlock[]): void {
  if (removed.length === 0) return;
  const byAddress = new Map(removed.map((r) => [r.from, r]));
  for (const action of actions) {
    const entry = byAddress.get(action.address);
    if (!entry || action.action !== "delete") continue;
    if (entry.destroy) {
      action.reason = `removed (destroy: true): ${action.reason}`;
      continue;
    }
    Object.assign(action, {
      action: "forget",
      reason: "removed (destroy: false): agents forgets it; the remote object stays and is no longer managed",
    });
    // Nothing is removed remotely: the leftovers of an interrupted replacement are not this entry's.
    delete action.strays;
    delete action.remains;
  }
}

/**
 * Each planned create of an address an `import:` entry names becomes the import of that id: the
 * object is read now (so a wrong id fails the plan, not the apply), and the action lists what the
 * config then changes, the ownership labels included. An address state already records plans as
 * it would without the entry (as Terraform, which imports once); a different id is a warning.
 */
export async function planImports(
  actions: PlannedAction[],
  imports: readonly ImportBlock[],
  options: {
    runtime: ProviderRuntime;
    state: State;
    byAddress: ReadonlyMap<string, BoundResource>;
    lookup: (address: string) => { id: string; extra?: Record<string, unknown> } | undefined;
    concurrency: number;
    signal: AbortSignal;
  },
): Promise<string[]> {
  if (imports.length === 0) return [];
  const { runtime, state, byAddress, lookup, signal } = options;
  const warnings: string[] = [];
  const wanted = new Map(imports.map((i) => [i.to, i.id]));
  const creates: [PlannedAction, string][] = [];
  for (const action of actions) {
    const id = wanted.get(action.address);
    if (id === undefined) continue;
    const recorded = state.resources[action.address];
    if (recorded) {
      if (recorded.id !== id)
        warnings.push(
          `import: ${action.address} is already managed as ${recorded.id}, so the import of ${id} is ignored; remove the entry from the import list`,
        );
      continue;
    }
    if (action.action === "create" && !action.external) creates.push([action, id]);
  }
  await mapBounded(creates, options.concurrency, async ([action, id]) => {
    const bound = byAddress.get(action.address)!;
    const owner = Object.values(state.resources).find((r) => r.provider === action.provider && r.id === id);
    if (owner?.kind === action.kind) {
      throw new PlanError(
        `import: ${action.address} names ${id}, which state already records as ${owner.address}; one remote object is managed by one address (to rename ${owner.address}, use moved: instead)`,
        "import_already_managed",
        action.address,
      );
    }
    if (owner) {
      throw new PlanError(
        `import: ${action.address}: ${id} is the id of ${owner.address}, not of one of ${action.provider}'s ${action.kind}; give the id of the object to import`,
        "import_wrong_kind",
        action.address,
      );
    }
    const ctx = runtime.context(action, lookup, signal, () => {});
    const found = await readImported(bound, ctx, id);
    if (found === "gone") {
      throw new PlanError(
        `import: ${action.address}: ${action.provider} has no ${action.kind} with id ${id} (or it is archived). ` +
          `Check the id: it must be the id of an existing ${action.kind} object on ${action.provider}, not of another kind`,
        "import_not_found",
        action.address,
      );
    }
    const changes = keyNamed(fieldChanges({}, found.spec, bound.spec, bound.handler, true), action.name);
    if (bound.handler.update) changes.push(...ownershipStamp(found.owner, runtime.project, action.address));
    const updates = changes.length;
    const forcing = changes.filter((c) => c.forcesReplacement).map((c) => c.path);
    Object.assign(action, {
      action: "import",
      remoteId: found.id,
      changes,
      reason:
        updates === 0
          ? `import ${found.id}: it matches the config`
          : !bound.handler.update
            ? `import ${found.id}; ${action.kind} cannot be updated in place on ${action.provider}, so the next plan replaces it to match the config`
            : forcing.length > 0
              ? `import ${found.id}; ${forcing.join(", ")} cannot be changed in place, so the next plan replaces it to match the config`
              : `import ${found.id}, then update ${updates} field${updates === 1 ? "" : "s"} to match the config`,
    });
  });
  return warnings;
}

/** The remote object `id` of the bound resource's kind, or "gone" (an id of no object of this kind). */
async function readImported(
  bound: BoundResource,
  ctx: ReturnType<ProviderRuntime["context"]>,
  id: string,
): Promise<Exclude<Awaited<ReturnType<BoundResource["handler"]["read"]>>, "gone"> | "gone"> {
  try {
    const found = await bound.handler.read(ctx, id);
    return found === "gone" || found.archived ? "gone" : found;
  } catch (error) {
    // An id of the wrong shape is refused by some providers as invalid rather than not found.
    if (error instanceof ProviderHttpError && [400, 404, 422].includes(error.status)) return "gone";
    throw error;
  }
}
