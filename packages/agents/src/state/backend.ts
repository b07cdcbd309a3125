// Where a state lives is a backend (a file beside agents.yaml, or a row in PostgreSQL); what a run
// does with it is the same on both: `LockedState` holds the lock, group-commits every change and
// journals creates before they are sent. A backend only provides the storage primitives.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import {
  type LockInfo,
  type PendingCreate,
  type ResourceState,
  STATE_VERSION,
  type State,
  StateError,
} from "./types.js";

export interface StateRead {
  state: State;
  /** False when nothing was stored yet (an empty state with a fresh lineage is returned). */
  exists: boolean;
  /** The format version the stored state was upgraded from, when it was older. */
  upgradedFrom?: number;
}

export type JournalEntry =
  | ({ op: "create" } & PendingCreate)
  | { op: "resolved"; address: string; at: string };

/** The storage a backend hands to a run once it holds the lock. */
export interface LockedStorage {
  /** The state as stored when the lock was taken. */
  readonly initial: StateRead;
  /**
   * Durably replaces the stored state with `next`. Compare-and-set: refuses with
   * StateConflictError when the stored serial is no longer `previousSerial`.
   */
  write(next: State, previousSerial: number): Promise<void>;
  /** Durably appends journal entries (one flush for the batch). */
  appendJournal(entries: JournalEntry[]): Promise<void>;
  /** Replaces the journal with what is still pending (removes it when nothing is). */
  compactJournal(pending: PendingCreate[]): Promise<void>;
  /** Gives the lock back. Never throws for a lock that is already gone. */
  unlock(): Promise<void>;
}

export interface StateBackend {
  readonly kind: "file" | "postgres";
  /** Where the state lives, safe to print (never a password or a full connection URL). */
  readonly location: string;
  /** Reads without locking (`state list|show`, `state pull`, sync). */
  read(): Promise<StateRead>;
  /** Takes the lock or fails at once with StateLockedError naming the holder. */
  lock(info: LockInfo): Promise<LockedStorage>;
  readLock(): Promise<LockInfo | undefined>;
  /** Releases a lock by id; refuses a mismatching id. Returns the holder it released. */
  forceUnlock(lockId: string): Promise<LockInfo>;
  /** Frees connections; the backend is unusable afterwards. */
  close(): Promise<void>;
}

/** The stored state moved on under this run (another writer, or a lock lost with its connection). */
export class StateConflictError extends StateError {}

export function emptyState(): State {
  return { version: STATE_VERSION, serial: 0, lineage: randomUUID(), resources: {} };
}

function newLockInfo(command: string): LockInfo {
  return { id: randomUUID(), pid: process.pid, host: hostname(), command, since: new Date().toISOString() };
}

/**
 * Each entry's text as it sits in the stored JSON (indented under `resources`). Entries are never
 * changed in place (a change replaces the object), so a wide apply serializes each entry once
 * instead of the whole state on every write.
 */
const entryText = new WeakMap<ResourceState, string>();

function resourceText(entry: ResourceState): string {
  let text = entryText.get(entry);
  if (text === undefined) {
    text = JSON.stringify(entry, null, 2).replaceAll("\n", "\n    ");
    entryText.set(entry, text);
  }
  return text;
}

/**
 * The stored text of a state (the same JSON in a file and in a database row): sorted, no journal.
 * Exactly `JSON.stringify({version, serial, lineage, resources, ...rest}, null, 2)` with the
 * resources sorted by address, built from the cached text of each entry.
 */
export function serialize(state: State): string {
  const { pending: _pending, version, serial, lineage, resources, ...rest } = state;
  const addresses = Object.keys(resources).sort();
  const body = addresses.length
    ? `{\n${addresses.map((a) => `    ${JSON.stringify(a)}: ${resourceText(resources[a]!)}`).join(",\n")}\n  }`
    : "{}";
  const tail = JSON.stringify(rest, null, 2);
  const extra = tail === "{}" ? "" : `,\n${tail.slice(2, -2)}`;
  return `{\n  "version": ${JSON.stringify(version)},\n  "serial": ${JSON.stringify(serial)},\n  "lineage": ${JSON.stringify(lineage)},\n  "resources": ${body}${extra}\n}\n`;
}

/** JSON with every object's keys sorted: equal states give equal text whatever stored them (jsonb reorders keys). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

/** Merges journaled creates into a state just read; drops the ones the state already records. */
export function withJournal(read: StateRead, journal: Record<string, PendingCreate>): StateRead {
  const pending = livePending({ ...read.state.pending, ...journal }, read.state.resources);
  read.state.pending = pending;
  if (Object.keys(pending).length === 0) delete read.state.pending;
  return read;
}

/** A journaled create is settled once state records the resource after the intent was written. */
function livePending(
  pending: Record<string, PendingCreate>,
  resources: Record<string, ResourceState>,
): Record<string, PendingCreate> {
  const live: Record<string, PendingCreate> = {};
  for (const [address, entry] of Object.entries(pending)) {
    const recorded = resources[address];
    if (recorded && recorded.updatedAt >= entry.since) continue;
    live[address] = entry;
  }
  return live;
}

/** Replays journal entries in order into the creates still pending. */
export function replayJournal(entries: Iterable<JournalEntry>): Record<string, PendingCreate> {
  const pending: Record<string, PendingCreate> = {};
  for (const entry of entries) {
    if (entry.op === "create") {
      const { op: _op, ...create } = entry;
      pending[entry.address] = create;
    } else delete pending[entry.address];
  }
  return pending;
}

/**
 * A change to the state: it may add, replace or delete entries of `resources` and of
 * `state.deferred`, and set top-level fields, but never edits an entry object in place.
 */
type StateChange = (resources: Record<string, ResourceState>, state: State) => void;

/**
 * An open, locked state. All writes go through `update`. A step's update resolves only once a
 * write containing it is stored durably; updates that arrive while a write is in flight are
 * committed together in the next write (group commit), so a wide apply does not pay one flush per
 * step. Journal appends are batched the same way.
 */
export class LockedState {
  private batch: Array<{ change: StateChange; resolve: (s: State) => void; reject: (e: unknown) => void }> =
    [];
  private flushing: Promise<void> | undefined;
  private journalBatch: Array<{ entry: JournalEntry; resolve: () => void; reject: (e: unknown) => void }> =
    [];
  private journalFlushing: Promise<void> | undefined;
  private released = false;
  /** Journaled creates not yet recorded; shared by every view of the state (never cloned). */
  private readonly intents: Record<string, PendingCreate>;
  private current: State;
  /** Whether this run wrote anything (a read-only run such as plan must leave everything alone). */
  private wrote = false;
  /** Number of state writes (for benchmarks). */
  writes = 0;
  readonly existed: boolean;
  readonly upgradedFrom: number | undefined;

  private constructor(
    readonly backend: StateBackend,
    readonly lock: LockInfo,
    private readonly storage: LockedStorage,
  ) {
    const { state, exists, upgradedFrom } = storage.initial;
    this.existed = exists;
    this.upgradedFrom = upgradedFrom;
    this.intents = state.pending ?? {};
    this.current = { ...state, pending: this.intents };
  }

  static async open(backend: StateBackend, command: string): Promise<LockedState> {
    const lock = newLockInfo(command);
    return new LockedState(backend, lock, await backend.lock(lock));
  }

  /** Where the state lives, safe to print. */
  get location(): string {
    return this.backend.location;
  }

  get state(): State {
    return this.current;
  }

  /** Applies `change` to the state and resolves once it is durably written. */
  update(change: StateChange): Promise<State> {
    if (this.released) return Promise.reject(new StateError("state already released"));
    this.wrote = true;
    const done = new Promise<State>((resolve, reject) => this.batch.push({ change, resolve, reject }));
    this.flushing ??= this.flush();
    return done;
  }

  private async flush(): Promise<void> {
    // Let the steps finishing in this turn of the event loop join the first write.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.batch.length > 0) {
      const items = this.batch.splice(0);
      // Copy on write: the changes replace or delete entries (never edit one in place), so a
      // shallow copy of the maps keeps the current state intact if the write fails.
      const { pending: _shared, resources, deferred, ...durable } = this.current;
      const next: State = {
        ...durable,
        resources: { ...resources },
        ...(deferred ? { deferred: { ...deferred } } : {}),
        pending: this.intents,
      };
      const applied: typeof items = [];
      for (const item of items) {
        try {
          item.change(next.resources, next);
          applied.push(item);
        } catch (error) {
          item.reject(error);
        }
      }
      // A replace (push, migrate) may carry a higher serial forward; a write never moves it back.
      next.serial = Math.max(this.current.serial + 1, next.serial);
      try {
        await this.storage.write(next, this.current.serial);
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
   * Journals a create before its request is sent. The entry is settled by the state write that
   * records the resource, and dropped from the journal when the run ends.
   */
  async intend(entry: PendingCreate): Promise<void> {
    if (this.released) throw new StateError("state already released");
    this.wrote = true;
    await new Promise<void>((resolve, reject) => {
      this.journalBatch.push({ entry: { op: "create", ...entry }, resolve, reject });
      this.journalFlushing ??= this.flushJournal();
    });
    this.intents[entry.address] = entry;
  }

  private async flushJournal(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.journalBatch.length > 0) {
      const items = this.journalBatch.splice(0);
      try {
        await this.storage.appendJournal(items.map((i) => i.entry));
        for (const item of items) item.resolve();
      } catch (error) {
        for (const item of items) item.reject(error);
      }
    }
    this.journalFlushing = undefined;
  }

  /** Writes the state as-is (e.g. after an upgrade) with a new serial. */
  persist(): Promise<State> {
    return this.update(() => {});
  }

  /**
   * Replaces the whole state (state push, migrate) keeping the serial moving forward, and the
   * journal with `pending`. Resolves once both are stored.
   */
  async replace(state: State): Promise<State> {
    const pending = Object.values(state.pending ?? {});
    const written = await this.update((resources, next) => {
      for (const key of Object.keys(resources)) delete resources[key];
      Object.assign(resources, structuredClone(state.resources));
      next.lineage = state.lineage;
      next.serial = state.serial;
      if (state.deferred && Object.keys(state.deferred).length > 0)
        next.deferred = structuredClone(state.deferred);
      else delete next.deferred;
    });
    for (const key of Object.keys(this.intents)) delete this.intents[key];
    for (const entry of pending) this.intents[entry.address] = entry;
    await this.storage.compactJournal(pending);
    return written;
  }

  async release(): Promise<void> {
    if (this.released) return;
    await this.flushing;
    await this.journalFlushing;
    this.released = true;
    try {
      if (this.wrote)
        await this.storage.compactJournal(Object.values(livePending(this.intents, this.current.resources)));
    } finally {
      await this.storage.unlock();
    }
  }
}
