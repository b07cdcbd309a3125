// A state backend whose stores go through a hook first: a test holds them back or makes them
// fail (a full disk, a lost mount, a dropped connection) while everything else is the real backend.
import type { StateBackend } from "../../src/state/backend.js";
import { FileBackend } from "../../src/state/file-store.js";
import type { JournalEntry } from "../../src/state/types.js";

export interface StoreHooks {
  /** Runs before a whole write of the state; throw to refuse it. */
  beforeWrite?: () => Promise<void> | void;
  /** Runs before a journal append; throw to refuse it. */
  beforeAppend?: (entries: JournalEntry[]) => Promise<void> | void;
  /** Runs before the journal is compacted; throw to refuse it. */
  beforeCompact?: () => Promise<void> | void;
  /** When it answers true, unlock leaves the lock where it is (a holder that died). */
  keepLockWhen?: () => boolean;
}

export function hookedBackend(backend: StateBackend, hooks: StoreHooks): StateBackend {
  return {
    kind: backend.kind,
    location: backend.location,
    read: () => backend.read(),
    readLock: () => backend.readLock(),
    forceUnlock: (id) => backend.forceUnlock(id),
    close: () => backend.close(),
    async lock(info) {
      const storage = await backend.lock(info);
      return {
        initial: storage.initial,
        ...(storage.keepsRecords ? { keepsRecords: true } : {}),
        write: async (next, previous) => {
          await hooks.beforeWrite?.();
          return storage.write(next, previous);
        },
        appendJournal: async (entries) => {
          await hooks.beforeAppend?.(entries);
          return storage.appendJournal(entries);
        },
        compactJournal: async (pending, keepRecordsOn) => {
          await hooks.beforeCompact?.();
          return storage.compactJournal(pending, keepRecordsOn);
        },
        unlock: async () => {
          if (!hooks.keepLockWhen?.()) await storage.unlock();
        },
      };
    },
  };
}

export function hookedFileBackend(statePath: string, hooks: StoreHooks): StateBackend {
  return hookedBackend(new FileBackend(statePath), hooks);
}
