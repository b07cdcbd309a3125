import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import {
  caller,
  canReadProject,
  groupById,
  groupChain,
  loadGroup,
  loadProject,
  projectAccessLevel,
  projectFullPath,
  requireUser,
} from "../model/access.js";
import { votes } from "../model/award-emoji.js";
import { userNotesCount } from "../model/notes.js";
import type { ForgeState, ForgeUser, Issue, MergeRequest, Project } from "../model/state.js";
import { ACCESS, nextId, userByName } from "../model/state.js";
import { userRef } from "../model/users.js";
import { forbidden, missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, compareBy, idsParam, labelsParam, params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";
import { issueMilestone, setIssueMilestone } from "./milestones.js";

type Listable = Issue | MergeRequest;

/**
 * The filters issue and merge request lists share. `defaultScope` is `created_by_me` for the global
 * lists (GitLab's default there) and `all` inside a project or group.
 */
export function filterListables<T extends Listable>(
  state: ForgeState,
  rows: T[],
  req: Request,
  user: ForgeUser | null,
  defaultScope: "all" | "created_by_me",
): T[] {
  const q = req.query as Record<string, unknown>;
  let out = rows.filter((r) => {
    const p = state.projects.find((x) => x.id === r.project_id);
    if (p === undefined || !canReadProject(state, user, p)) return false;
    return "source_branch" in r || canSeeIssue(state, r, user);
  });
  const stateFilter = str(q.state);
  if (stateFilter && stateFilter !== "all") out = out.filter((r) => r.state === stateFilter);
  const labels = labelsParam(q.labels);
  if (labels?.length) {
    if (labels.length === 1 && labels[0]?.toLowerCase() === "none")
      out = out.filter((r) => r.labels.length === 0);
    else if (labels.length === 1 && labels[0]?.toLowerCase() === "any")
      out = out.filter((r) => r.labels.length > 0);
    else out = out.filter((r) => labels.every((l) => r.labels.includes(l)));
  }
  const userId = (idKey: string, nameKey: string): number | "none" | "any" | undefined => {
    const raw = str(q[idKey]);
    if (raw !== undefined)
      return raw.toLowerCase() === "none" ? "none" : raw.toLowerCase() === "any" ? "any" : Number(raw);
    const name =
      str(q[nameKey]) ?? (Array.isArray(q[nameKey]) ? str((q[nameKey] as unknown[])[0]) : undefined);
    if (name !== undefined) return userByName(state, name)?.id ?? -1;
    return undefined;
  };
  const author = userId("author_id", "author_username");
  if (typeof author === "number") out = out.filter((r) => r.author_id === author);
  const assignee = userId("assignee_id", "assignee_username");
  if (assignee === "none") out = out.filter((r) => r.assignee_ids.length === 0);
  else if (assignee === "any") out = out.filter((r) => r.assignee_ids.length > 0);
  else if (typeof assignee === "number") out = out.filter((r) => r.assignee_ids.includes(assignee));
  const iids = idsParam(q.iids ?? q["iids[]"]);
  if (iids?.length) out = out.filter((r) => iids.includes(r.iid));
  if (typeof q.search === "string" && q.search) {
    const term = q.search.toLowerCase();
    out = out.filter(
      (r) => r.title.toLowerCase().includes(term) || r.description.toLowerCase().includes(term),
    );
  }
  for (const [key, field, after] of [
    ["created_after", "created_at", true],
    ["created_before", "created_at", false],
    ["updated_after", "updated_at", true],
    ["updated_before", "updated_at", false],
  ] as const) {
    const v = str(q[key]);
    if (v) out = out.filter((r) => (after ? r[field] >= v : r[field] <= v));
  }
  const scope = str(q.scope) ?? defaultScope;
  if (user && (scope === "created_by_me" || scope === "created-by-me"))
    out = out.filter((r) => r.author_id === user.id);
  if (user && (scope === "assigned_to_me" || scope === "assigned-to-me")) {
    out = out.filter((r) => r.assignee_ids.includes(user.id));
  }
  const by = q.order_by === "updated_at" ? "updated_at" : q.order_by === "title" ? "title" : "created_at";
  return out.sort(
    compareBy<T>(
      (r) => r[by],
      q.sort === "asc" ? 1 : -1,
      (r) => r.id,
    ),
  );
}

export function issueJson(state: ForgeState, i: Issue, origin: string) {
  const p = state.projects.find((x) => x.id === i.project_id)!;
  const full = projectFullPath(state, p);
  const api = `${origin}/api/v4/projects/${p.id}/issues/${i.iid}`;
  const assignees = i.assignee_ids.map((id) => userRef(state, id, origin)).filter((u) => u !== null);
  return {
    id: i.id,
    iid: i.iid,
    project_id: i.project_id,
    title: i.title,
    description: i.description,
    state: i.state,
    created_at: i.created_at,
    updated_at: i.updated_at,
    closed_at: i.closed_at,
    closed_by: userRef(state, i.closed_by_id, origin),
    labels: i.labels,
    milestone: issueMilestone(state, i, origin),
    assignees,
    author: userRef(state, i.author_id, origin),
    type: "ISSUE",
    assignee: assignees[0] ?? null,
    user_notes_count: userNotesCount(i),
    merge_requests_count: 0,
    ...votes(state, "Issue", i.id),
    due_date: i.due_date,
    confidential: i.confidential,
    discussion_locked: null,
    issue_type: "issue",
    web_url: `${origin}/${full}/-/issues/${i.iid}`,
    time_stats: {
      time_estimate: 0,
      total_time_spent: 0,
      human_time_estimate: null,
      human_total_time_spent: null,
    },
    task_completion_status: { count: 0, completed_count: 0 },
    has_tasks: false,
    _links: {
      self: api,
      notes: `${api}/notes`,
      award_emoji: `${api}/award_emoji`,
      project: `${origin}/api/v4/projects/${p.id}`,
      closed_as_duplicate_of: null,
    },
    references: { short: `#${i.iid}`, relative: `#${i.iid}`, full: `${full}#${i.iid}` },
    severity: "UNKNOWN",
    moved_to_id: null,
    service_desk_reply_to: null,
  };
}

/**
 * A confidential issue is seen only by Reporters and up, its author and its assignees; to anyone
 * else it does not exist.
 */
export function canSeeIssue(state: ForgeState, i: Issue, user: ForgeUser | null): boolean {
  if (!i.confidential) return true;
  if (!user) return false;
  if (i.author_id === user.id || i.assignee_ids.includes(user.id)) return true;
  const p = state.projects.find((x) => x.id === i.project_id);
  return p !== undefined && projectAccessLevel(state, user, p) >= ACCESS.reporter;
}

export function findIssue(
  state: ForgeState,
  project: Project,
  iid: number,
  user: ForgeUser | null,
): Issue | undefined {
  const issue = state.issues.find((i) => i.project_id === project.id && i.iid === iid);
  return issue && canSeeIssue(state, issue, user) ? issue : undefined;
}

function assigneeIds(state: ForgeState, p: Record<string, unknown>): number[] | undefined {
  const ids = idsParam(p.assignee_ids ?? p["assignee_ids[]"]) ?? idsParam(p.assignee_id);
  return ids?.filter((id) => state.users.some((u) => u.id === id));
}

export function createIssue(
  state: ForgeState,
  project: Project,
  authorId: number,
  p: Record<string, unknown>,
): Issue {
  const now = state.clock.iso();
  const iid = Math.max(0, ...state.issues.filter((i) => i.project_id === project.id).map((i) => i.iid)) + 1;
  const issue: Issue = {
    id: nextId(state, "issue"),
    iid,
    project_id: project.id,
    title: String(p.title),
    description: str(p.description) ?? "",
    state: "opened",
    labels: labelsParam(p.labels) ?? [],
    author_id: authorId,
    assignee_ids: assigneeIds(state, p) ?? [],
    created_at: str(p.created_at) ?? now,
    updated_at: str(p.created_at) ?? now,
    closed_at: null,
    closed_by_id: null,
    confidential: boolParam(p.confidential) ?? false,
    due_date: str(p.due_date) ?? null,
    discussions: [],
  };
  state.issues.push(issue);
  project.last_activity_at = now;
  return issue;
}

function updateIssue(state: ForgeState, issue: Issue, user: ForgeUser, p: Record<string, unknown>): void {
  const now = state.clock.iso();
  if (p.title !== undefined) issue.title = String(p.title);
  if (p.description !== undefined) issue.description = String(p.description);
  const labels = labelsParam(p.labels);
  if (labels) issue.labels = labels;
  const add = labelsParam(p.add_labels);
  if (add) issue.labels = [...new Set([...issue.labels, ...add])];
  const remove = labelsParam(p.remove_labels);
  if (remove) issue.labels = issue.labels.filter((l) => !remove.includes(l));
  const assignees = assigneeIds(state, p);
  if (assignees) issue.assignee_ids = assignees;
  const confidential = boolParam(p.confidential);
  if (confidential !== undefined) issue.confidential = confidential;
  if (p.due_date !== undefined) issue.due_date = str(p.due_date) || null;
  if (p.state_event === "close" && issue.state === "opened") {
    issue.state = "closed";
    issue.closed_at = now;
    issue.closed_by_id = user.id;
  } else if (p.state_event === "reopen" && issue.state === "closed") {
    issue.state = "opened";
    issue.closed_at = null;
    issue.closed_by_id = null;
  }
  issue.updated_at = now;
}

function renderIssues(ctx: SimContext<ForgeState>, req: Request, res: Response, rows: Issue[]) {
  res.json(paginate(req, res, ctx.origin, rows).map((i) => issueJson(ctx.state, i, ctx.origin)));
}

export function issueRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  r.get("/issues", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    renderIssues(ctx, req, res, filterListables(ctx.state, ctx.state.issues, req, me, "created_by_me"));
  });

  r.get("/groups/:id/issues", (req, res) => {
    const g = loadGroup(ctx.state, req, res);
    if (!g) return;
    const inGroup = ctx.state.issues.filter((i) => {
      const p = ctx.state.projects.find((x) => x.id === i.project_id);
      if (p?.namespace.kind !== "group") return false;
      const ns = groupById(ctx.state, p.namespace.id);
      return ns !== undefined && groupChain(ctx.state, ns).includes(g);
    });
    renderIssues(ctx, req, res, filterListables(ctx.state, inGroup, req, caller(res)?.user ?? null, "all"));
  });

  r.get("/projects/:id/issues", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const own = ctx.state.issues.filter((i) => i.project_id === p.id);
    renderIssues(ctx, req, res, filterListables(ctx.state, own, req, caller(res)?.user ?? null, "all"));
  });

  r.get("/projects/:id/issues/:iid", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const issue = findIssue(ctx.state, p, Number(req.params.iid), caller(res)?.user ?? null);
    if (!issue) return notFound(res);
    res.json(issueJson(ctx.state, issue, ctx.origin));
  });

  r.post("/projects/:id/issues", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const p = loadProject(ctx.state, req, res, ACCESS.guest);
    if (!p) return;
    const body = params(req);
    if (typeof body.title !== "string" || !body.title.trim()) return missing(res, "title");
    const issue = createIssue(ctx.state, p, me.id, body);
    setIssueMilestone(ctx.state, issue, body.milestone_id);
    res.status(201).json(issueJson(ctx.state, issue, ctx.origin));
  });

  r.put("/projects/:id/issues/:iid", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const issue = findIssue(ctx.state, p, Number(req.params.iid), caller(res)?.user ?? null);
    if (!issue) return notFound(res);
    // Reporters and up edit any issue; the author may edit their own.
    const level = projectAccessLevel(ctx.state, me, p);
    if (level < ACCESS.reporter && issue.author_id !== me.id) return forbidden(res);
    const body = params(req);
    updateIssue(ctx.state, issue, me, body);
    const bad = setIssueMilestone(ctx.state, issue, body.milestone_id);
    if (bad) return void res.status(400).json({ message: bad });
    res.json(issueJson(ctx.state, issue, ctx.origin));
  });

  r.delete("/projects/:id/issues/:iid", (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.owner);
    if (!p) return;
    const issue = findIssue(ctx.state, p, Number(req.params.iid), caller(res)?.user ?? null);
    if (!issue) return notFound(res);
    ctx.state.issues = ctx.state.issues.filter((i) => i !== issue);
    res.status(204).end();
  });
}
