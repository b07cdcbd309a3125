import { createHash } from "node:crypto";
import type { SimContext } from "../../core/sim.js";
import { projectFullPath, requireUser } from "../model/access.js";
import type { ForgeState, ForgeUser, Issue, MergeRequest } from "../model/state.js";
import { userRef } from "../model/users.js";
import { notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import type { Routes } from "../wire/router.js";

/** To-do items (GitLab's todos.rb), derived from the work; marking one or all done. */

export const stableId = (key: string) =>
  createHash("sha1").update(key).digest().readUInt32BE(0) % 1_000_000_000;

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
  const todo = (
    target_type: Todo["target_type"],
    key: string,
    x: Issue | MergeRequest,
    action_name: Todo["action_name"],
    path: string,
  ): Todo => ({
    id: stableId(key),
    user_id: user.id,
    project_id: x.project_id,
    action_name,
    target_type,
    target: { id: x.id, iid: x.iid, title: x.title, state: x.state },
    author_id: x.author_id,
    created_at: x.updated_at,
    body: x.title,
    target_url: `${web(x.project_id)}/-/${path}/${x.iid}`,
  });
  for (const i of s.issues) {
    if (i.state !== "opened" || !i.assignee_ids.includes(user.id)) continue;
    out.push(todo("Issue", `todo-issue-${i.id}-${user.id}`, i, "assigned", "issues"));
  }
  for (const m of s.mergeRequests) {
    if (m.state !== "opened") continue;
    for (const [action, ids] of [
      ["review_requested", m.reviewer_ids],
      ["assigned", m.assignee_ids],
    ] as const) {
      if (ids.includes(user.id))
        out.push(todo("MergeRequest", `todo-mr-${action}-${m.id}-${user.id}`, m, action, "merge_requests"));
    }
  }
  return out.sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
}

export function todoRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;

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

  r.get("/todos", (req, res) => {
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

  r.post("/todos/:todo_id/mark_as_done", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const t = todosOf(ctx, me).find((x) => x.id === Number(req.params.todo_id));
    if (!t) return notFound(res, "Todo");
    if (!s().todosDone.includes(t.id)) s().todosDone.push(t.id);
    res.status(201).json(todoJson(t, true));
  });

  r.post("/todos/mark_as_done", (_req, res) => {
    const me = requireUser(res);
    if (!me) return;
    for (const t of todosOf(ctx, me)) if (!s().todosDone.includes(t.id)) s().todosDone.push(t.id);
    res.status(204).end();
  });
}
