// The file backend's intent journal: `agents.state.json.journal`, an append-only file of JSON
// lines written before each create is sent. Appending a line is far cheaper than rewriting the
// whole state, so journaling every create costs one small fsync, shared by creates that start
// together (LockedState batches them).
import { promises as fs } from "node:fs";
import { type JournalEntry, type JournalReplay, replayJournal } from "./backend.js";
import type { PendingCreate } from "./types.js";
import { writeAtomically } from "./write.js";

function journalPathFor(statePath: string): string {
  return `${statePath}.journal`;
}

/** Replays the journal; a torn last line (a crash mid-append) is ignored. */
export async function readJournal(statePath: string): Promise<JournalReplay> {
  let text: string;
  try {
    text = await fs.readFile(journalPathFor(statePath), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { pending: {}, records: [] };
    throw error;
  }
  const entries: JournalEntry[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line) as JournalEntry);
    } catch {
      // a torn last line: the crash happened mid-append, the entry was never relied on
    }
  }
  return replayJournal(entries);
}

/** Appends entries and flushes them to disk before resolving. */
export async function appendJournal(statePath: string, entries: JournalEntry[]): Promise<void> {
  const handle = await fs.open(journalPathFor(statePath), "a", 0o600);
  try {
    await handle.appendFile(entries.map((e) => `${JSON.stringify(e)}\n`).join(""));
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Rewrites the journal to what is still pending (removes it when nothing is). */
export async function compactJournal(statePath: string, pending: PendingCreate[]): Promise<void> {
  if (pending.length === 0) {
    await fs.rm(journalPathFor(statePath), { force: true });
    return;
  }
  await writeAtomically(
    journalPathFor(statePath),
    pending.map((e) => `${JSON.stringify({ op: "create", ...e })}\n`).join(""),
  );
}
