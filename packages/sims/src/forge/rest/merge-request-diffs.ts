import { createHash } from "node:crypto";
import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { projectFullPath } from "../model/access.js";
import { loadMr, mrChanges, mrCommits } from "../model/merge-requests.js";
import { commitJson } from "../model/repo.js";
import type { ForgeState, MergeRequest, Project } from "../model/state.js";
import { notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import type { Routes } from "../wire/router.js";

/**
 * A merge request's diff versions (GitLab's merge_request_diffs.rb): one per head the simulator has
 * seen, the current one.
 */
export function mergeRequestDiffRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const fullPath = (p: Project) => projectFullPath(ctx.state, p);

  const load = (req: Request, res: Response, minLevel = 0) => loadMr(ctx.state, req, res, minLevel);

  // One version: the merge request's current diff (GitLab keeps one per push).
  const version = (project: Project, mr: MergeRequest) => {
    const changes = mrChanges(project, mr).entries;
    return {
      id: mr.id * 1000 + 1,
      head_commit_sha: mr.head_sha,
      base_commit_sha: mr.diff_base_sha,
      start_commit_sha: mr.diff_base_sha,
      created_at: mr.updated_at,
      merge_request_id: mr.id,
      state: "collected",
      real_size: String(changes.length),
      patch_id_sha: patchId(changes),
    };
  };

  r.get("/projects/:id/merge_requests/:iid/versions", (req, res) => {
    const l = load(req, res);
    if (l) res.json(paginate(req, res, ctx.origin, [version(l.project, l.mr)]));
  });

  r.get("/projects/:id/merge_requests/:iid/versions/:version_id", (req, res) => {
    const l = load(req, res);
    if (!l) return;
    const v = version(l.project, l.mr);
    if (String(v.id) !== req.params.version_id) return notFound(res);
    const web = fullPath(l.project);
    res.json({
      ...v,
      commits: mrCommits(l.project, l.mr).map((c) => commitJson(c, ctx.origin, web)),
      diffs: mrChanges(l.project, l.mr).entries,
    });
  });
}

/**
 * A stable id of a diff, as `git patch-id` gives one (GitLab stores it per version): the SHA-1 of
 * the changed paths and diff lines with white space and line numbers left out, so the same change
 * on another base has the same id.
 */
function patchId(changes: Array<{ old_path: string; new_path: string; diff: string }>): string {
  const h = createHash("sha1");
  for (const c of changes) {
    h.update(`${c.old_path}\0${c.new_path}\0`);
    for (const line of c.diff.split("\n")) if (!line.startsWith("@@")) h.update(line.replace(/\s+/g, ""));
  }
  return h.digest("hex");
}
