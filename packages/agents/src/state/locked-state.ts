// An open, locked state: what a run does with a backend, the same on both. `LockedState` holds
// the lock, group-commits every change and journals creates before they are sent.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { type LockedStorage, type StateBackend, StateConflictError } from "./backend.js";
import { livePending } from "./journal-replay.js";
import { commit, overlay, recordsOnly } from "./overlay.js";
import type { JournalEntry } from "./types.js";
import { type LockInfo, type PendingCreate, type ResourceState, type State, StateError } from "./types.js";

function newLockInfo(command: string): LockInfo {
  return { id: randomUUID(), pid: process.pid, host: hostname(), command, since: new Date().toISOString() };
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
 * On a backend that keeps records (PostgreSQL), the end of a run writes the state whole only once
 * the records journaled since the last whole write pass this share of its resources (1/4): a
 * whole write costs O(state), and it then comes once per at least state ÷ 4 records, so each
 * write is O(changed resources) over time, and a reader never replays more than a quarter of the
 * state (nor more than MAX_JOURNALED_RECORDS) on top of what it read.
 */
const FOLD_SHARE = 4;

/**
 * An open, locked state. All writes go through `update`. A step's update resolves only once it is
 * stored durably. A change that only records or removes resources is appended to the journal as
 * records (a few hundred bytes each) instead of rewriting the whole state, which a wide apply would
 * otherwise do once per step; the whole state is written when anything else changes, when the
 * journal grows long, and when the run releases the state (on a backend that keeps records, only
 * once they pass a quarter of the state: FOLD_SHARE). Updates that arrive while a write is in
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

  /**
   * Gives a state that does not exist yet the identity a saved plan made for it (docs/state.md
   * §Saved plans before the first apply): its lineage and hash key, in place of the fresh ones this
   * read made up. Nothing is written here; the run's first write stores them. False (and nothing
   * changes) once the state exists or this run wrote.
   */
  adoptIdentity(lineage: string, hashKey: string): boolean {
    if (this.existed || this.wrote || this.current.serial !== 0) return false;
    this.current = { ...this.current, lineage, hashKey };
    return true;
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
      // The project and the key of the hashes travel with the resources they belong to.
      for (const key of ["project", "hashKey"] as const) {
        if (state[key] !== undefined) next[key] = state[key];
        else delete next[key];
      }
      if (state.deferred && Object.keys(state.deferred).length > 0)
        next.deferred = structuredClone(state.deferred);
      else delete next.deferred;
    });
    for (const key of Object.keys(this.intents)) delete this.intents[key];
    for (const entry of pending) this.intents[entry.address] = entry;
    await this.storage.compactJournal(pending);
    return written;
  }

  /** Whether this run's records may stay in the journal at its end (see FOLD_SHARE). */
  private recordsMayStay(): boolean {
    return (
      this.storage.keepsRecords === true &&
      this.journaled * FOLD_SHARE <= Object.keys(this.current.resources).length
    );
  }

  async release(): Promise<void> {
    if (this.released) return;
    await this.flushing;
    await this.journalFlushing;
    this.released = true;
    try {
      // The records journaled by this run go into one whole write (on PostgreSQL only once they
      // pass a quarter of the state: until then they stay journaled); the journal then keeps only
      // the creates still in flight, and the records still on the stored state. When that write is refused because the state moved on under
      // this run (its lock was lost and taken over), the records stay in the journal as they are:
      // the run that holds the state now read them when it took the lock.
      if (this.journaled > 0 && this.wrote && !this.recordsMayStay()) {
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
        await this.storage.compactJournal(
          Object.values(livePending(this.intents, this.current.resources)),
          this.journaled > 0 ? this.stored : undefined,
        );
    } finally {
      await this.storage.unlock();
    }
  }
}
