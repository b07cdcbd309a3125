// The intent journal: `agents.state.json.journal`, an append-only file of JSON lines written
// before each create is sent. Appending a line is far cheaper than rewriting the whole state, so
// journaling every create costs one small fsync, shared by creates that start together.
import { promises as fs } from "node:fs";
import type { PendingCreate, ResourceState } from "./types.js";
import { writeAtomically } from "./write.js";

export type JournalEntry =
  | ({ op: "create" } & PendingCreate)
  | { op: "resolved"; address: string; at: string };

export function journalPathFor(statePath: string): string {
  return `${statePath}.journal`;
}

/** Replays the journal; a torn last line (a crash mid-append) is ignored. */
export async function readJournal(statePath: string): Promise<Record<string, PendingCreate>> {
  let text: string;
  try {
    text = await fs.readFile(journalPathFor(statePath), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
  const pending: Record<string, PendingCreate> = {};
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let entry: JournalEntry;
    try {
      entry = JSON.parse(line) as JournalEntry;
    } catch {
      continue;
    }
    if (entry.op === "create") {
      const { op: _op, ...create } = entry;
      pending[entry.address] = create;
    } else delete pending[entry.address];
  }
  return pending;
}

/** A journaled create is settled once state records the resource after the intent was written. */
export function livePending(
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

export class IntentJournal {
  private batch: Array<{ line: string; resolve: () => void; reject: (e: unknown) => void }> = [];
  private flushing: Promise<void> | undefined;

  constructor(private readonly statePath: string) {}

  /** Resolves once the entry is durably on disk. */
  append(entry: JournalEntry): Promise<void> {
    const done = new Promise<void>((resolve, reject) =>
      this.batch.push({ line: `${JSON.stringify(entry)}\n`, resolve, reject }),
    );
    this.flushing ??= this.flush();
    return done;
  }

  private async flush(): Promise<void> {
    while (this.batch.length > 0) {
      const items = this.batch.splice(0);
      try {
        const handle = await fs.open(journalPathFor(this.statePath), "a", 0o600);
        try {
          await handle.appendFile(items.map((i) => i.line).join(""));
          await handle.sync();
        } finally {
          await handle.close();
        }
        for (const item of items) item.resolve();
      } catch (error) {
        for (const item of items) item.reject(error);
      }
    }
    this.flushing = undefined;
  }

  /** Rewrites the journal to what is still pending (removes it when nothing is). */
  async compact(pending: Record<string, PendingCreate>): Promise<void> {
    await this.flushing;
    const entries = Object.values(pending);
    if (entries.length === 0) {
      await fs.rm(journalPathFor(this.statePath), { force: true });
      return;
    }
    await writeAtomically(
      journalPathFor(this.statePath),
      entries.map((e) => `${JSON.stringify({ op: "create", ...e })}\n`).join(""),
    );
  }
}
