import type { SimContext } from "../../core/sim.js";
import { loadProject } from "../model/access.js";
import type { ProtectedBranchRow } from "../model/state.js";
import { ACCESS, type ForgeState, type Project } from "../model/state.js";
import { missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

/**
 * Protected branches (GitLab's protected_branches.rb): the default branch is protected from the
 * start, Maintainers push and merge.
 */

const LEVEL_NAMES: Record<number, string> = {
  0: "No one",
  30: "Developers + Maintainers",
  40: "Maintainers",
  60: "Admins",
};

export function protectedBranchRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  /** A project's protected branches; the default branch is protected until someone unprotects it. */
  const protectedOf = (p: Project): ProtectedBranchRow[] => {
    ctx.state.protectedBranches ??= {};
    const all = ctx.state.protectedBranches!;
    all[p.id] ??= [
      {
        id: ++ctx.state.seq.record,
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

  r.get("/projects/:id/protected_branches", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const search = str((req.query as Record<string, unknown>).search);
    const rows = protectedOf(p).filter((b) => !search || b.name.includes(search));
    res.json(paginate(req, res, ctx.origin, rows).map(protectedJson));
  });

  r.get("/projects/:id/protected_branches/:name", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const row = protectedOf(p).find((b) => b.name === req.params.name);
    if (!row) return notFound(res, "Protected Branch");
    res.json(protectedJson(row));
  });

  r.post("/projects/:id/protected_branches", (req, res) => {
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
      id: ++ctx.state.seq.record,
      name,
      push_access_level: push,
      merge_access_level: merge,
      allow_force_push: boolParam(b.allow_force_push) === true,
    };
    protectedOf(p).push(row);
    res.status(201).json(protectedJson(row));
  });

  r.delete("/projects/:id/protected_branches/:name", (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.maintainer);
    if (!p) return;
    const list = protectedOf(p);
    const row = list.find((b) => b.name === req.params.name);
    if (!row) return notFound(res, "Protected Branch");
    ctx.state.protectedBranches![p.id] = list.filter((b) => b !== row);
    res.status(204).end();
  });
}
