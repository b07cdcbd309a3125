import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import {
  caller,
  canSeeGroup,
  findGroup,
  groupAccessLevel,
  groupById,
  groupChain,
  groupFullName,
  groupFullPath,
  loadGroup,
} from "../model/access.js";
import { ACCESS, type ForgeState, type ForgeUser, type Group, nextId } from "../model/state.js";
import { forbidden, missing, notFound, unauthorized } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";
import { filterProjects, renderProjects } from "./projects.js";

export function groupJson(state: ForgeState, g: Group, origin: string) {
  const full = groupFullPath(state, g);
  return {
    id: g.id,
    web_url: `${origin}/groups/${full}`,
    name: g.name,
    path: g.path,
    description: g.description,
    visibility: g.visibility,
    share_with_group_lock: false,
    require_two_factor_authentication: false,
    two_factor_grace_period: 48,
    project_creation_level: "developer",
    auto_devops_enabled: null,
    subgroup_creation_level: "maintainer",
    emails_disabled: false,
    emails_enabled: true,
    mentions_disabled: null,
    lfs_enabled: true,
    default_branch: null,
    default_branch_protection: 2,
    avatar_url: null,
    request_access_enabled: true,
    full_name: groupFullName(state, g),
    full_path: full,
    created_at: g.created_at,
    parent_id: g.parent_id,
    organization_id: 1,
    shared_runners_setting: "enabled",
    ldap_cn: null,
    ldap_access: null,
    wiki_access_level: "enabled",
  };
}

function memberLevel(state: ForgeState, user: ForgeUser, g: Group): number {
  return groupAccessLevel(state, { ...user, admin: false }, g);
}

function filterGroups(state: ForgeState, list: Group[], req: Request, user: ForgeUser | null): Group[] {
  const q = req.query as Record<string, unknown>;
  let out = list.filter((g) => canSeeGroup(state, user, g));
  // Authenticated non-admins see their own groups unless they ask for all_available.
  if (user && !user.admin && boolParam(q.all_available) !== true)
    out = out.filter((g) => memberLevel(state, user, g) > 0);
  if (user && q.min_access_level !== undefined) {
    const min = Number(q.min_access_level) || 10;
    out = out.filter((g) => memberLevel(state, user, g) >= min);
  }
  if (user && boolParam(q.owned) === true) out = out.filter((g) => memberLevel(state, user, g) >= 50);
  if (typeof q.search === "string" && q.search) {
    const term = q.search.toLowerCase();
    out = out.filter((g) => g.name.toLowerCase().includes(term) || g.path.toLowerCase().includes(term));
  }
  if (boolParam(q.top_level_only) === true) out = out.filter((g) => g.parent_id === null);
  const skip = ([] as unknown[]).concat(q.skip_groups ?? []).map(Number);
  if (skip.length) out = out.filter((g) => !skip.includes(g.id));
  const by = q.order_by === "id" || q.order_by === "path" ? q.order_by : "name";
  const dir = q.sort === "desc" ? -1 : 1;
  const key = (g: Group) =>
    by === "id" ? g.id : by === "path" ? groupFullPath(state, g) : groupFullName(state, g);
  return out
    .map((g) => ({ g, k: key(g) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.g.id - b.g.id) * dir)
    .map((x) => x.g);
}

/** The caller's access to a group, refusing (401/403) below `min`: the group itself was loaded. */
export function groupLevel(ctx: SimContext<ForgeState>, res: Response, g: Group, min: number): boolean {
  const user = caller(res)?.user ?? null;
  if (!user) {
    unauthorized(res);
    return false;
  }
  if (groupAccessLevel(ctx.state, user, g) < min) {
    forbidden(res);
    return false;
  }
  return true;
}

export function groupRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  r.get("/groups", (req, res) => {
    const list = filterGroups(ctx.state, ctx.state.groups, req, caller(res)?.user ?? null);
    res.json(paginate(req, res, ctx.origin, list).map((g) => groupJson(ctx.state, g, ctx.origin)));
  });

  r.get("/groups/:id", (req, res) => {
    const g = loadGroup(ctx.state, req, res);
    if (!g) return;
    const body: Record<string, unknown> = groupJson(ctx.state, g, ctx.origin);
    if (boolParam((req.query as Record<string, unknown>).with_projects) !== false) {
      const own = ctx.state.projects.filter((p) => p.namespace.kind === "group" && p.namespace.id === g.id);
      body.projects = filterProjects(ctx.state, own, req, res).map((p) => ({
        id: p.id,
        name: p.name,
        path: p.path,
      }));
      body.shared_projects = [];
    }
    res.json(body);
  });

  r.get("/groups/:id/subgroups", (req, res) => {
    const g = loadGroup(ctx.state, req, res);
    if (!g) return;
    const children = ctx.state.groups.filter((x) => x.parent_id === g.id);
    const user = caller(res)?.user ?? null;
    const list = children
      .filter((x) => canSeeGroup(ctx.state, user, x))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id));
    res.json(paginate(req, res, ctx.origin, list).map((x) => groupJson(ctx.state, x, ctx.origin)));
  });

  // Every group below this one, at any depth, that the caller can see (subgroups only go one down).
  r.get("/groups/:id/descendant_groups", (req, res) => {
    const g = loadGroup(ctx.state, req, res);
    if (!g) return;
    const user = caller(res)?.user ?? null;
    const q = req.query as Record<string, unknown>;
    const search = typeof q.search === "string" ? q.search.toLowerCase() : undefined;
    const list = ctx.state.groups
      .filter((x) => x !== g && groupChain(ctx.state, x).includes(g) && canSeeGroup(ctx.state, user, x))
      .filter(
        (x) => !search || x.name.toLowerCase().includes(search) || x.path.toLowerCase().includes(search),
      )
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id));
    res.json(paginate(req, res, ctx.origin, list).map((x) => groupJson(ctx.state, x, ctx.origin)));
  });

  r.get("/groups/:id/projects", (req, res) => {
    const g = loadGroup(ctx.state, req, res);
    if (!g) return;
    const deep = boolParam((req.query as Record<string, unknown>).include_subgroups) === true;
    const own = ctx.state.projects.filter((p) => {
      if (p.namespace.kind !== "group") return false;
      if (p.namespace.id === g.id) return true;
      const ns = groupById(ctx.state, p.namespace.id);
      return deep && ns !== undefined && groupChain(ctx.state, ns).includes(g);
    });
    renderProjects(ctx, req, res, filterProjects(ctx.state, own, req, res));
  });

  // creating a group: top level for any signed-in user, a subgroup for the parent's maintainers
  r.post("/groups", (req, res) => {
    const user = caller(res)?.user;
    if (!user) return unauthorized(res);
    const b = params(req);
    const name = str(b.name);
    const path = str(b.path);
    if (!name || !path) return missing(res, ...(!name ? ["name"] : []), ...(!path ? ["path"] : []));
    const parentId = b.parent_id === undefined || b.parent_id === null ? null : Number(b.parent_id);
    const parent = parentId === null ? undefined : groupById(ctx.state, parentId);
    if (parentId !== null && !parent) return notFound(res, "Parent group");
    if (parent && groupAccessLevel(ctx.state, user, parent) < ACCESS.maintainer) return forbidden(res);
    if (!/^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/.test(path) || /\.(git|atom)$/.test(path))
      return void res.status(400).json({ message: { path: ["is invalid"] } });
    const full = parent ? `${groupFullPath(ctx.state, parent)}/${path}` : path;
    const taken =
      findGroup(ctx.state, full) !== undefined ||
      (!parent && ctx.state.users.some((u) => u.username.toLowerCase() === path.toLowerCase()));
    if (taken)
      return void res
        .status(400)
        .json({ message: 'Failed to save group {:path=>["has already been taken"]}' });
    const visibility = str(b.visibility) ?? "private";
    if (!["private", "internal", "public"].includes(visibility))
      return void res.status(400).json({ error: "visibility does not have a valid value" });
    const g: Group = {
      id: nextId(ctx.state, "group"),
      name,
      path,
      parent_id: parent?.id ?? null,
      description: str(b.description) ?? "",
      visibility: visibility as Group["visibility"],
      members: [{ user_id: user.id, access_level: ACCESS.owner }],
      created_at: ctx.state.clock.iso(),
    };
    ctx.state.groups.push(g);
    res.status(201).json(groupJson(ctx.state, g, ctx.origin));
  });
}
