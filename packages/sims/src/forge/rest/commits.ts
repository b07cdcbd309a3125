import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { caller, loadProject, projectFullPath } from "../model/access.js";
import { mrCommits, mrJson, syncMr } from "../model/merge-requests.js";
import { commitDetailJson, commitJson, diffCommits, history, resolveRef } from "../model/repo.js";
import { type CommitAction, commitActions } from "../model/repo-write.js";
import type { Commit, ForgeState, Project } from "../model/state.js";
import { missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";
import { writableBranch } from "./branches.js";

/** Branches and tags whose history contains the commit. */
function refsContaining(p: Project, sha: string, type: string) {
  const repo = p.repository;
  const contains = (head: string | undefined) => {
    const c = head ? repo.commits.get(head) : undefined;
    return c !== undefined && history(repo, c).some((x) => x.id === sha);
  };
  const out: Array<{ type: "branch" | "tag"; name: string }> = [];
  if (type !== "tag")
    for (const [name, head] of [...repo.branches].sort(([a], [b]) => (a < b ? -1 : 1)))
      if (contains(head)) out.push({ type: "branch", name });
  if (type !== "branch")
    for (const [name, tag] of [...repo.tags].sort(([a], [b]) => (a < b ? -1 : 1)))
      if (contains(tag.target)) out.push({ type: "tag", name });
  return out;
}

/** Repository commits (GitLab's commits.rb): list, one, its diff, and committing actions. */
export function commitRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  r.get("/projects/:id/repository/commits", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    const head = resolveRef(p.repository, str(q.ref_name), p.default_branch);
    if (!head) return notFound(res, "Reference");
    let rows: Commit[] = history(p.repository, head);
    const path = str(q.path);
    if (path) {
      rows = rows.filter((c) => {
        const parent = c.parent_ids[0] ? p.repository.commits.get(c.parent_ids[0]) : undefined;
        return parent?.files[path] !== c.files[path];
      });
    }
    const since = str(q.since);
    if (since) rows = rows.filter((c) => c.created_at >= since);
    const until = str(q.until);
    if (until) rows = rows.filter((c) => c.created_at <= until);
    const author = str(q.author);
    if (author) rows = rows.filter((c) => c.author_name.includes(author) || c.author_email.includes(author));
    const full = projectFullPath(ctx.state, p);
    res.json(paginate(req, res, ctx.origin, rows).map((c) => commitJson(c, ctx.origin, full)));
  });

  r.get("/projects/:id/repository/commits/:sha", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const c = resolveRef(p.repository, String(req.params.sha));
    if (!c) return notFound(res, "Commit");
    res.json(commitDetailJson(ctx.state, p, c, ctx.origin, projectFullPath(ctx.state, p)));
  });

  r.get("/projects/:id/repository/commits/:sha/diff", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const c = resolveRef(p.repository, String(req.params.sha));
    if (!c) return notFound(res, "Commit");
    const parent = c.parent_ids[0] ? p.repository.commits.get(c.parent_ids[0]) : undefined;
    res.json(paginate(req, res, ctx.origin, diffCommits(parent, c).entries));
  });

  r.post("/projects/:id/repository/commits", (req, res) => {
    const p = params(req);
    const absent = ["branch", "commit_message"].filter((k) => typeof p[k] !== "string" || !p[k]);
    if (!Array.isArray(p.actions)) absent.push("actions");
    if (absent.length) return missing(res, ...absent);
    const branch = String(p.branch);
    const project = writableBranch(ctx.state, req, res, branch);
    if (!project) return;
    const result = commitActions(ctx.state, project, caller(res)!.user, {
      branch,
      message: String(p.commit_message),
      startBranch: str(p.start_branch),
      startSha: str(p.start_sha),
      actions: (p.actions as unknown[]).filter((a): a is CommitAction => typeof a === "object" && a !== null),
      authorName: str(p.author_name),
      authorEmail: str(p.author_email),
    });
    if ("error" in result) return void res.status(400).json({ message: result.error });
    res
      .status(201)
      .json(commitDetailJson(ctx.state, project, result, ctx.origin, projectFullPath(ctx.state, project)));
  });

  const loadCommit = (req: Request, res: Response): { p: Project; commit: Commit } | null => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return null;
    const commit = resolveRef(p.repository, String(req.params.sha));
    if (!commit) {
      notFound(res, "Commit");
      return null;
    }
    return { p, commit };
  };

  r.get("/projects/:id/repository/commits/:sha/refs", (req, res) => {
    const l = loadCommit(req, res);
    if (!l) return;
    const type = String((req.query as Record<string, unknown>).type ?? "all");
    if (!["branch", "tag", "all"].includes(type))
      return void res.status(400).json({ error: "type does not have a valid value" });
    res.json(paginate(req, res, ctx.origin, refsContaining(l.p, l.commit.id, type)));
  });

  r.get("/projects/:id/repository/commits/:sha/merge_requests", (req, res) => {
    const l = loadCommit(req, res);
    if (!l) return;
    const rows = ctx.state.mergeRequests.filter((m) => {
      if (m.project_id !== l.p.id) return false;
      syncMr(l.p, m);
      return m.merge_commit_sha === l.commit.id || mrCommits(l.p, m).some((c) => c.id === l.commit.id);
    });
    res.json(paginate(req, res, ctx.origin, rows).map((m) => mrJson(ctx.state, l.p, m, ctx.origin)));
  });
}
