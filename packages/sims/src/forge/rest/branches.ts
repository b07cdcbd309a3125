import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { caller, loadProject, projectAccessLevel, projectFullPath, requireUser } from "../model/access.js";
import { commitJson, history, resolveRef } from "../model/repo.js";
import { validBranchName } from "../model/repo-write.js";
import type { ForgeState, Project } from "../model/state.js";
import { ACCESS } from "../model/state.js";
import { forbidden, missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

/** Repository branches (GitLab's branches.rb). */
function branchJson(state: ForgeState, project: Project, name: string, origin: string, res: Response) {
  const repo = project.repository;
  const head = repo.commits.get(repo.branches.get(name)!)!;
  const full = projectFullPath(state, project);
  const level = projectAccessLevel(state, caller(res)?.user ?? null, project);
  const isProtected = repo.protected.has(name);
  const defaultHead = resolveRef(repo, project.default_branch);
  const merged =
    name !== project.default_branch &&
    defaultHead !== undefined &&
    history(repo, defaultHead).some((c) => c.id === head.id);
  return {
    name,
    commit: commitJson(head, origin, full),
    merged,
    protected: isProtected,
    developers_can_push: false,
    developers_can_merge: false,
    can_push: level >= (isProtected ? ACCESS.maintainer : ACCESS.developer),
    default: name === project.default_branch,
    web_url: `${origin}/${full}/-/tree/${name}`,
  };
}

/** Write access to a branch: developers push, protected branches need maintainers; null when answered. */
export function writableBranch(state: ForgeState, req: Request, res: Response, branch: string | undefined) {
  if (!requireUser(res)) return null;
  const project = loadProject(state, req, res, ACCESS.developer);
  if (!project) return null;
  if (branch && project.repository.protected.has(branch)) {
    if (projectAccessLevel(state, caller(res)!.user, project) < ACCESS.maintainer) {
      forbidden(res, "You are not allowed to push into this branch");
      return null;
    }
  }
  return project;
}

export function branchRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  r.get("/projects/:id/repository/branches", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    let names = [...p.repository.branches.keys()].sort();
    const search = str(q.search);
    if (search) {
      const term = search.replace(/^\^/, "").replace(/\$$/, "").toLowerCase();
      names = names.filter((n) => {
        const l = n.toLowerCase();
        if (search.startsWith("^")) return l.startsWith(term);
        if (search.endsWith("$")) return l.endsWith(term);
        return l.includes(term);
      });
    }
    res.json(paginate(req, res, ctx.origin, names).map((n) => branchJson(ctx.state, p, n, ctx.origin, res)));
  });

  r.get("/projects/:id/repository/branches/:branch", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const name = String(req.params.branch);
    if (!p.repository.branches.has(name)) return notFound(res, "Branch");
    res.json(branchJson(ctx.state, p, name, ctx.origin, res));
  });

  r.post("/projects/:id/repository/branches", (req, res) => {
    const p = params(req);
    const absent = ["branch", "ref"].filter((k) => typeof p[k] !== "string" || !p[k]);
    if (absent.length) return missing(res, ...absent);
    const project = writableBranch(ctx.state, req, res, undefined);
    if (!project) return;
    const name = String(p.branch);
    if (!validBranchName(name)) return void res.status(400).json({ message: "Branch name is invalid" });
    if (project.repository.branches.has(name))
      return void res.status(400).json({ message: "Branch already exists" });
    const from = resolveRef(project.repository, String(p.ref));
    if (!from) return void res.status(400).json({ message: `Invalid reference name: ${p.ref}` });
    project.repository.branches.set(name, from.id);
    res.status(201).json(branchJson(ctx.state, project, name, ctx.origin, res));
  });

  r.delete("/projects/:id/repository/branches/:branch", (req, res) => {
    const name = String(req.params.branch);
    const project = writableBranch(ctx.state, req, res, name);
    if (!project) return;
    if (!project.repository.branches.has(name)) return notFound(res, "Branch");
    if (name === project.default_branch) {
      return void res.status(405).json({ message: "The default branch of a project cannot be deleted." });
    }
    project.repository.branches.delete(name);
    res.status(204).end();
  });
}
