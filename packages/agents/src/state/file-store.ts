// The file backend: agents.state.json beside the config, written atomically (temp file, fsync,
// rename, fsync of the folder) with mode 0600, under a lock file held for the whole run.
import { randomUUID } from "node:crypto";
import { constants, promises as fs } from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { IntentJournal, livePending, readJournal } from "./journal.js";
import {
  type LockInfo,
  type PendingCreate,
  type ResourceState,
  STATE_VERSION,
  type State,
  StateError,
  StateLockedError,
} from "./types.js";
import { upgradeState } from "./upgrade.js";
import { writeAtomically } from "./write.js";

export { writeAtomically } from "./write.js";

export const STATE_FILE_NAME = "agents.state.json";

export function lockPathFor(statePath: string): string {
  return `${statePath}.lock`;
}

export function emptyState(): State {
  return { version: STATE_VERSION, serial: 0, lineage: randomUUID(), resources: {} };
}

/** Reads a state file without locking (for `state list/show` and saved-plan checks). */
export async function readState(
  statePath: string,
): Promise<{ state: State; exists: boolean; upgradedFrom?: number }> {
  let text: string;
  try {
    text = await fs.readFile(statePath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    const state = emptyState();
    const pending = await readJournal(statePath);
    if (Object.keys(pending).length > 0) state.pending = pending;
    return { state, exists: false };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new StateError(
      `${statePath}: not valid JSON (${(error as Error).message}); restore it from a backup`,
    );
  }
  const upgraded = upgradeState(raw, statePath);
  const pending = livePending(
    { ...upgraded.state.pending, ...(await readJournal(statePath)) },
    upgraded.state.resources,
  );
  upgraded.state.pending = pending;
  if (Object.keys(pending).length === 0) delete upgraded.state.pending;
  return { ...upgraded, exists: true };
}

export async function readLock(statePath: string): Promise<LockInfo | undefined> {
  try {
    return JSON.parse(await fs.readFile(lockPathFor(statePath), "utf8")) as LockInfo;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Removes a lock by id; refuses a mismatching id so a wrong copy-paste cannot break a live run. */
export async function forceUnlock(statePath: string, lockId: string): Promise<LockInfo> {
  const holder = await readLock(statePath);
  if (!holder) throw new StateError(`no lock is held on ${statePath}`);
  if (holder.id !== lockId) {
    throw new StateError(`lock id mismatch: the lock on ${statePath} is ${holder.id}, not ${lockId}`);
  }
  await fs.rm(lockPathFor(statePath), { force: true });
  return holder;
}

/**
 * An open, locked state. All writes go through `update`, which serializes them so each
 * finished step is on disk before the next one is recorded.
 */
/**
 * An open, locked state. All writes go through `update`. A step's update resolves only once a
 * write containing it is on disk; updates that arrive while a write is in flight are committed
 * together in the next write (group commit), so a wide apply does not pay one fsync per step.
 */
export class LockedStateFile {
  private batch: Array<{ change: StateChange; resolve: (s: State) => void; reject: (e: unknown) => void }> =
    [];
  private flushing: Promise<void> | undefined;
  private released = false;
  private readonly journal: IntentJournal;
  /** Journaled creates not yet recorded; shared by every view of the state (never cloned). */
  private readonly intents: Record<string, PendingCreate>;
  /** Whether this run wrote anything (a read-only run such as plan must leave every file alone). */
  private wrote = false;
  /** Number of state files written (for benchmarks). */
  writes = 0;

  private constructor(
    readonly path: string,
    readonly lock: LockInfo,
    private current: State,
    readonly existed: boolean,
    readonly upgradedFrom: number | undefined,
  ) {
    this.journal = new IntentJournal(path);
    this.intents = current.pending ?? {};
    this.current = { ...current, pending: this.intents };
  }

  static async open(statePath: string, command: string): Promise<LockedStateFile> {
    const lock: LockInfo = {
      id: randomUUID(),
      pid: process.pid,
      host: hostname(),
      command,
      since: new Date().toISOString(),
    };
    await fs.mkdir(dirname(statePath), { recursive: true });
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(
        lockPathFor(statePath),
        constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY,
        0o600,
      );
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = await readLock(statePath).catch(() => undefined);
      throw new StateLockedError(
        holder ?? { id: "unknown", pid: 0, host: "unknown", command: "unknown", since: "unknown" },
        lockPathFor(statePath),
      );
    }
    try {
      await handle.writeFile(JSON.stringify(lock, null, 2));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      const { state, exists, upgradedFrom } = await readState(statePath);
      return new LockedStateFile(statePath, lock, state, exists, upgradedFrom);
    } catch (error) {
      await fs.rm(lockPathFor(statePath), { force: true });
      throw error;
    }
  }

  get state(): State {
    return this.current;
  }

  /** Applies `change` to the state and resolves once it is durably written. */
  update(change: StateChange): Promise<State> {
    if (this.released) return Promise.reject(new StateError("state file already released"));
    this.wrote = true;
    const done = new Promise<State>((resolve, reject) => this.batch.push({ change, resolve, reject }));
    this.flushing ??= this.flush();
    return done;
  }

  private async flush(): Promise<void> {
    while (this.batch.length > 0) {
      const items = this.batch.splice(0);
      const { pending: _shared, ...durable } = this.current;
      const next: State = { ...structuredClone(durable), pending: this.intents };
      const applied: typeof items = [];
      for (const item of items) {
        try {
          item.change(next.resources, next);
          applied.push(item);
        } catch (error) {
          item.reject(error);
        }
      }
      next.serial = this.current.serial + 1;
      try {
        await writeAtomically(this.path, serialize(next));
        this.writes++;
        this.current = next;
        for (const item of applied) item.resolve(next);
      } catch (error) {
        for (const item of applied) item.reject(error);
      }
    }
    // Same tick as the empty-batch check: an update arriving later starts a new flush.
    this.flushing = undefined;
  }

  /**
   * Journals a create before its request is sent (see journal.ts). The entry is settled by the
   * state write that records the resource, and dropped from the journal when the run ends.
   */
  async intend(entry: PendingCreate): Promise<void> {
    this.wrote = true;
    await this.journal.append({ op: "create", ...entry });
    this.intents[entry.address] = entry;
  }

  /** Writes the state as-is (e.g. after an upgrade) with a new serial. */
  persist(): Promise<State> {
    return this.update(() => {});
  }

  async release(): Promise<void> {
    if (this.released) return;
    await this.flushing;
    this.released = true;
    if (this.wrote) await this.journal.compact(livePending(this.intents, this.current.resources));
    const holder = await readLock(this.path).catch(() => undefined);
    if (holder?.id === this.lock.id) await fs.rm(lockPathFor(this.path), { force: true });
  }
}

export type StateChange = (resources: Record<string, ResourceState>, state: State) => void;

/** The state file's text; pending creates live in the journal, not here. */
export function serialize(state: State): string {
  const resources: Record<string, ResourceState> = {};
  for (const address of Object.keys(state.resources).sort()) resources[address] = state.resources[address]!;
  const { pending: _pending, ...rest } = state;
  return `${JSON.stringify({ ...rest, resources }, null, 2)}\n`;
}
