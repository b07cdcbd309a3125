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
  /**
   * The serial of the stored whole state, when the journal held records on top of it: the state's
   * own serial then counts them too, so every recorded step moves the serial a reader sees (a
   * saved plan made before them is refused as stale).
   */
  storedSerial?: number;
}

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

/** What a journal holds: creates in flight, and records since the stored state. */
export interface JournalReplay {
  pending: Record<string, PendingCreate>;
  records: RecordEntry[];
}

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

/**
 * Applies the journal to a state just read: the records made on top of it, then the creates still
 * in flight (dropping the ones the state now records).
 */
export function withJournal(read: StateRead, journal: JournalReplay): StateRead {
  const records = journal.records.filter((r) => r.base === read.state.serial);
  if (records.length > 0) {
    const resources = { ...read.state.resources };
    for (const { address, entry } of records) {
      if (entry) resources[address] = entry;
      else delete resources[address];
    }
    read.state.resources = resources;
    read.storedSerial = read.state.serial;
    read.state.serial += records.length;
  }
  const pending = livePending({ ...read.state.pending, ...journal.pending }, read.state.resources);
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

/**
 * The resource entries a batch of changes recorded or removed (`changed`, by address), when that is
 * all it changed; undefined when anything else changed (serial, lineage, deferred work, ...),
 * which needs a whole write.
 */
function recordsOnly(
  before: State,
  next: State,
  changed: Map<string, ResourceState | undefined>,
): Array<{ address: string; entry: ResourceState | null }> | undefined {
  for (const key of Object.keys(next) as Array<keyof State>) {
    if (key === "resources" || key === "pending" || key === "deferred") continue;
    if (next[key] !== before[key]) return undefined;
  }
  for (const key of Object.keys(before) as Array<keyof State>) if (!(key in next)) return undefined;
  const deferredBefore = before.deferred ?? {};
  const deferredNext = next.deferred ?? {};
  const deferredKeys = new Set([...Object.keys(deferredBefore), ...Object.keys(deferredNext)]);
  for (const key of deferredKeys) if (deferredBefore[key] !== deferredNext[key]) return undefined;
  const records: Array<{ address: string; entry: ResourceState | null }> = [];
  for (const [address, entry] of changed) {
    const was = Object.hasOwn(before.resources, address) ? before.resources[address] : undefined;
    if (was !== entry) records.push({ address, entry: entry ?? null });
  }
  return records;
}

/**
 * The resources as a batch of changes sees them, without copying them: reads fall through to the
 * stored entries, sets and deletes are kept aside by address (undefined: deleted) until the batch
 * is stored. A copy of the whole map per batch made a run of n steps cost n² (a 500-resource apply
 * spent a tenth of a second copying).
 */
function overlay(base: Record<string, ResourceState>): {
  view: Record<string, ResourceState>;
  changed: Map<string, ResourceState | undefined>;
} {
  const changed = new Map<string, ResourceState | undefined>();
  const lookup = (key: string) =>
    changed.has(key) ? changed.get(key) : Object.hasOwn(base, key) ? base[key] : undefined;
  const view = new Proxy({} as Record<string, ResourceState>, {
    get: (_target, key) => (typeof key === "string" ? lookup(key) : undefined),
    set: (_target, key, value: ResourceState | undefined) => {
      if (typeof key !== "string") return false;
      changed.set(key, value);
      return true;
    },
    deleteProperty: (_target, key) => {
      if (typeof key === "string") changed.set(key, undefined);
      return true;
    },
    has: (_target, key) => typeof key === "string" && lookup(key) !== undefined,
    ownKeys: () => [
      ...Object.keys(base).filter((key) => !changed.has(key)),
      ...[...changed].filter(([, entry]) => entry !== undefined).map(([key]) => key),
    ],
    getOwnPropertyDescriptor: (_target, key) => {
      const value = typeof key === "string" ? lookup(key) : undefined;
      return value === undefined
        ? undefined
        : { value, writable: true, enumerable: true, configurable: true };
    },
  });
  return { view, changed };
}

/** Writes `changed` into `resources` itself. */
function commit(
  resources: Record<string, ResourceState>,
  changed: Map<string, ResourceState | undefined>,
): void {
  for (const [address, entry] of changed) {
    if (entry === undefined) delete resources[address];
    else resources[address] = entry;
  }
}

/** Replays journal entries in order: the creates still pending, and the records in order. */
export function replayJournal(entries: Iterable<JournalEntry>): JournalReplay {
  const pending: Record<string, PendingCreate> = {};
  const records: RecordEntry[] = [];
  for (const entry of entries) {
    if (entry.op === "create") {
      const { op: _op, ...create } = entry;
      pending[entry.address] = create;
    } else if (entry.op === "record") records.push(entry);
    else delete pending[entry.address];
  }
  return { pending, records };
}

/**
 * A change to the state: it may add, replace or delete entries of `resources` and of
 * `state.deferred`, and set top-level fields, but never edits an entry object in place.
 */
type StateChange = (resources: Record<string, ResourceState>, state: State) => void;

/**
 * Records journaled since the last whole write before the next change writes the whole state
 * again: it keeps a reader's replay short however long a run is.
 */
const MAX_JOURNALED_RECORDS = 2_000;

/**
 * An open, locked state. All writes go through `update`. A step's update resolves only once it is
 * stored durably. A change that only records or removes resources is appended to the journal as
 * records (a few hundred bytes each) instead of rewriting the whole state, which a wide apply would
 * otherwise do once per step; the whole state is written when anything else changes, when the
 * journal grows long, and when the run releases the state. Updates that arrive while a write is in
 * flight are committed together in the next one (group commit), and journal appends (creates'
 * intents and records) share one batched flush.
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
  /** Records journaled on top of the stored state since its last whole write. */
  private journaled = 0;
  /** The serial of the whole state as stored (the state's own serial also counts the records). */
  private stored: number;
  /** Whole-state writes, journaled records and journal appends (for tests and benchmarks). */
  writes = 0;
  records = 0;
  appends = 0;
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
    this.stored = storage.initial.storedSerial ?? state.serial;
    this.journaled = state.serial - this.stored;
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

  /** Applies `change` to the state and resolves once it is durably stored. */
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
      // The changes see the resources through an overlay, so the current state stays intact if
      // the write fails; once stored, a journaled batch is written into the resources in place
      // (a whole write stores, and keeps, a fresh copy).
      const before = this.current;
      const { pending: _shared, resources, deferred, ...durable } = before;
      const { view, changed } = overlay(resources);
      const next: State = {
        ...durable,
        resources: view,
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
      try {
        // A change may also hand over a new resources map: that is stored whole, as given.
        const replaced = next.resources !== view;
        const records = replaced ? undefined : recordsOnly(before, next, changed);
        if (records && records.length > 0 && this.journaled + records.length <= MAX_JOURNALED_RECORDS) {
          await this.journal(records.map((r) => ({ op: "record", base: this.stored, ...r })));
          commit(resources, changed);
          next.resources = resources;
          next.serial = before.serial + records.length;
          this.journaled += records.length;
          this.records += records.length;
        } else {
          if (!replaced) {
            next.resources = { ...resources };
            commit(next.resources, changed);
          }
          await this.writeWhole(next);
        }
        this.current = next;
        for (const item of applied) item.resolve(next);
      } catch (error) {
        for (const item of applied) item.reject(error);
      }
    }
    // Same tick as the empty-batch check: an update arriving later starts a new flush.
    this.flushing = undefined;
  }

  /** Stores `next` whole with the next serial; the records journaled so far are now in it. */
  private async writeWhole(next: State): Promise<void> {
    // A replace (push, migrate) may carry a higher serial forward; a write never moves it back.
    next.serial = Math.max(this.current.serial + 1, next.serial);
    await this.storage.write(next, this.stored);
    this.stored = next.serial;
    this.writes++;
    this.journaled = 0;
  }

  /** Appends entries to the journal in the next batched flush; resolves once they are durable. */
  private journal(entries: JournalEntry[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let left = entries.length;
      for (const entry of entries)
        this.journalBatch.push({
          entry,
          resolve: () => {
            left -= 1;
            if (left === 0) resolve();
          },
          reject,
        });
      this.journalFlushing ??= this.flushJournal();
    });
  }

  /**
   * Journals a create before its request is sent. The entry is settled by the state write that
   * records the resource, and dropped from the journal when the run ends.
   */
  async intend(entry: PendingCreate): Promise<void> {
    if (this.released) throw new StateError("state already released");
    this.wrote = true;
    await this.journal([{ op: "create", ...entry }]);
    this.intents[entry.address] = entry;
  }

  private async flushJournal(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.journalBatch.length > 0) {
      const items = this.journalBatch.splice(0);
      try {
        await this.storage.appendJournal(items.map((i) => i.entry));
        this.appends++;
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
      // The records journaled by this run go into one whole write; the journal then keeps only
      // the creates still in flight. When that write is refused because the state moved on under
      // this run (its lock was lost and taken over), the records stay in the journal as they are:
      // the run that holds the state now read them when it took the lock.
      if (this.journaled > 0 && this.wrote) {
        const { pending: _shared, ...whole } = this.current;
        const next: State = { ...whole, pending: this.intents };
        try {
          await this.writeWhole(next);
        } catch (error) {
          if (error instanceof StateConflictError) return;
          throw error;
        }
        this.current = next;
      }
      if (this.wrote)
        await this.storage.compactJournal(Object.values(livePending(this.intents, this.current.resources)));
    } finally {
      await this.storage.unlock();
    }
  }
}
