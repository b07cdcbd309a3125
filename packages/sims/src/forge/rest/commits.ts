import type { SimContext } from "../../core/sim.js";
import { caller, loadProject, projectFullPath } from "../model/access.js";
import { commitDetailJson, commitJson, diffCommits, history, resolveRef } from "../model/repo.js";
import { type CommitAction, commitActions } from "../model/repo-write.js";
import type { Commit, ForgeState } from "../model/state.js";
import { missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";
import { writableBranch } from "./branches.js";

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
}
