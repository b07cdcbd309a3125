import { createHash } from "node:crypto";
import type { Express } from "express";
import type { SimContext } from "../../core/sim.js";
import {
  caller,
  canReadProject,
  findProject,
  loadProject,
  projectFullPath,
  requireUser,
} from "../model/access.js";
import { ACCESS, type ForgeState, type ForgeUser, userByName } from "../model/state.js";
import { userRef } from "../model/users.js";
import { API, missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { params, str } from "../wire/params.js";
import { findIssue, issueJson } from "./issues.js";

/** Issue milestones, issue links, to-do items and activity events. */

const stableId = (key: string) => createHash("sha1").update(key).digest().readUInt32BE(0) % 1_000_000_000;

interface Todo {
  id: number;
  user_id: number;
  project_id: number;
  action_name: "assigned" | "review_requested";
  target_type: "Issue" | "MergeRequest";
  target: Record<string, unknown>;
  author_id: number;
  created_at: string;
  body: string;
  target_url: string;
}

/** To-dos derived from the work: an open issue or MR assigned to you, an MR awaiting your review. */
export function todosOf(ctx: SimContext<ForgeState>, user: ForgeUser): Todo[] {
  const s = ctx.state;
  const out: Todo[] = [];
  const web = (pid: number) => `${ctx.origin}/${projectFullPath(s, s.projects.find((p) => p.id === pid)!)}`;
  for (const i of s.issues) {
    if (i.state !== "opened" || !i.assignee_ids.includes(user.id)) continue;
    out.push({
      id: stableId(`todo-issue-${i.id}-${user.id}`),
      user_id: user.id,
      project_id: i.project_id,
      action_name: "assigned",
      target_type: "Issue",
      target: { id: i.id, iid: i.iid, title: i.title, state: i.state },
      author_id: i.author_id,
      created_at: i.updated_at,
      body: i.title,
      target_url: `${web(i.project_id)}/-/issues/${i.iid}`,
    });
  }
  for (const m of s.mergeRequests) {
    if (m.state !== "opened") continue;
    for (const [action, ids] of [
      ["review_requested", m.reviewer_ids],
      ["assigned", m.assignee_ids],
    ] as const) {
      if (!ids.includes(user.id)) continue;
      out.push({
        id: stableId(`todo-mr-${action}-${m.id}-${user.id}`),
        user_id: user.id,
        project_id: m.project_id,
        action_name: action,
        target_type: "MergeRequest",
        target: { id: m.id, iid: m.iid, title: m.title, state: m.state },
        author_id: m.author_id,
        created_at: m.updated_at,
        body: m.title,
        target_url: `${web(m.project_id)}/-/merge_requests/${m.iid}`,
      });
    }
  }
  return out.sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
}

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

export function activityRoutes(app: Express, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;
  const L = `${API}/projects/:id/issues/:iid/links`;
  const loadIssue = (
    req: Parameters<Parameters<Express["get"]>[1]>[0],
    res: Parameters<Parameters<Express["get"]>[1]>[1],
    min = 0,
  ) => {
    const p = loadProject(s(), req, res, min);
    if (!p) return null;
    const issue = findIssue(s(), p, Number(req.params.iid), caller(res)?.user ?? null);
    if (!issue) {
      notFound(res);
      return null;
    }
    return issue;
  };

  app.get(L, (req, res) => {
    const issue = loadIssue(req, res);
    if (!issue) return;
    const me = caller(res)?.user ?? null;
    const rows = s()
      .links.filter((l) => l.source_issue_id === issue.id || l.target_issue_id === issue.id)
      .flatMap((l) => {
        const otherId = l.source_issue_id === issue.id ? l.target_issue_id : l.source_issue_id;
        const other = s().issues.find((i) => i.id === otherId);
        const op = other && s().projects.find((p) => p.id === other.project_id);
        if (!other || !op || !canReadProject(s(), me, op) || !findIssue(s(), op, other.iid, me)) return [];
        const type =
          l.source_issue_id === issue.id
            ? l.link_type
            : l.link_type === "blocks"
              ? "is_blocked_by"
              : l.link_type === "is_blocked_by"
                ? "blocks"
                : l.link_type;
        return [
          {
            ...issueJson(s(), other, ctx.origin),
            issue_link_id: l.id,
            link_type: type,
            link_created_at: l.created_at,
            link_updated_at: l.created_at,
          },
        ];
      });
    res.json(rows);
  });

  app.post(L, (req, res) => {
    const issue = loadIssue(req, res, ACCESS.guest);
    if (!issue) return;
    const b = params(req);
    const tp = str(b.target_project_id);
    const tiid = Number(b.target_issue_iid);
    if (!tp || !Number.isInteger(tiid))
      return missing(
        res,
        ...(!tp ? ["target_project_id"] : []),
        ...(!Number.isInteger(tiid) ? ["target_issue_iid"] : []),
      );
    const me = caller(res)!.user;
    const project = findProject(s(), tp);
    const target =
      project && canReadProject(s(), me, project) ? findIssue(s(), project, tiid, me) : undefined;
    if (!target) return notFound(res, "Issue");
    const type = b.link_type === undefined ? "relates_to" : String(b.link_type);
    if (!["relates_to", "blocks", "is_blocked_by"].includes(type))
      return void res.status(400).json({ error: "link_type does not have a valid value" });
    if (target.id === issue.id)
      return void res.status(400).json({ message: "Cannot link an issue to itself" });
    if (
      s().links.some(
        (l) =>
          (l.source_issue_id === issue.id && l.target_issue_id === target.id) ||
          (l.source_issue_id === target.id && l.target_issue_id === issue.id),
      )
    )
      return void res.status(409).json({ message: "Issue(s) already assigned" });
    const link = {
      id: ++s().seq.record,
      source_issue_id: issue.id,
      target_issue_id: target.id,
      link_type: type as "relates_to",
      created_at: s().clock.iso(),
    };
    s().links.push(link);
    res.status(201).json({
      source_issue: issueJson(s(), issue, ctx.origin),
      target_issue: issueJson(s(), target, ctx.origin),
      link_type: type,
    });
  });

  // One link by its id: both issues (each must be visible to the caller) and the link's type.
  app.get(`${L}/:link_id`, (req, res) => {
    const issue = loadIssue(req, res);
    if (!issue) return;
    const me = caller(res)?.user ?? null;
    const link = s().links.find(
      (x) =>
        x.id === Number(req.params.link_id) &&
        (x.source_issue_id === issue.id || x.target_issue_id === issue.id),
    );
    const readable = (id: number | undefined) => {
      const i = s().issues.find((x) => x.id === id);
      const p = i && s().projects.find((x) => x.id === i.project_id);
      return p && canReadProject(s(), me, p) ? findIssue(s(), p, i!.iid, me) : undefined;
    };
    const src = readable(link?.source_issue_id);
    const dst = readable(link?.target_issue_id);
    if (!link || !src || !dst) return notFound(res);
    res.json({
      source_issue: issueJson(s(), src, ctx.origin),
      target_issue: issueJson(s(), dst, ctx.origin),
      link_type: link.link_type,
      link_created_at: link.created_at,
      link_updated_at: link.created_at,
    });
  });

  app.delete(`${L}/:link_id`, (req, res) => {
    const issue = loadIssue(req, res, ACCESS.guest);
    if (!issue) return;
    const link = s().links.find(
      (l) =>
        l.id === Number(req.params.link_id) &&
        (l.source_issue_id === issue.id || l.target_issue_id === issue.id),
    );
    if (!link) return notFound(res, "Not found");
    s().links = s().links.filter((l) => l !== link);
    const src = s().issues.find((i) => i.id === link.source_issue_id)!;
    const dst = s().issues.find((i) => i.id === link.target_issue_id)!;
    res.json({
      source_issue: issueJson(s(), src, ctx.origin),
      target_issue: issueJson(s(), dst, ctx.origin),
      link_type: link.link_type,
    });
  });

  const todoJson = (t: Todo, done: boolean) => {
    const p = s().projects.find((x) => x.id === t.project_id)!;
    return {
      id: t.id,
      project: { id: p.id, name: p.name, path_with_namespace: projectFullPath(s(), p) },
      author: userRef(s(), t.author_id, ctx.origin),
      action_name: t.action_name,
      target_type: t.target_type,
      target: t.target,
      target_url: t.target_url,
      body: t.body,
      state: done ? "done" : "pending",
      created_at: t.created_at,
    };
  };

  app.get(`${API}/todos`, (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const q = req.query as Record<string, unknown>;
    const done = new Set(s().todosDone);
    const want = q.state === "done" ? "done" : "pending";
    const rows = todosOf(ctx, me)
      .filter((t) => (done.has(t.id) ? "done" : "pending") === want)
      .filter((t) => (typeof q.action === "string" ? t.action_name === q.action : true))
      .filter((t) => (typeof q.type === "string" ? t.target_type === q.type : true))
      .filter((t) => (q.project_id !== undefined ? String(t.project_id) === String(q.project_id) : true));
    res.json(paginate(req, res, ctx.origin, rows).map((t) => todoJson(t, done.has(t.id))));
  });

  app.post(`${API}/todos/:todo_id/mark_as_done`, (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const t = todosOf(ctx, me).find((x) => x.id === Number(req.params.todo_id));
    if (!t) return notFound(res, "Todo");
    if (!s().todosDone.includes(t.id)) s().todosDone.push(t.id);
    res.status(201).json(todoJson(t, true));
  });

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

  app.get(`${API}/events`, (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const rows = filterEvents(req.query as Record<string, unknown>, eventsOf(s(), ctx.origin)).filter(
      (e) => e.author_id === me.id,
    );
    res.json(paginate(req, res, ctx.origin, rows));
  });

  app.get(`${API}/users/:user_id/events`, (req, res) => {
    const ref = String(req.params.user_id);
    const u = /^\d+$/.test(ref) ? s().users.find((x) => x.id === Number(ref)) : userByName(s(), ref);
    if (!u) return notFound(res, "User");
    const me = caller(res)?.user ?? null;
    const rows = filterEvents(req.query as Record<string, unknown>, eventsOf(s(), ctx.origin))
      .filter((e) => e.author_id === u.id)
      .filter(visibleTo(me));
    res.json(paginate(req, res, ctx.origin, rows));
  });

  app.get(`${API}/projects/:id/events`, (req, res) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const rows = filterEvents(req.query as Record<string, unknown>, eventsOf(s(), ctx.origin)).filter(
      (e) => e.project_id === p.id,
    );
    res.json(paginate(req, res, ctx.origin, rows));
  });
}
