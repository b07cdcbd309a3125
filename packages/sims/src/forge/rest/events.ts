import type { SimContext } from "../../core/sim.js";
import { caller, canReadProject, loadProject, requireUser } from "../model/access.js";
import { type ForgeState, type ForgeUser, userByName } from "../model/state.js";
import { userRef } from "../model/users.js";
import { notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import type { Routes } from "../wire/router.js";
import { stableId } from "./todos.js";

/** Activity events (GitLab's events.rb): the caller's, a user's and a project's. */

/** Events derived from the work: issues and MRs opened, closed or merged, and comments. */
function eventsOf(s: ForgeState, origin: string) {
  type Ev = {
    project_id: number;
    author_id: number;
    action_name: string;
    target_type: string;
    target_id: number;
    target_iid: number | null;
    target_title: string;
    created_at: string;
  };
  const rows: Array<Ev & { id: number }> = [];
  const add = (e: Ev) =>
    rows.push({
      id: stableId(`event-${e.action_name}-${e.target_type}-${e.target_id}-${e.created_at}`),
      ...e,
    });
  for (const x of [...s.issues, ...s.mergeRequests]) {
    const type = "source_branch" in x ? "MergeRequest" : "Issue";
    const base = {
      project_id: x.project_id,
      target_type: type,
      target_id: x.id,
      target_iid: x.iid,
      target_title: x.title,
    };
    add({ ...base, author_id: x.author_id, action_name: "opened", created_at: x.created_at });
    if ("merged_at" in x && x.merged_at)
      add({
        ...base,
        author_id: x.merged_by_id ?? x.author_id,
        action_name: "accepted",
        created_at: x.merged_at,
      });
    else if (x.state === "closed" && x.closed_at)
      add({ ...base, author_id: x.author_id, action_name: "closed", created_at: x.closed_at });
    for (const d of x.discussions)
      for (const n of d.notes)
        if (!n.system)
          add({
            project_id: x.project_id,
            author_id: n.author_id,
            action_name: "commented on",
            target_type: "Note",
            target_id: n.id,
            target_iid: null,
            target_title: x.title,
            created_at: n.created_at,
          });
  }
  return rows
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0))
    .map((e) => ({
      ...e,
      author: userRef(s, e.author_id, origin),
      author_username: userRef(s, e.author_id, origin)?.username ?? null,
    }));
}

const ACTIONS: Record<string, string> = {
  created: "opened",
  merged: "accepted",
  commented: "commented on",
  closed: "closed",
};

export function eventRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;

  const filterEvents = (q: Record<string, unknown>, rows: ReturnType<typeof eventsOf>) => {
    const kept = rows
      .filter((e) =>
        typeof q.action === "string" ? e.action_name === (ACTIONS[q.action] ?? q.action) : true,
      )
      .filter((e) =>
        typeof q.target_type === "string"
          ? String(e.target_type).replace("MergeRequest", "merge_request").toLowerCase() === q.target_type
          : true,
      )
      .filter((e) => (typeof q.before === "string" ? e.created_at.slice(0, 10) < q.before : true))
      .filter((e) => (typeof q.after === "string" ? e.created_at.slice(0, 10) > q.after : true));
    // Newest first unless sort=asc.
    return q.sort === "asc" ? kept.reverse() : kept;
  };
  const visibleTo = (me: ForgeUser | null) => (e: { project_id: number }) => {
    const p = s().projects.find((x) => x.id === e.project_id);
    return p !== undefined && canReadProject(s(), me, p);
  };

  r.get("/events", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const rows = filterEvents(req.query as Record<string, unknown>, eventsOf(s(), ctx.origin)).filter(
      (e) => e.author_id === me.id,
    );
    res.json(paginate(req, res, ctx.origin, rows));
  });

  r.get("/users/:user_id/events", (req, res) => {
    const ref = String(req.params.user_id);
    const u = /^\d+$/.test(ref) ? s().users.find((x) => x.id === Number(ref)) : userByName(s(), ref);
    if (!u) return notFound(res, "User");
    const me = caller(res)?.user ?? null;
    const rows = filterEvents(req.query as Record<string, unknown>, eventsOf(s(), ctx.origin))
      .filter((e) => e.author_id === u.id)
      .filter(visibleTo(me));
    res.json(paginate(req, res, ctx.origin, rows));
  });

  r.get("/projects/:id/events", (req, res) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const rows = filterEvents(req.query as Record<string, unknown>, eventsOf(s(), ctx.origin)).filter(
      (e) => e.project_id === p.id,
    );
    res.json(paginate(req, res, ctx.origin, rows));
  });
}
