// The file backend's intent journal: `agents.state.json.journal`, an append-only file of JSON
// lines written before each create is sent. Appending a line is far cheaper than rewriting the
// whole state, so journaling every create costs one small fsync, shared by creates that start
// together (LockedState batches them).
import { promises as fs } from "node:fs";
import { type JournalReplay, replayJournal } from "./journal-replay.js";
import type { JournalEntry, PendingCreate } from "./types.js";
import { writeAtomically } from "./write.js";

/** How long the journal stays open without an append. */
const JOURNAL_IDLE_MS = 1000;

/** A timer that can be started over; it never keeps the process alive. */
export interface IdleTimer {
  restart(): void;
  cancel(): void;
}

/** Starts one; tests pass their own, so they can fire it without waiting. */
export type StartTimer = (ms: number, fire: () => void) => IdleTimer;

const startRealTimer: StartTimer = (ms, fire) => {
  const timer = setTimeout(fire, ms).unref();
  return { restart: () => void timer.refresh(), cancel: () => clearTimeout(timer) };
};

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

/**
 * The journal a run appends to: opened on the first append and kept open while the run appends,
 * so each batch costs one write and one data sync rather than an open, a write, a sync and a
 * close. Compacting the journal replaces the file, so it closes the handle first; so does a failed
 * append (the next one opens the file again), and a second without appends, so a run abandoned
 * without release (its lock lost, a library caller that never released) leaves no handle for the
 * garbage collector to close.
 */
export class JournalWriter {
  private handle: Promise<fs.FileHandle> | undefined;
  private idle: IdleTimer | undefined;

  constructor(
    private readonly statePath: string,
    private readonly startTimer: StartTimer = startRealTimer,
  ) {}

  /** Appends entries and flushes them to disk before resolving. */
  async append(entries: JournalEntry[]): Promise<void> {
    this.handle ??= fs.open(journalPathFor(this.statePath), "a", 0o600);
    this.stayOpen();
    try {
      const handle = await this.handle;
      // appendFile writes the whole text even where one write would be short: a torn line is a
      // lost intent.
      await handle.appendFile(entries.map((e) => `${JSON.stringify(e)}\n`).join(""));
      await handle.datasync();
    } catch (error) {
      await this.close();
      throw error;
    }
    this.stayOpen();
  }

  /** Rewrites the journal to what is still pending (removes it when nothing is). */
  async compact(pending: PendingCreate[]): Promise<void> {
    await this.close();
    await compactJournal(this.statePath, pending);
  }

  async close(): Promise<void> {
    this.idle?.cancel();
    this.idle = undefined;
    const handle = this.handle;
    this.handle = undefined;
    await (await handle?.catch(() => undefined))?.close().catch(() => {});
  }

  /** Closes the handle after a second without appends (a pending write finishes first). */
  private stayOpen(): void {
    if (this.idle) this.idle.restart();
    else this.idle = this.startTimer(JOURNAL_IDLE_MS, () => void this.close());
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
