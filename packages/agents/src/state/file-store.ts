// The file backend: agents.state.json beside the config, written atomically (temp file, fsync,
// rename, fsync of the folder) with mode 0600, under a lock file held for the whole run.
import { constants, promises as fs } from "node:fs";
import { dirname } from "node:path";
import {
  emptyState,
  type LockedStorage,
  REBUILD_HINT,
  type StateBackend,
  StateConflictError,
  type StateRead,
} from "./backend.js";
import { JournalWriter, readJournal, type StartTimer } from "./journal.js";
import { withJournal } from "./journal-replay.js";
import { LockedState } from "./locked-state.js";
import { serialize } from "./serialize.js";
import { type LockInfo, StateError, StateLockedError } from "./types.js";
import { upgradeState } from "./upgrade.js";
import { writeAtomically } from "./write.js";

export { writeAtomically } from "./write.js";

export const STATE_FILE_NAME = "agents.state.json";

export function lockPathFor(statePath: string): string {
  return `${statePath}.lock`;
}

/** Reads a state file without locking (for `state list/show` and saved-plan checks). */
export async function readState(statePath: string): Promise<StateRead> {
  let text: string;
  try {
    text = await fs.readFile(statePath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    return withJournal({ state: emptyState(), exists: false }, await readJournal(statePath));
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw await corruptState(statePath, `not valid JSON (${(error as Error).message})`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw await corruptState(statePath, "not a state file (expected a JSON object)");
  }
  let upgraded: ReturnType<typeof upgradeState>;
  try {
    upgraded = upgradeState(raw, statePath);
  } catch (error) {
    // A newer version is not damage (upgrade agents); a missing lineage, serial or map is.
    if (!/malformed state/.test((error as Error).message)) throw error;
    throw await corruptState(statePath, "malformed state (missing lineage, serial or resources)");
  }
  return withJournal({ ...upgraded, exists: true }, await readJournal(statePath));
}

/** The serial and lineage a state file's text holds (undefined when it holds no readable state). */
function storedHead(text: string): { serial: number; lineage: string } | undefined {
  try {
    const { serial, lineage } = JSON.parse(text) as { serial?: unknown; lineage?: unknown };
    return typeof serial === "number" && typeof lineage === "string" ? { serial, lineage } : undefined;
  } catch {
    return undefined;
  }
}

/** The copy of the state as it was before the last write (written by every whole write). */
export function backupPathFor(statePath: string): string {
  return `${statePath}.backup`;
}

/**
 * A state file that cannot be read: one line saying what is wrong, and a hint naming the ways
 * back (the backup when there is one, `agents state push`, and plan's adoption, `agents sync` and
 * `agents import` without it).
 */
async function corruptState(statePath: string, what: string): Promise<StateError> {
  const backup = backupPathFor(statePath);
  const serial = await fs
    .readFile(backup, "utf8")
    .then((text) => (JSON.parse(text) as { serial?: unknown }).serial)
    .catch(() => undefined);
  const rebuild = REBUILD_HINT;
  const hint =
    typeof serial === "number"
      ? `hint: ${backup} holds the state before the last write (serial ${serial}): move the broken file aside ` +
        `(mv ${statePath} ${statePath}.broken) and restore it with agents state push ${backup}; or ${rebuild}`
      : `hint: there is no readable backup (${backup}): move the broken file aside (mv ${statePath} ${statePath}.broken), ` +
        `then push a copy you kept with agents state push <STATE_FILE>, or ${rebuild}`;
  return new StateError(`${statePath}: ${what}\n${hint}`);
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

export class FileBackend implements StateBackend {
  readonly kind = "file";

  /** `startTimer` closes an idle journal (the real clock unless a test gives its own). */
  constructor(
    readonly path: string,
    private readonly startTimer?: StartTimer,
  ) {}

  get location(): string {
    return this.path;
  }

  read(): Promise<StateRead> {
    return readState(this.path);
  }

  readLock(): Promise<LockInfo | undefined> {
    return readLock(this.path);
  }

  forceUnlock(lockId: string): Promise<LockInfo> {
    return forceUnlock(this.path, lockId);
  }

  async close(): Promise<void> {}

  async lock(info: LockInfo): Promise<LockedStorage> {
    const path = this.path;
    const lockPath = lockPathFor(path);
    await fs.mkdir(dirname(path), { recursive: true });
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(lockPath, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = await readLock(path).catch(() => undefined);
      throw new StateLockedError(
        holder ?? { id: "unknown", pid: 0, host: "unknown", command: "unknown", since: "unknown" },
        lockPath,
      );
    }
    // The exclusive create above is what holds the lock: the state is read while the lock's
    // contents are written and flushed, and both must succeed before the run goes on.
    const recorded = (async () => {
      try {
        await handle.writeFile(JSON.stringify(info, null, 2));
        await handle.sync();
      } finally {
        await handle.close();
      }
    })();
    const reading = readState(path);
    const [wrote, read] = await Promise.allSettled([recorded, reading]);
    // As when they ran one after the other: a lock that could not be written stops the run first.
    if (wrote.status === "rejected") throw wrote.reason;
    if (read.status === "rejected") {
      await fs.rm(lockPath, { force: true });
      throw read.reason;
    }
    const initial: StateRead = read.value;
    const journal = new JournalWriter(path, this.startTimer);
    // What the file holds now: copied to the backup before the next whole write replaces it, so
    // the backup is always the state one write back (the previous serial), written under the lock.
    let onDisk = initial.exists ? await fs.readFile(path, "utf8").catch(() => undefined) : undefined;
    // The serial and lineage of `onDisk`. The lock file keeps other runs out, but not a holder
    // whose lock was force-unlocked while it hung: its whole write would replace what the new
    // holder stored. So a write is compare-and-set on the serial, as on PostgreSQL.
    let stored =
      onDisk === undefined
        ? undefined
        : { serial: initial.storedSerial ?? initial.state.serial, lineage: initial.state.lineage };
    return {
      initial,
      write: async (next, previousSerial) => {
        const now = await fs.readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
          if (error.code === "ENOENT") return undefined;
          throw error;
        });
        const found = now === onDisk ? stored : now === undefined ? undefined : storedHead(now);
        const standsOn = stored
          ? found?.serial === previousSerial && found.lineage === stored.lineage
          : now === undefined;
        if (!standsOn)
          throw new StateConflictError(
            `the state in ${path} changed under this run (expected serial ${stored ? previousSerial : "none"}, ` +
              `found ${found?.serial ?? (now === undefined ? "none" : "unreadable")}); another writer holds it now: run plan again`,
          );
        if (onDisk !== undefined) await writeAtomically(backupPathFor(path), onDisk);
        const text = serialize(next);
        await writeAtomically(path, text);
        onDisk = text;
        stored = { serial: next.serial, lineage: next.lineage };
      },
      appendJournal: (entries) => journal.append(entries),
      compactJournal: (pending) => journal.compact(pending),
      unlock: async () => {
        await journal.close();
        const holder = await readLock(path).catch(() => undefined);
        if (holder?.id === info.id) await fs.rm(lockPath, { force: true });
      },
    };
  }
}

/** Opens and locks a state file (the file backend's shortcut). */
export function openStateFile(statePath: string, command: string): Promise<LockedState> {
  return LockedState.open(new FileBackend(statePath), command);
}
