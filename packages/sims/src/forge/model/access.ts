import type { Request, Response } from "express";
import { forbidden, notFound, unauthorized } from "../wire/answers.js";
import type { ForgeState, ForgeUser, Group, Job, PersonalAccessToken, Project } from "./state.js";
import { ACCESS, userById } from "./state.js";

/**
 * Who is calling, as the API authentication (rest/auth.ts) left it on the response: null for an
 * anonymous request (public resources only).
 */
export interface ApiCaller {
  user: ForgeUser;
  scopes: string[];
  kind: "oauth" | "pat" | "job";
  pat?: PersonalAccessToken;
  /** A CI job token's running job (kind `job`): the token reaches that job's project only. */
  job?: Job;
}

export function caller(res: Response): ApiCaller | null {
  return (res.locals.caller as ApiCaller | undefined) ?? null;
}

/** Ends the request with 401 unless a user is authenticated; returns that user. */
export function requireUser(res: Response): ForgeUser | null {
  const c = caller(res);
  if (!c) {
    unauthorized(res);
    return null;
  }
  return c.user;
}

/** Personal namespaces share GitLab's namespace id space with groups; keep them well apart. */
export const USER_NAMESPACE_OFFSET = 1_000_000;

/**
 * Id and full-path indexes over `state.groups`, extended as groups are appended (the array is only
 * ever appended to; a replacing seed installs a new array, which gets a new index). Without them a
 * listing of 10,000 groups is quadratic.
 */
const indexes = new WeakMap<
  Group[],
  { size: number; byId: Map<number, Group>; byPath: Map<string, Group> }
>();

function groupIndex(state: ForgeState) {
  let idx = indexes.get(state.groups);
  if (!idx) {
    idx = { size: 0, byId: new Map(), byPath: new Map() };
    indexes.set(state.groups, idx);
  }
  if (idx.size < state.groups.length) {
    const fresh = state.groups.slice(idx.size);
    for (const g of fresh) idx.byId.set(g.id, g);
    idx.size = state.groups.length;
    // Paths need the id index complete first (parents are looked up by id).
    for (const g of fresh) idx.byPath.set(groupFullPath(state, g).toLowerCase(), g);
  }
  return idx;
}

export function groupById(state: ForgeState, id: number): Group | undefined {
  return groupIndex(state).byId.get(id);
}

export function groupChain(state: ForgeState, g: Group): Group[] {
  const chain: Group[] = [g];
  let cur = g;
  while (cur.parent_id !== null) {
    const parent = groupById(state, cur.parent_id);
    if (!parent || chain.includes(parent)) break;
    chain.unshift(parent);
    cur = parent;
  }
  return chain;
}

export function groupFullPath(state: ForgeState, g: Group): string {
  return groupChain(state, g)
    .map((x) => x.path)
    .join("/");
}

export function groupFullName(state: ForgeState, g: Group): string {
  return groupChain(state, g)
    .map((x) => x.name)
    .join(" / ");
}

export function namespaceOf(state: ForgeState, p: Project, origin: string) {
  if (p.namespace.kind === "group") {
    const g = groupById(state, p.namespace.id)!;
    const full = groupFullPath(state, g);
    return {
      id: g.id,
      name: g.name,
      path: g.path,
      kind: "group" as const,
      full_path: full,
      parent_id: g.parent_id,
      avatar_url: null,
      web_url: `${origin}/groups/${full}`,
    };
  }
  const u = userById(state, p.namespace.id)!;
  return {
    id: USER_NAMESPACE_OFFSET + u.id,
    name: u.name,
    path: u.username,
    kind: "user" as const,
    full_path: u.username,
    parent_id: null,
    avatar_url: null,
    web_url: `${origin}/${u.username}`,
  };
}

export function projectFullPath(state: ForgeState, p: Project): string {
  if (p.namespace.kind === "group")
    return `${groupFullPath(state, groupById(state, p.namespace.id)!)}/${p.path}`;
  return `${userById(state, p.namespace.id)?.username}/${p.path}`;
}

export function projectFullName(state: ForgeState, p: Project): string {
  if (p.namespace.kind === "group")
    return `${groupFullName(state, groupById(state, p.namespace.id)!)} / ${p.name}`;
  return `${userById(state, p.namespace.id)?.name} / ${p.name}`;
}

export function groupAccessLevel(state: ForgeState, user: ForgeUser | null, g: Group): number {
  if (!user) return 0;
  if (user.admin) return ACCESS.owner;
  let level = 0;
  for (const x of groupChain(state, g)) {
    for (const m of x.members) if (m.user_id === user.id) level = Math.max(level, m.access_level);
  }
  return level;
}

export function projectAccessLevel(state: ForgeState, user: ForgeUser | null, p: Project): number {
  if (!user) return 0;
  if (user.admin) return ACCESS.owner;
  let level = 0;
  for (const m of p.members) if (m.user_id === user.id) level = Math.max(level, m.access_level);
  if (p.namespace.kind === "user" && p.namespace.id === user.id) level = ACCESS.owner;
  if (p.namespace.kind === "group") {
    const g = groupById(state, p.namespace.id);
    if (g) level = Math.max(level, groupAccessLevel(state, user, g));
  }
  return level;
}

function visible(visibility: string, user: ForgeUser | null, level: number): boolean {
  if (visibility === "public") return true;
  if (visibility === "internal") return user !== null;
  return level >= ACCESS.guest;
}

export function canReadProject(state: ForgeState, user: ForgeUser | null, p: Project): boolean {
  return visible(p.visibility, user, projectAccessLevel(state, user, p));
}

export function canSeeGroup(state: ForgeState, user: ForgeUser | null, g: Group): boolean {
  if (g.visibility === "public" || (g.visibility === "internal" && user)) return true;
  if (visible(g.visibility, user, groupAccessLevel(state, user, g))) return true;
  // A private group is visible to members of any project inside it.
  return state.projects.some(
    (p) =>
      p.namespace.kind === "group" &&
      groupChain(state, groupById(state, p.namespace.id)!).includes(g) &&
      projectAccessLevel(state, user, p) >= ACCESS.guest,
  );
}

/** Numeric id or URL-decoded full path (`group/sub/project`), as GitLab accepts both. */
export function findProject(state: ForgeState, ref: string): Project | undefined {
  if (/^\d+$/.test(ref)) return state.projects.find((p) => p.id === Number(ref));
  const lower = ref.toLowerCase();
  return state.projects.find((p) => projectFullPath(state, p).toLowerCase() === lower);
}

export function findGroup(state: ForgeState, ref: string): Group | undefined {
  if (/^\d+$/.test(ref)) return groupById(state, Number(ref));
  return groupIndex(state).byPath.get(ref.toLowerCase());
}

/**
 * Loads `:id` for a request: 404 `Project Not Found` when it does not exist or the caller cannot see
 * it (GitLab does not reveal private projects), then 401/403 when `minLevel` is not met.
 */
export function loadProject(state: ForgeState, req: Request, res: Response, minLevel = 0): Project | null {
  const c = caller(res);
  const user = c?.user ?? null;
  const p = findProject(state, String(req.params.id));
  if (!p || !canReadProject(state, user, p)) {
    notFound(res, "Project");
    return null;
  }
  // A job token reaches its own job's project (the simulator keeps every job token allowlist empty).
  if (c?.job && c.job.project_id !== p.id) {
    const from = state.projects.find((x) => x.id === c.job!.project_id);
    forbidden(
      res,
      `Authentication by CI/CD job token not allowed from ${from ? projectFullPath(state, from) : "?"} to ${projectFullPath(state, p)}.`,
    );
    return null;
  }
  if (minLevel > 0) {
    if (!user) {
      unauthorized(res);
      return null;
    }
    // An archived project is read-only for everyone.
    if (projectAccessLevel(state, user, p) < minLevel || p.archived) {
      forbidden(res);
      return null;
    }
  }
  return p;
}

export function loadGroup(state: ForgeState, req: Request, res: Response): Group | null {
  const user = caller(res)?.user ?? null;
  const g = findGroup(state, String(req.params.id));
  if (!g || !canSeeGroup(state, user, g)) {
    notFound(res, "Group");
    return null;
  }
  return g;
}

/**
 * The record of project `p` whose id the route parameter `param` names, or null after answering
 * GitLab's named 404 (`404 Deployment Not Found`, …).
 */
export function projectRecord<T extends { id: number; project_id: number }>(
  rows: readonly T[],
  p: Project,
  req: Request,
  res: Response,
  param: string,
  resource: string,
): T | null {
  const x = rows.find((r) => r.project_id === p.id && String(r.id) === req.params[param]);
  if (!x) notFound(res, resource);
  return x ?? null;
}
