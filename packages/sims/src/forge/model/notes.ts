import { createHash } from "node:crypto";
import type { Discussion, ForgeState, Issue, MergeRequest, Note } from "./state.js";
import { nextId } from "./state.js";

/** Something notes hang off: an issue or a merge request. */
export type Noteable = Issue | MergeRequest;

export const noteableType = (on: Noteable) => ("source_branch" in on ? "MergeRequest" : "Issue");

export function userNotesCount(on: Noteable): number {
  return on.discussions.reduce((sum, d) => sum + d.notes.filter((n) => !n.system).length, 0);
}

export function addNote(
  state: ForgeState,
  on: Noteable,
  authorId: number,
  body: string,
  opts: { individual?: boolean; system?: boolean; resolvable?: boolean; at?: string; id?: number } = {},
): { discussion: Discussion; note: Note } {
  const now = opts.at ?? state.clock.iso();
  if (opts.id !== undefined) state.seq.note = Math.max(state.seq.note, opts.id);
  const note: Note = {
    id: opts.id ?? nextId(state, "note"),
    body,
    author_id: authorId,
    created_at: now,
    updated_at: now,
    system: opts.system ?? false,
    resolvable: opts.resolvable ?? false,
    resolved: false,
  };
  const discussion: Discussion = {
    id: createHash("sha1")
      .update(`discussion-${noteableType(on)}-${on.id}-${note.id}`)
      .digest("hex"),
    individual_note: opts.individual ?? true,
    notes: [note],
  };
  on.discussions.push(discussion);
  if (!note.system) on.updated_at = now;
  return { discussion, note };
}
