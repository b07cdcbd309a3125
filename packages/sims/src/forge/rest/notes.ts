import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { caller, loadProject, requireUser } from "../model/access.js";
import { findMr } from "../model/merge-requests.js";
import { addNote, type Noteable, noteableType } from "../model/notes.js";
import type { Discussion, ForgeState, ForgeUser, Note, Project } from "../model/state.js";
import { ACCESS } from "../model/state.js";
import { userRef } from "../model/users.js";
import { forbidden, missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, params, str } from "../wire/params.js";
import { type Routes, twins } from "../wire/router.js";
import { findIssue } from "./issues.js";

function noteJson(state: ForgeState, n: Note, d: Discussion, on: Noteable, origin: string) {
  return {
    id: n.id,
    type: n.position ? "DiffNote" : d.individual_note ? null : "DiscussionNote",
    body: n.body,
    attachment: null,
    author: userRef(state, n.author_id, origin),
    created_at: n.created_at,
    updated_at: n.updated_at,
    system: n.system,
    noteable_id: on.id,
    noteable_type: noteableType(on),
    project_id: on.project_id,
    resolvable: n.resolvable,
    ...(n.resolvable ? { resolved: n.resolved, resolved_by: null, resolved_at: null } : {}),
    confidential: false,
    internal: false,
    imported: false,
    imported_from: "none",
    noteable_iid: on.iid,
    commands_changes: {},
    ...(n.position ? { position: n.position } : {}),
  };
}

function discussionJson(state: ForgeState, d: Discussion, on: Noteable, origin: string) {
  return {
    id: d.id,
    individual_note: d.individual_note,
    notes: d.notes.map((n) => noteJson(state, n, d, on, origin)),
  };
}

function findNote(on: Noteable, id: number): { d: Discussion; n: Note } | undefined {
  for (const d of on.discussions) {
    const n = d.notes.find((x) => x.id === id);
    if (n) return { d, n };
  }
  return undefined;
}

function bodyOf(req: Request): string | undefined {
  const b = (req.body ?? {}) as Record<string, unknown>;
  const q = req.query as Record<string, unknown>;
  const v = b.body ?? q.body;
  return typeof v === "string" && v.trim() ? v : undefined;
}

/**
 * A diff position must name the merge request's diff (base, start and head shas) and a line:
 * GitLab refuses a note whose position does not match the diff with 400.
 */
function diffPositionError(on: Noteable, position: unknown): string | undefined {
  if (!("source_branch" in on)) return "position is only valid on merge requests";
  if (typeof position !== "object" || position === null) return "position must be an object";
  const p = position as Record<string, unknown>;
  for (const k of ["base_sha", "start_sha", "head_sha"])
    if (typeof p[k] !== "string") return `position[${k}] is missing`;
  if (p.head_sha !== on.head_sha) return "position[head_sha] does not match the merge request's head";
  if (p.new_line === undefined && p.old_line === undefined) return "position needs new_line or old_line";
  if (typeof p.new_path !== "string" && typeof p.old_path !== "string")
    return "position needs new_path or old_path";
  return undefined;
}

type Segment = "issues" | "merge_requests";
type Find = (
  state: ForgeState,
  project: Project,
  iid: number,
  user: ForgeUser | null,
) => Noteable | undefined;
const NOTEABLES: Record<Segment, { label: string; find: Find }> = {
  issues: { label: "Issue", find: findIssue },
  merge_requests: { label: "Merge Request", find: (state, project, iid) => findMr(state, project, iid) },
};

/**
 * Notes and discussions (GitLab's notes.rb and discussions.rb): the same paths and shapes hang off
 * an issue and a merge request, each route written once with both paths.
 */
export function noteRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const load = (segment: Segment, req: Request, res: Response, writing: boolean) => {
    const { label, find } = NOTEABLES[segment];
    const state = ctx.state;
    const project = loadProject(state, req, res);
    if (!project) return null;
    if (writing && !requireUser(res)) return null;
    const on = find(state, project, Number(req.params.iid), caller(res)?.user ?? null);
    if (!on) {
      notFound(res, label);
      return null;
    }
    return { segment, state, project, on };
  };
  // an issue's and a merge request's, resolved once: to read, and to write (signed in)
  const noteables = (writing: boolean) =>
    twins(
      r,
      (["issues", "merge_requests"] as const).map(
        (segment) => (req: Request, res: Response) => load(segment, req, res, writing),
      ),
    );
  const reading = noteables(false);
  const writing = noteables(true);

  reading.get(
    ["/projects/:id/issues/:iid/notes", "/projects/:id/merge_requests/:iid/notes"],
    (l, req, res) => {
      const q = req.query as Record<string, unknown>;
      const by = q.order_by === "updated_at" ? "updated_at" : "created_at";
      const dir = q.sort === "asc" ? 1 : -1;
      const rows = l.on.discussions
        .flatMap((d) => d.notes.map((n) => ({ d, n })))
        .sort((a, b) => (a.n[by] < b.n[by] ? -1 : a.n[by] > b.n[by] ? 1 : a.n.id - b.n.id) * dir);
      res.json(
        paginate(req, res, ctx.origin, rows).map(({ d, n }) => noteJson(l.state, n, d, l.on, ctx.origin)),
      );
    },
  );

  reading.get(
    ["/projects/:id/issues/:iid/notes/:note_id", "/projects/:id/merge_requests/:iid/notes/:note_id"],
    (l, req, res) => {
      const hit = findNote(l.on, Number(req.params.note_id));
      if (!hit) return notFound(res, "Note");
      res.json(noteJson(l.state, hit.n, hit.d, l.on, ctx.origin));
    },
  );

  writing.post(
    ["/projects/:id/issues/:iid/notes", "/projects/:id/merge_requests/:iid/notes"],
    (l, req, res) => {
      const body = bodyOf(req);
      if (!body) return missing(res, "body");
      const { discussion, note } = addNote(l.state, l.on, caller(res)!.user.id, body);
      res.status(201).json(noteJson(l.state, note, discussion, l.on, ctx.origin));
    },
  );

  writing.put(
    ["/projects/:id/issues/:iid/notes/:note_id", "/projects/:id/merge_requests/:iid/notes/:note_id"],
    (l, req, res) => {
      const hit = findNote(l.on, Number(req.params.note_id));
      if (!hit) return notFound(res, "Note");
      if (hit.n.author_id !== caller(res)!.user.id) return forbidden(res);
      const body = bodyOf(req);
      if (!body) return missing(res, "body");
      hit.n.body = body;
      hit.n.updated_at = l.state.clock.iso();
      res.json(noteJson(l.state, hit.n, hit.d, l.on, ctx.origin));
    },
  );

  writing.delete(
    ["/projects/:id/issues/:iid/notes/:note_id", "/projects/:id/merge_requests/:iid/notes/:note_id"],
    (l, req, res) => {
      const hit = findNote(l.on, Number(req.params.note_id));
      if (!hit) return notFound(res, "Note");
      const me = caller(res)!.user;
      if (hit.n.author_id !== me.id && !me.admin) {
        const project = loadProject(l.state, req, res, ACCESS.maintainer);
        if (!project) return;
      }
      hit.d.notes = hit.d.notes.filter((n) => n !== hit.n);
      if (hit.d.notes.length === 0) l.on.discussions = l.on.discussions.filter((d) => d !== hit.d);
      res.status(204).end();
    },
  );

  reading.get(
    ["/projects/:id/issues/:iid/discussions", "/projects/:id/merge_requests/:iid/discussions"],
    (l, req, res) => {
      res.json(
        paginate(req, res, ctx.origin, l.on.discussions).map((d) =>
          discussionJson(l.state, d, l.on, ctx.origin),
        ),
      );
    },
  );

  reading.get(
    [
      "/projects/:id/issues/:iid/discussions/:discussion_id",
      "/projects/:id/merge_requests/:iid/discussions/:discussion_id",
    ],
    (l, req, res) => {
      const d = l.on.discussions.find((x) => x.id === req.params.discussion_id);
      if (!d) return notFound(res, "Discussion");
      res.json(discussionJson(l.state, d, l.on, ctx.origin));
    },
  );

  writing.post(
    ["/projects/:id/issues/:iid/discussions", "/projects/:id/merge_requests/:iid/discussions"],
    (l, req, res) => {
      const body = bodyOf(req);
      if (!body) return missing(res, "body");
      const position = ((req.body ?? {}) as Record<string, unknown>).position;
      let pos: Record<string, unknown> | undefined;
      if (position !== undefined) {
        const bad = diffPositionError(l.on, position);
        if (bad) return void res.status(400).json({ message: `400 Bad request - ${bad}` });
        pos = position as Record<string, unknown>;
      }
      const { discussion } = addNote(l.state, l.on, caller(res)!.user.id, body, {
        individual: false,
        resolvable: l.segment === "merge_requests",
      });
      if (pos) discussion.notes[0]!.position = { position_type: "text", ...pos };
      res.status(201).json(discussionJson(l.state, discussion, l.on, ctx.origin));
    },
  );

  writing.post(
    [
      "/projects/:id/issues/:iid/discussions/:discussion_id/notes",
      "/projects/:id/merge_requests/:iid/discussions/:discussion_id/notes",
    ],
    (l, req, res) => {
      const d = l.on.discussions.find((x) => x.id === req.params.discussion_id);
      if (!d) return notFound(res, "Discussion");
      const body = bodyOf(req);
      if (!body) return missing(res, "body");
      const { discussion, note } = addNote(l.state, l.on, caller(res)!.user.id, body, {
        resolvable: d.notes[0]?.resolvable ?? false,
      });
      // A reply joins the thread rather than starting one.
      l.on.discussions = l.on.discussions.filter((x) => x !== discussion);
      d.individual_note = false;
      d.notes.push(note);
      res.status(201).json(noteJson(l.state, note, d, l.on, ctx.origin));
    },
  );

  // One note of a thread: edit its body (author only) or its resolved state; delete it.
  const threadNote = (l: NonNullable<ReturnType<typeof load>>, req: Request, res: Response) => {
    const d = l.on.discussions.find((x) => x.id === req.params.discussion_id);
    const n = d?.notes.find((x) => x.id === Number(req.params.note_id));
    if (!d || !n) {
      notFound(res, "Note");
      return null;
    }
    return { ...l, d, n };
  };

  writing.put(
    [
      "/projects/:id/issues/:iid/discussions/:discussion_id/notes/:note_id",
      "/projects/:id/merge_requests/:iid/discussions/:discussion_id/notes/:note_id",
    ],
    (w, req, res) => {
      const l = threadNote(w, req, res);
      if (!l) return;
      const b = params(req);
      const body = str(b.body);
      const resolved = boolParam(b.resolved);
      if (body === undefined && resolved === undefined) return missing(res, "body", "resolved");
      if (body !== undefined) {
        if (l.n.author_id !== caller(res)!.user.id) return forbidden(res);
        if (!body.trim()) return missing(res, "body");
        l.n.body = body;
      }
      if (resolved !== undefined) {
        if (!l.n.resolvable)
          return void res.status(400).json({ message: "400 Bad request - Note is not resolvable" });
        l.n.resolved = resolved;
      }
      l.n.updated_at = l.state.clock.iso();
      res.json(noteJson(l.state, l.n, l.d, l.on, ctx.origin));
    },
  );

  writing.delete(
    [
      "/projects/:id/issues/:iid/discussions/:discussion_id/notes/:note_id",
      "/projects/:id/merge_requests/:iid/discussions/:discussion_id/notes/:note_id",
    ],
    (w, req, res) => {
      const l = threadNote(w, req, res);
      if (!l) return;
      const me = caller(res)!.user;
      if (l.n.author_id !== me.id && !me.admin && !loadProject(l.state, req, res, ACCESS.maintainer)) return;
      l.d.notes = l.d.notes.filter((n) => n !== l.n);
      if (l.d.notes.length === 0) l.on.discussions = l.on.discussions.filter((d) => d !== l.d);
      res.status(204).end();
    },
  );

  writing.put(
    [
      "/projects/:id/issues/:iid/discussions/:discussion_id",
      "/projects/:id/merge_requests/:iid/discussions/:discussion_id",
    ],
    (l, req, res) => {
      const d = l.on.discussions.find((x) => x.id === req.params.discussion_id);
      if (!d) return notFound(res, "Discussion");
      const raw =
        ((req.body ?? {}) as Record<string, unknown>).resolved ??
        (req.query as Record<string, unknown>).resolved;
      if (raw === undefined) return missing(res, "resolved");
      if (!d.notes.some((n) => n.resolvable))
        return void res.status(400).json({ message: "400 Bad request - Discussion is not resolvable" });
      const resolved = boolParam(raw) === true;
      for (const n of d.notes) if (n.resolvable) n.resolved = resolved;
      res.json(discussionJson(l.state, d, l.on, ctx.origin));
    },
  );
}
