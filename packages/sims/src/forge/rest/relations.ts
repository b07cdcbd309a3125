import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { caller, loadProject } from "../model/access.js";
import { loadMr, mrJson } from "../model/merge-requests.js";
import type { ForgeState, Issue, MergeRequest, Project } from "../model/state.js";
import { userById } from "../model/state.js";
import { basicUser } from "../model/users.js";
import { notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import type { Routes } from "../wire/router.js";
import { findIssue, issueJson } from "./issues.js";

/**
 * How issues and merge requests refer to each other, read from their text as GitLab does: an MR
 * whose description says `Closes #1` (also close/closed/closing, fix/fixes/fixed/fixing,
 * resolve/resolves/resolved/resolving, implement/implements) closes issue 1 of its project when it
 * merges; any `#1` in its title or description makes it related. Participants are the author,
 * the assignees (and an MR's reviewers) and whoever wrote a note, in that order, once each.
 */
const CLOSING =
  /\b(?:clos(?:e|es|ed|ing)|fix(?:|es|ed|ing)|resolv(?:e|es|ed|ing)|implement(?:s|ed|ing)?)\b:?\s+((?:#\d+(?:\s*(?:,|and)\s*)?)+)/gi;

/** Issue iids an MR's description closes (same project). */
export function closedIids(mr: MergeRequest): number[] {
  const out = new Set<number>();
  for (const m of mr.description.matchAll(CLOSING))
    for (const ref of m[1]!.matchAll(/#(\d+)/g)) out.add(Number(ref[1]));
  return [...out];
}

/** Issue iids an MR mentions anywhere in its title or description (same project). */
function mentionedIids(mr: MergeRequest): number[] {
  return [...`${mr.title}\n${mr.description}`.matchAll(/(?:^|[^\w&])#(\d+)\b/g)].map((m) => Number(m[1]));
}

function participants(state: ForgeState, ids: number[], noteAuthors: number[], origin: string) {
  const seen = new Set<number>();
  const out: ReturnType<typeof basicUser>[] = [];
  for (const id of [...ids, ...noteAuthors]) {
    if (seen.has(id)) continue;
    seen.add(id);
    const u = userById(state, id);
    if (u) out.push(basicUser(u, origin));
  }
  return out;
}

const noteAuthors = (on: Issue | MergeRequest) =>
  on.discussions.flatMap((d) => d.notes.filter((n) => !n.system).map((n) => n.author_id));

export function relationRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;

  const loadIssue = (req: Request, res: Response) => {
    const p = loadProject(s(), req, res);
    if (!p) return null;
    const issue = findIssue(s(), p, Number(req.params.iid), caller(res)?.user ?? null);
    if (!issue) {
      notFound(res);
      return null;
    }
    return { project: p, issue };
  };
  const readMr = (req: Request, res: Response) => loadMr(s(), req, res);
  const projectMrs = (p: Project) => s().mergeRequests.filter((m) => m.project_id === p.id);
  const mrRows = (req: Request, res: Response, p: Project, rows: MergeRequest[]) =>
    res.json(paginate(req, res, ctx.origin, rows).map((m) => mrJson(s(), p, m, ctx.origin)));

  r.get("/projects/:id/issues/:iid/participants", (req, res) => {
    const l = loadIssue(req, res);
    if (!l) return;
    const { issue } = l;
    res.json(participants(s(), [issue.author_id, ...issue.assignee_ids], noteAuthors(issue), ctx.origin));
  });

  // The simulator keeps no time tracking: every issue (and MR) has spent and estimated nothing.
  const timeStats = {
    time_estimate: 0,
    total_time_spent: 0,
    human_time_estimate: null,
    human_total_time_spent: null,
  };
  r.get("/projects/:id/issues/:iid/time_stats", (req, res) => {
    if (loadIssue(req, res)) res.json(timeStats);
  });
  r.get("/projects/:id/merge_requests/:iid/time_stats", (req, res) => {
    if (readMr(req, res)) res.json(timeStats);
  });

  r.get("/projects/:id/issues/:iid/related_merge_requests", (req, res) => {
    const l = loadIssue(req, res);
    if (!l) return;
    const rows = projectMrs(l.project).filter((m) => mentionedIids(m).includes(l.issue.iid));
    mrRows(req, res, l.project, rows);
  });

  r.get("/projects/:id/issues/:iid/closed_by", (req, res) => {
    const l = loadIssue(req, res);
    if (!l) return;
    const rows = projectMrs(l.project).filter(
      (m) => m.state !== "closed" && closedIids(m).includes(l.issue.iid),
    );
    mrRows(req, res, l.project, rows);
  });

  r.get("/projects/:id/merge_requests/:iid/participants", (req, res) => {
    const l = readMr(req, res);
    if (!l) return;
    const { mr } = l;
    res.json(
      participants(s(), [mr.author_id, ...mr.assignee_ids, ...mr.reviewer_ids], noteAuthors(mr), ctx.origin),
    );
  });

  r.get("/projects/:id/merge_requests/:iid/closes_issues", (req, res) => {
    const l = readMr(req, res);
    if (!l) return;
    const me = caller(res)?.user ?? null;
    const rows = closedIids(l.mr)
      .map((iid) => findIssue(s(), l.project, iid, me))
      .filter((i): i is Issue => i !== undefined);
    res.json(paginate(req, res, ctx.origin, rows).map((i) => issueJson(s(), i, ctx.origin)));
  });
}
