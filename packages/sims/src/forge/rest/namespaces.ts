import type { SimContext } from "../../core/sim.js";
import {
  findGroup,
  groupAccessLevel,
  groupById,
  groupFullName,
  groupFullPath,
  requireUser,
  USER_NAMESPACE_OFFSET,
} from "../model/access.js";
import type { ForgeState, ForgeUser, Group } from "../model/state.js";
import { ACCESS, userById } from "../model/state.js";
import { notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

export type Namespace = { kind: "user"; user: ForgeUser } | { kind: "group"; group: Group };

function namespaceJson(state: ForgeState, ns: Namespace, origin: string) {
  if (ns.kind === "user") {
    const u = ns.user;
    return {
      id: USER_NAMESPACE_OFFSET + u.id,
      name: u.name,
      path: u.username,
      kind: "user",
      full_path: u.username,
      parent_id: null,
      avatar_url: null,
      web_url: `${origin}/${u.username}`,
      billable_members_count: 1,
      plan: "free",
      trial_ends_on: null,
      trial: false,
    };
  }
  const g = ns.group;
  const full = groupFullPath(state, g);
  return {
    id: g.id,
    name: g.name,
    path: g.path,
    kind: "group",
    full_path: full,
    parent_id: g.parent_id,
    avatar_url: null,
    web_url: `${origin}/groups/${full}`,
    members_count_with_descendants: g.members.length,
    billable_members_count: g.members.length,
    plan: "free",
    trial_ends_on: null,
    trial: false,
  };
}

/** Namespaces a user may act in: their own, and every group they belong to (directly or by inheritance). */
function namespacesOf(state: ForgeState, user: ForgeUser): Namespace[] {
  const asMember = { ...user, admin: false };
  const groups = user.admin
    ? state.groups
    : state.groups.filter((g) => groupAccessLevel(state, asMember, g) > 0);
  return [{ kind: "user", user }, ...groups.map((group) => ({ kind: "group" as const, group }))];
}

export function findNamespace(state: ForgeState, ref: string): Namespace | undefined {
  if (/^\d+$/.test(ref)) {
    const id = Number(ref);
    if (id > USER_NAMESPACE_OFFSET) {
      const user = userById(state, id - USER_NAMESPACE_OFFSET);
      return user ? { kind: "user", user } : undefined;
    }
    const group = groupById(state, id);
    return group ? { kind: "group", group } : undefined;
  }
  const group = findGroup(state, ref);
  if (group) return { kind: "group", group };
  const user = state.users.find((u) => u.username.toLowerCase() === ref.toLowerCase());
  return user ? { kind: "user", user } : undefined;
}

export function namespaceRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  r.get("/namespaces", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const q = req.query as Record<string, unknown>;
    let rows = namespacesOf(ctx.state, me);
    if (boolParam(q.owned_only)) {
      rows = rows.filter(
        (n) => n.kind === "user" || groupAccessLevel(ctx.state, me, n.group) >= ACCESS.owner,
      );
    }
    const search = str(q.search)?.toLowerCase();
    if (search) {
      rows = rows.filter((n) =>
        (n.kind === "user"
          ? `${n.user.username} ${n.user.name}`
          : `${groupFullPath(ctx.state, n.group)} ${groupFullName(ctx.state, n.group)}`
        )
          .toLowerCase()
          .includes(search),
      );
    }
    res.json(paginate(req, res, ctx.origin, rows).map((n) => namespaceJson(ctx.state, n, ctx.origin)));
  });

  r.get("/namespaces/:id", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const ns = findNamespace(ctx.state, String(req.params.id));
    const mine =
      ns &&
      namespacesOf(ctx.state, me).some(
        (n) => (n.kind === "user" ? n.user : n.group) === (ns.kind === "user" ? ns.user : ns.group),
      );
    if (!ns || !mine) return notFound(res, "Namespace");
    res.json(namespaceJson(ctx.state, ns, ctx.origin));
  });

  // Whether a namespace path is taken: at the top level (users and groups) or under parent_id.
  r.get("/namespaces/:id/exists", (req, res) => {
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
