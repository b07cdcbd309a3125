import type { Request } from "express";
import type { SimContext } from "../../core/sim.js";
import {
  caller,
  canSeeGroup,
  groupAccessLevel,
  groupById,
  groupChain,
  groupFullName,
  groupFullPath,
  loadGroup,
} from "../model/access.js";
import type { ForgeState, ForgeUser, Group, Member } from "../model/state.js";
import { paginate } from "../wire/paginate.js";
import { boolParam } from "../wire/params.js";
import type { Routes } from "../wire/router.js";
import { filterProjects, memberJson, renderProjects } from "./projects.js";

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

  for (const path of ["/groups/:id/members", "/groups/:id/members/all"]) {
    r.get(path, (req, res) => {
      const g = loadGroup(ctx.state, req, res);
      if (!g) return;
      const chain = path.endsWith("/all") ? groupChain(ctx.state, g) : [g];
      const best = new Map<number, Member>();
      for (const x of chain) {
        for (const m of x.members) {
          const prev = best.get(m.user_id);
          if (!prev || prev.access_level < m.access_level) best.set(m.user_id, m);
        }
      }
      const rows = [...best.values()]
        .map((m) => memberJson(ctx.state, m, ctx.origin))
        .filter((x) => x !== null);
      res.json(paginate(req, res, ctx.origin, rows));
    });
  }
}
