import { hostname } from "node:os";
// The state file's shape. See docs/state.md; bump STATE_VERSION with an upgrade step in upgrade.ts.
import type { Kind, ProviderName, Spec, UploadIntent } from "../providers/types.js";

export const STATE_VERSION = 2;

export interface ResourceState {
  /** `<provider>.<kind>["<name>"]` */
  address: string;
  kind: Kind;
  name: string;
  provider: ProviderName;
  /** Remote id; for an emulated resource a synthetic local id. */
  id: string;
  /** Declared with an existing remote id (environment_id, identity_id): never changed or deleted. */
  external: boolean;
  /** Last-applied spec, sensitive fields replaced by keyed hashes. */
  spec: Spec;
  /** Provider ids kept for later calls (credential ids, memory ids, ...). */
  extra?: Record<string, unknown>;
  version?: number | string;
  dependsOn: string[];
  updatedAt: string;
  /**
   * Declared with `lifecycle.prevent_destroy: true` at the last apply: a plan that would delete or
   * replace it refuses, also once its declaration is gone from the file (docs/configuration.md#lifecycle).
   */
  preventDestroy?: true;
}

export interface State {
  version: typeof STATE_VERSION;
  /** Incremented on every write; a saved plan records it to refuse a stale apply. */
  serial: number;
  /** Random id fixed when the state is first created; distinguishes unrelated states. */
  lineage: string;
  /**
   * The project this state belongs to: the `agents.project` ownership label of everything it
   * created. Recorded by the first run that writes (v2); every clone that uses this state labels
   * and looks up with it, whatever its folder is called.
   */
  project?: string;
  /**
   * The key (hex) of the keyed hashes that stand for secret fields in `resources`: random, made with
   * the state, so everyone who uses the state compares secrets alike. Absent only in states older
   * than v2 until their next write (see secrets.ts).
   */
  hashKey?: string;
  resources: Record<string, ResourceState>;
  /**
   * Intent journal: a create is recorded here before its request is sent and removed once the
   * result is in `resources`. An entry left behind by a crash makes the next run look the
   * resource up by its ownership metadata and adopt it instead of creating a duplicate.
   */
  pending?: Record<string, PendingCreate>;
  /**
   * Follow-up work a removal handed over (HandlerContext.defer), keyed by the task's key: kept
   * until it succeeds, so a partial destroy is visible and the next destroy resumes it even when
   * no ordinary resource is left (provider_b default memory store, spec destroy rules 1–3).
   */
  deferred?: Record<string, DeferredRecord>;
}

interface DeferredRecord {
  key: string;
  type: string;
  provider: ProviderName;
  /** The resource whose removal deferred it; the task runs once that resource is gone from state. */
  address: string;
  data: Record<string, unknown>;
  description: string;
  since: string;
}

export interface PendingCreate {
  address: string;
  kind: Kind;
  name: string;
  provider: ProviderName;
  since: string;
  /**
   * Uploads made for this resource, journaled before each request (kept across interrupted
   * runs until a run settles them: adopts what the resource uses, deletes the rest). An entry
   * that carries uploads may also stand for an update of a recorded resource.
   */
  uploads?: UploadIntent[];
  /**
   * The create half of a create-before-destroy replacement: the id of the object it replaces. The
   * entry stays live after the new object is recorded, until the old one is removed, so a run cut
   * in between leaves the old object to the next plan (removed as a stray), never live and unknown.
   */
  replaces?: string;
}

export interface LockInfo {
  id: string;
  pid: number;
  host: string;
  command: string;
  since: string;
}

export class StateError extends Error {
  override readonly name = "StateError";
}

/** True only when the holder ran on this host and its pid is gone (never guessed across hosts). */
function holderIsGone(holder: LockInfo): boolean {
  if (holder.host !== hostname() || !holder.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

export class StateLockedError extends StateError {
  /**
   * `where` says where the state lives (safe to print). `sessionLock`: the backend's lock ends
   * with its holder's connection (PostgreSQL), so a dead holder never needs a manual unlock.
   */
  constructor(
    readonly holder: LockInfo,
    where: string,
    sessionLock = false,
  ) {
    super(
      `state is locked by "${holder.command}" (pid ${holder.pid} on ${holder.host}, since ${holder.since}, lock id ${holder.id}); ` +
        (sessionLock
          ? `wait for it to finish (PostgreSQL frees the lock by itself when that process's connection ends); to end a hung holder's connection run: agents force-unlock ${holder.id}`
          : holderIsGone(holder)
            ? `that process is no longer running: check the state, then release the lock with: agents force-unlock ${holder.id}`
            : `wait for it to finish, or if that process is gone run: agents force-unlock ${holder.id}`) +
        `  [${where}]`,
    );
  }
}

// The journal's entries: both backends store them, and journal-replay.ts replays them.
export type JournalEntry =
  | ({ op: "create" } & PendingCreate)
  | { op: "resolved"; address: string; at: string }
  | RecordEntry;

/**
 * A resource recorded (`entry`) or removed (`null`) on top of the stored state whose serial is
 * `base`. A run journals its steps this way instead of rewriting the whole state for each, and
 * writes the whole state once at the end; a reader applies the records whose base is the serial
 * it read, so records a later whole write already contains are never applied twice.
 */
export interface RecordEntry {
  op: "record";
  base: number;
  address: string;
  entry: ResourceState | null;
}
