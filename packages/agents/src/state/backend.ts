// What a state backend is (a file beside agents.yaml, or a row in PostgreSQL): the storage
// primitives it provides, and what a read of it returns. What a run does with a backend is the
// same on both, and lives in locked-state.ts.
import { randomBytes, randomUUID } from "node:crypto";
import {
  type JournalEntry,
  type LockInfo,
  type PendingCreate,
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
  /**
   * Replaces the journal with what is still pending (removes it when nothing is), keeping the
   * records made on the stored state of serial `keepRecordsOn` when given (see `keepsRecords`).
   */
  compactJournal(pending: PendingCreate[], keepRecordsOn?: number): Promise<void>;
  /**
   * True when every reader of this backend reads the journal's records with the stored state, so
   * a run may end leaving its records there instead of writing the whole state again
   * (PostgreSQL: one database, read in one place). The file backend leaves it unset: a state file
   * is whole on its own after every run, for people and tools that read or copy it.
   */
  readonly keepsRecords?: boolean;
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

/** The ways back from a damaged state that need no backup, named by every backend's hint. */
export const REBUILD_HINT =
  "run agents plan, which adopts every object carrying this project's ownership markers, " +
  "agents sync to rebuild agents.yaml from the remote, or agents import <ADDRESS> <REMOTE_ID> per resource";

/** The stored state moved on under this run (another writer, or a lock lost with its connection). */
export class StateConflictError extends StateError {}

export function emptyState(): State {
  return {
    version: STATE_VERSION,
    serial: 0,
    lineage: randomUUID(),
    hashKey: randomBytes(32).toString("hex"),
    resources: {},
  };
}
