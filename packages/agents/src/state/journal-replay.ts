// The journal's entries (creates in flight, resources recorded on top of the stored state) and
// how a reader replays them onto the state it read. Both backends store the same entries.
import type { StateRead } from "./backend.js";
import type { JournalEntry, PendingCreate, RecordEntry, ResourceState } from "./types.js";

/** What a journal holds: creates in flight, and records since the stored state. */
export interface JournalReplay {
  pending: Record<string, PendingCreate>;
  records: RecordEntry[];
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

/**
 * A journaled create is settled once state records the resource after the intent was written; a
 * replacement's create (`replaces`) only once the run that removed the old object cleared it.
 */
export function livePending(
  pending: Record<string, PendingCreate>,
  resources: Record<string, ResourceState>,
): Record<string, PendingCreate> {
  const live: Record<string, PendingCreate> = {};
  for (const [address, entry] of Object.entries(pending)) {
    const recorded = resources[address];
    if (recorded && recorded.updatedAt >= entry.since && !entry.replaces) continue;
    live[address] = entry;
  }
  return live;
}
