import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { caller } from "../model/access.js";
import { loadMr } from "../model/merge-requests.js";
import { addNote } from "../model/notes.js";
import { ACCESS, type DraftNote, type ForgeState, type MergeRequest, nextId } from "../model/state.js";
import { missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

/**
 * A merge request's draft notes (GitLab's draft_notes.rb): created, edited and deleted privately,
 * then published as notes, one or all.
 */
export function draftNoteRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const load = (req: Request, res: Response, minLevel = 0) => loadMr(ctx.state, req, res, minLevel);

  // Draft notes: a reviewer's own, until published.
  const draftJson = (mr: MergeRequest, d: DraftNote) => ({
    id: d.id,
    author_id: d.author_id,
    merge_request_id: mr.id,
    resolve_discussion: d.resolve_discussion,
    discussion_id: d.in_reply_to_discussion_id,
    note: d.note,
    commit_id: null,
    line_code: null,
    position: d.position,
  });
  const mine = (mr: MergeRequest, res: Response) =>
    (mr.draft_notes ?? []).filter((d) => d.author_id === caller(res)?.user.id);
  const findDraft = (req: Request, res: Response) => {
    const l = load(req, res, ACCESS.guest);
    if (!l) return null;
    const d = mine(l.mr, res).find((x) => x.id === Number(req.params.draft_note_id));
    if (!d) {
      notFound(res, "Draft Note");
      return null;
    }
    return { ...l, d };
  };

  r.get("/projects/:id/merge_requests/:iid/draft_notes", (req, res) => {
    const l = load(req, res, ACCESS.guest);
    if (l) res.json(paginate(req, res, ctx.origin, mine(l.mr, res)).map((d) => draftJson(l.mr, d)));
  });

  r.get("/projects/:id/merge_requests/:iid/draft_notes/:draft_note_id", (req, res) => {
    const l = findDraft(req, res);
    if (l) res.json(draftJson(l.mr, l.d));
  });

  r.post("/projects/:id/merge_requests/:iid/draft_notes", (req, res) => {
    const l = load(req, res, ACCESS.guest);
    if (!l) return;
    const b = params(req);
    const note = str(b.note);
    if (!note?.trim()) return missing(res, "note");
    const reply = str(b.in_reply_to_discussion_id) ?? null;
    if (reply && !l.mr.discussions.some((x) => x.id === reply)) return notFound(res, "Discussion");
    const d: DraftNote = {
      id: nextId(ctx.state, "note"),
      author_id: caller(res)!.user.id,
      note,
      position:
        typeof b.position === "object" && b.position !== null
          ? (b.position as Record<string, unknown>)
          : null,
      in_reply_to_discussion_id: reply,
      resolve_discussion: boolParam(b.resolve_discussion) === true,
    };
    l.mr.draft_notes = [...(l.mr.draft_notes ?? []), d];
    res.status(201).json(draftJson(l.mr, d));
  });

  r.put("/projects/:id/merge_requests/:iid/draft_notes/:draft_note_id", (req, res) => {
    const l = findDraft(req, res);
    if (!l) return;
    const b = params(req);
    const note = str(b.note);
    if (note !== undefined) {
      if (!note.trim()) return missing(res, "note");
      l.d.note = note;
    }
    if (typeof b.position === "object" && b.position !== null)
      l.d.position = b.position as Record<string, unknown>;
    res.json(draftJson(l.mr, l.d));
  });

  r.delete("/projects/:id/merge_requests/:iid/draft_notes/:draft_note_id", (req, res) => {
    const l = findDraft(req, res);
    if (!l) return;
    l.mr.draft_notes = (l.mr.draft_notes ?? []).filter((x) => x !== l.d);
    res.status(204).end();
  });

  /** A draft becomes a note: a reply in its thread, a new diff thread, or a plain comment. */
  const publish = (mr: MergeRequest, d: DraftNote) => {
    mr.draft_notes = (mr.draft_notes ?? []).filter((x) => x !== d);
    const thread =
      d.in_reply_to_discussion_id && mr.discussions.find((x) => x.id === d.in_reply_to_discussion_id);
    if (thread) {
      const { discussion, note } = addNote(ctx.state, mr, d.author_id, d.note, { resolvable: true });
      mr.discussions = mr.discussions.filter((x) => x !== discussion);
      thread.individual_note = false;
      thread.notes.push(note);
      if (d.resolve_discussion) for (const n of thread.notes) if (n.resolvable) n.resolved = true;
      return;
    }
    const { discussion } = addNote(ctx.state, mr, d.author_id, d.note, {
      individual: d.position === null,
      resolvable: d.position !== null,
    });
    if (d.position) discussion.notes[0]!.position = { position_type: "text", ...d.position };
  };

  r.put("/projects/:id/merge_requests/:iid/draft_notes/:draft_note_id/publish", (req, res) => {
    const l = findDraft(req, res);
    if (!l) return;
    publish(l.mr, l.d);
    res.status(204).end();
  });

  r.post("/projects/:id/merge_requests/:iid/draft_notes/bulk_publish", (req, res) => {
    const l = load(req, res, ACCESS.guest);
    if (!l) return;
    for (const d of mine(l.mr, res)) publish(l.mr, d);
    res.status(204).end();
  });
}
