import type { Express } from "express";
import type { SimContext } from "../../core/sim.js";
import { caller, findGroup, loadProject, requireUser } from "../model/access.js";
import { resolveRef } from "../model/repo.js";
import type { CommitStatusRow, ProtectedBranchRow } from "../model/state.js";
import { ACCESS, type ForgeState, type Project } from "../model/state.js";
import { userRef } from "../model/users.js";
import { API, missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, params, str } from "../wire/params.js";
import { todosOf } from "./activity.js";
import { projectJson } from "./projects.js";

/**
 * Project settings and records beside the repository, from GitLab's documented API: protected
 * branches (the default branch is protected from the start, Maintainers push and merge), external
 * commit statuses, project settings (PUT /projects/:id), marking every to-do done, and whether a
 * namespace path is taken.
 */

const LEVEL_NAMES: Record<number, string> = {
  0: "No one",
  30: "Developers + Maintainers",
  40: "Maintainers",
  60: "Admins",
};
const STATES = new Set(["pending", "running", "success", "failed", "canceled", "skipped"]);

export function projectSettingsRoutes(app: Express, ctx: SimContext<ForgeState>): void {
  const x = () => ctx.state;

  /** A project's protected branches; the default branch is protected until someone unprotects it. */
  const protectedOf = (p: Project): ProtectedBranchRow[] => {
    x().protectedBranches ??= {};
    const all = x().protectedBranches!;
    all[p.id] ??= [
      {
        id: ++x().seq.record,
        name: p.default_branch,
        push_access_level: 40,
        merge_access_level: 40,
        allow_force_push: false,
      },
    ];
    return all[p.id]!;
  };
  const levels = (row: ProtectedBranchRow, level: number) => [
    {
      id: row.id * 10 + (level === row.push_access_level ? 1 : 2),
      access_level: level,
      access_level_description: LEVEL_NAMES[level] ?? "Maintainers",
      user_id: null,
      group_id: null,
    },
  ];
  const protectedJson = (row: ProtectedBranchRow) => ({
    id: row.id,
    name: row.name,
    push_access_levels: levels(row, row.push_access_level),
    merge_access_levels: levels(row, row.merge_access_level),
    allow_force_push: row.allow_force_push,
    code_owner_approval_required: false,
  });
  const PB = `${API}/projects/:id/protected_branches`;

  app.get(PB, (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const search = str((req.query as Record<string, unknown>).search);
    const rows = protectedOf(p).filter((b) => !search || b.name.includes(search));
    res.json(paginate(req, res, ctx.origin, rows).map(protectedJson));
  });

  app.get(`${PB}/:name`, (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const row = protectedOf(p).find((b) => b.name === req.params.name);
    if (!row) return notFound(res, "Protected Branch");
    res.json(protectedJson(row));
  });

  app.post(PB, (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.maintainer);
    if (!p) return;
    const b = params(req);
    const name = str(b.name);
    if (!name) return missing(res, "name");
    if (protectedOf(p).some((r) => r.name === name))
      return void res.status(409).json({ message: "Protected branch 'name' has already been taken" });
    const level = (v: unknown) => (v === undefined ? 40 : Number(v));
    const push = level(b.push_access_level);
    const merge = level(b.merge_access_level);
    if (![push, merge].every((l) => l in LEVEL_NAMES))
      return void res
        .status(400)
        .json({ error: "push_access_level, merge_access_level does not have a valid value" });
    const row: ProtectedBranchRow = {
      id: ++x().seq.record,
      name,
      push_access_level: push,
      merge_access_level: merge,
      allow_force_push: boolParam(b.allow_force_push) === true,
    };
    protectedOf(p).push(row);
    res.status(201).json(protectedJson(row));
  });

  app.delete(`${PB}/:name`, (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.maintainer);
    if (!p) return;
    const list = protectedOf(p);
    const row = list.find((b) => b.name === req.params.name);
    if (!row) return notFound(res, "Protected Branch");
    x().protectedBranches![p.id] = list.filter((b) => b !== row);
    res.status(204).end();
  });

  // Commit statuses set by external systems.
  const statusJson = (s: CommitStatusRow) => ({
    id: s.id,
    sha: s.sha,
    ref: s.ref,
    status: s.status,
    name: s.name,
    target_url: s.target_url,
    description: s.description,
    created_at: s.created_at,
    started_at: s.status === "pending" ? null : s.created_at,
    finished_at: ["success", "failed", "canceled", "skipped"].includes(s.status) ? s.created_at : null,
    allow_failure: false,
    coverage: null,
    author: userRef(ctx.state, s.author_id, ctx.origin),
  });

  app.post(`${API}/projects/:id/statuses/:sha`, (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.developer);
    if (!p) return;
    const commit = resolveRef(p.repository, String(req.params.sha));
    if (!commit) return notFound(res, "Commit");
    const b = params(req);
    const state = str(b.state);
    if (!state) return missing(res, "state");
    if (!STATES.has(state)) return void res.status(400).json({ error: "state does not have a valid value" });
    const row: CommitStatusRow = {
      id: ++x().seq.record,
      project_id: p.id,
      sha: commit.id,
      ref: str(b.ref) ?? null,
      name: str(b.name) ?? str(b.context) ?? "default",
      status: state,
      target_url: str(b.target_url) ?? null,
      description: str(b.description) ?? null,
      created_at: ctx.state.clock.iso(),
      author_id: caller(res)!.user.id,
    };
    // the same name on the same sha and ref is one status, moved to its new state
    x().statuses = [
      ...(x().statuses ?? []).filter(
        (s) => !(s.project_id === p.id && s.sha === row.sha && s.name === row.name && s.ref === row.ref),
      ),
      row,
    ];
    res.status(201).json(statusJson(row));
  });

  app.get(`${API}/projects/:id/repository/commits/:sha/statuses`, (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const commit = resolveRef(p.repository, String(req.params.sha));
    if (!commit) return notFound(res, "Commit");
    const q = req.query as Record<string, unknown>;
    const rows = (x().statuses ?? []).filter(
      (s) =>
        s.project_id === p.id &&
        s.sha === commit.id &&
        (typeof q.ref !== "string" || s.ref === q.ref) &&
        (typeof q.name !== "string" || s.name === q.name),
    );
    res.json(paginate(req, res, ctx.origin, rows).map(statusJson));
  });

  // Project settings: name, description, visibility and the default branch (which must exist).
  app.put(`${API}/projects/:id`, (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.maintainer);
    if (!p) return;
    const b = params(req);
    const branch = str(b.default_branch);
    if (branch !== undefined && !p.repository.branches.has(branch))
      return void res
        .status(400)
        .json({ message: { base: [`Could not change HEAD: branch '${branch}' does not exist`] } });
    const visibility = str(b.visibility);
    if (visibility !== undefined && !["private", "internal", "public"].includes(visibility))
      return void res.status(400).json({ error: "visibility does not have a valid value" });
    const name = str(b.name);
    if (name !== undefined) {
      if (!name.trim()) return void res.status(400).json({ message: { name: ["can't be blank"] } });
      p.name = name;
    }
    const description = str(b.description);
    if (description !== undefined) p.description = description;
    if (visibility !== undefined) p.visibility = visibility as Project["visibility"];
    if (branch !== undefined) p.default_branch = branch;
    p.last_activity_at = ctx.state.clock.iso();
    res.json(projectJson(ctx.state, p, ctx.origin, caller(res)?.user ?? null));
  });

  app.post(`${API}/todos/mark_as_done`, (_req, res) => {
    const me = requireUser(res);
    if (!me) return;
    for (const t of todosOf(ctx, me)) if (!x().todosDone.includes(t.id)) x().todosDone.push(t.id);
    res.status(204).end();
  });

  // Whether a namespace path is taken: at the top level (users and groups) or under parent_id.
  app.get(`${API}/namespaces/:id/exists`, (req, res) => {
    if (!requireUser(res)) return;
    const path = String(req.params.id).toLowerCase();
    const parentRef = str((req.query as Record<string, unknown>).parent_id);
    const parent = parentRef ? findGroup(ctx.state, parentRef) : undefined;
    if (parentRef && !parent) return notFound(res, "Parent Namespace");
    const taken = (candidate: string) =>
      parent
        ? ctx.state.groups.some((g) => g.parent_id === parent.id && g.path.toLowerCase() === candidate)
        : ctx.state.users.some((u) => u.username.toLowerCase() === candidate) ||
          ctx.state.groups.some((g) => g.parent_id === null && g.path.toLowerCase() === candidate);
    const exists = taken(path);
    let n = 1;
    while (exists && taken(`${path}${n}`)) n++;
    res.json({ exists, suggests: exists ? [`${req.params.id}${n}`] : [] });
  });
}
