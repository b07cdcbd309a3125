import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import {
  caller,
  canReadProject,
  findProject,
  groupAccessLevel,
  groupById,
  groupFullPath,
  loadProject,
  namespaceOf,
  projectAccessLevel,
  projectFullName,
  projectFullPath,
  requireUser,
} from "../model/access.js";
import { addCommit, emptyRepository, resolveRef } from "../model/repo.js";
import type { ForgeState, ForgeUser, Member, Project, Visibility } from "../model/state.js";
import { ACCESS, nextId, userById } from "../model/state.js";
import { basicUser } from "../model/users.js";
import { forbidden, notFound } from "../wire/answers.js";
import { keysetPaginate, keysetUnavailable, paginate, wantsKeyset } from "../wire/paginate.js";
import { boolParam, params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";
import { findNamespace, type Namespace } from "./namespaces.js";

function projectWebUrl(state: ForgeState, p: Project, origin: string): string {
  return `${origin}/${projectFullPath(state, p)}`;
}

function simpleProject(state: ForgeState, p: Project, origin: string) {
  const full = projectFullPath(state, p);
  const host = new URL(origin).host;
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: projectFullName(state, p),
    path: p.path,
    path_with_namespace: full,
    created_at: p.created_at,
    default_branch: p.repository.branches.size ? p.default_branch : null,
    tag_list: [],
    topics: [],
    ssh_url_to_repo: `git@${host.split(":")[0]}:${full}.git`,
    http_url_to_repo: `${origin}/${full}.git`,
    web_url: `${origin}/${full}`,
    readme_url: p.repository.branches.size ? `${origin}/${full}/-/blob/${p.default_branch}/README.md` : null,
    forks_count: 0,
    avatar_url: null,
    star_count: 0,
    last_activity_at: p.last_activity_at,
    visibility: p.visibility,
    namespace: namespaceOf(state, p, origin),
  };
}

export function projectJson(state: ForgeState, p: Project, origin: string, user: ForgeUser | null) {
  const web = projectWebUrl(state, p, origin);
  const api = `${origin}/api/v4/projects/${p.id}`;
  const direct = user ? (p.members.find((m) => m.user_id === user.id)?.access_level ?? null) : null;
  const group = p.namespace.kind === "group" ? groupById(state, p.namespace.id) : undefined;
  const groupLevel = user && group ? groupAccessLevel(state, user, group) : 0;
  return {
    ...simpleProject(state, p, origin),
    _links: {
      self: api,
      issues: `${api}/issues`,
      merge_requests: `${api}/merge_requests`,
      repo_branches: `${api}/repository/branches`,
      labels: `${api}/labels`,
      events: `${api}/events`,
      members: `${api}/members`,
      cluster_agents: `${api}/cluster_agents`,
    },
    empty_repo: p.repository.branches.size === 0,
    archived: p.archived,
    owner: p.namespace.kind === "user" ? basicUser(userById(state, p.namespace.id)!, origin) : undefined,
    resolve_outdated_diff_discussions: false,
    issues_enabled: true,
    merge_requests_enabled: true,
    wiki_enabled: true,
    jobs_enabled: true,
    snippets_enabled: true,
    container_registry_enabled: false,
    issues_access_level: "enabled",
    repository_access_level: "enabled",
    merge_requests_access_level: "enabled",
    builds_access_level: "enabled",
    creator_id: p.creator_id,
    open_issues_count: state.issues.filter((i) => i.project_id === p.id && i.state === "opened").length,
    ci_default_git_depth: 20,
    ci_config_path: null,
    shared_runners_enabled: true,
    public_jobs: true,
    only_allow_merge_if_pipeline_succeeds: false,
    only_allow_merge_if_all_discussions_are_resolved: false,
    remove_source_branch_after_merge: true,
    request_access_enabled: true,
    merge_method: "merge",
    squash_option: "default_off",
    web_url: web,
    permissions: {
      project_access: direct === null ? null : { access_level: direct, notification_level: 3 },
      group_access: groupLevel ? { access_level: groupLevel, notification_level: 3 } : null,
    },
  };
}

const ORDERABLE = new Set(["id", "name", "path", "created_at", "updated_at", "last_activity_at"]);

function sortProjects(list: Project[], req: Request): Project[] {
  const q = req.query as Record<string, unknown>;
  const by = typeof q.order_by === "string" && ORDERABLE.has(q.order_by) ? q.order_by : "created_at";
  const dir = q.sort === "asc" ? 1 : -1;
  const key = (p: Project): string | number =>
    by === "id"
      ? p.id
      : by === "name"
        ? p.name.toLowerCase()
        : by === "path"
          ? p.path
          : by === "last_activity_at" || by === "updated_at"
            ? p.last_activity_at
            : p.created_at;
  return [...list].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    return (x < y ? -1 : x > y ? 1 : a.id - b.id) * dir;
  });
}

/** The filters GitLab's project lists share (`/projects`, `/groups/:id/projects`, `/users/:id/projects`). */
export function filterProjects(state: ForgeState, list: Project[], req: Request, res: Response): Project[] {
  const q = req.query as Record<string, unknown>;
  const user = caller(res)?.user ?? null;
  let out = list.filter((p) => canReadProject(state, user, p));
  if (boolParam(q.archived) === true) out = out.filter((p) => p.archived);
  if (boolParam(q.archived) === false) out = out.filter((p) => !p.archived);
  if (typeof q.visibility === "string") out = out.filter((p) => p.visibility === q.visibility);
  if (typeof q.search === "string" && q.search) {
    const term = q.search.toLowerCase();
    const inNamespace = boolParam(q.search_namespaces) === true;
    out = out.filter(
      (p) =>
        p.name.toLowerCase().includes(term) ||
        p.path.toLowerCase().includes(term) ||
        p.description.toLowerCase().includes(term) ||
        (inNamespace && projectFullPath(state, p).toLowerCase().includes(term)),
    );
  }
  if (user && (boolParam(q.membership) === true || q.min_access_level !== undefined)) {
    // Membership means real membership: an admin sees everything but is not a member of everything.
    const min = Number(q.min_access_level ?? 10) || 10;
    out = out.filter((p) => memberLevel(state, user, p) >= min);
  }
  // GitLab's owned projects: those in the user's namespace and those in groups the user owns.
  if (user && boolParam(q.owned) === true) out = out.filter((p) => ownsProject(state, user, p));
  if (boolParam(q.starred) === true) out = [];
  return sortProjects(out, req);
}

function ownsProject(state: ForgeState, user: ForgeUser, p: Project): boolean {
  if (p.namespace.kind === "user") return p.namespace.id === user.id;
  const g = groupById(state, p.namespace.id);
  return g !== undefined && groupAccessLevel(state, { ...user, admin: false }, g) >= ACCESS.owner;
}

function memberLevel(state: ForgeState, user: ForgeUser, p: Project): number {
  return projectAccessLevel(state, { ...user, admin: false }, p);
}

export function renderProjects(ctx: SimContext<ForgeState>, req: Request, res: Response, list: Project[]) {
  let page: Project[];
  if (wantsKeyset(req)) {
    // GitLab's keyset pagination of projects orders by id only, and moves with id_after/id_before.
    const q = req.query as Record<string, unknown>;
    if (q.order_by !== "id") return keysetUnavailable(res);
    const desc = q.sort === "desc";
    const param = desc ? "id_before" : "id_after";
    page = keysetPaginate(req, res, ctx.origin, list, param, (p) => String(p.id));
  } else {
    page = paginate(req, res, ctx.origin, list);
  }
  const user = caller(res)?.user ?? null;
  const simple = boolParam((req.query as Record<string, unknown>).simple) === true;
  res.json(
    page.map((p) =>
      simple ? simpleProject(ctx.state, p, ctx.origin) : projectJson(ctx.state, p, ctx.origin, user),
    ),
  );
}

export function memberJson(state: ForgeState, m: Member, origin: string) {
  const u = userById(state, m.user_id);
  return u
    ? { ...basicUser(u, origin), access_level: m.access_level, created_at: u.created_at, expires_at: null }
    : null;
}

/**
 * Linguist's language of a file, for the languages GitLab counts (programming and markup; prose
 * such as Markdown and data such as JSON or YAML are left out of the shares, as Linguist does).
 */
const LANGUAGE_BY_EXT: Record<string, string> = {
  ts: "TypeScript",
  tsx: "TypeScript",
  mts: "TypeScript",
  js: "JavaScript",
  mjs: "JavaScript",
  cjs: "JavaScript",
  jsx: "JavaScript",
  py: "Python",
  go: "Go",
  rb: "Ruby",
  rs: "Rust",
  java: "Java",
  kt: "Kotlin",
  c: "C",
  h: "C",
  cpp: "C++",
  cs: "C#",
  sh: "Shell",
  bash: "Shell",
  tf: "HCL",
  hcl: "HCL",
  html: "HTML",
  css: "CSS",
  vue: "Vue",
};

const LANGUAGE_BY_NAME: Record<string, string> = {
  ".bashrc": "Shell",
  ".zshrc": "Shell",
  ".profile": "Shell",
  Dockerfile: "Dockerfile",
  Makefile: "Makefile",
};

export function languageOf(path: string): string | undefined {
  const name = path.split("/").pop() ?? path;
  if (LANGUAGE_BY_NAME[name]) return LANGUAGE_BY_NAME[name];
  const dot = name.lastIndexOf(".");
  return dot > 0 ? LANGUAGE_BY_EXT[name.slice(dot + 1).toLowerCase()] : undefined;
}

export function projectRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  r.get("/projects", (req, res) => {
    renderProjects(ctx, req, res, filterProjects(ctx.state, ctx.state.projects, req, res));
  });

  r.get("/projects/:id", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    res.json(projectJson(ctx.state, p, ctx.origin, caller(res)?.user ?? null));
  });

  r.get("/users/:user_id/projects", (req, res) => {
    const ref = String(req.params.user_id);
    const u = /^\d+$/.test(ref)
      ? userById(ctx.state, Number(ref))
      : ctx.state.users.find((x) => x.username === ref);
    if (!u) return void res.status(404).json({ message: "404 User Not Found" });
    const owned = ctx.state.projects.filter((p) => p.namespace.kind === "user" && p.namespace.id === u.id);
    renderProjects(ctx, req, res, filterProjects(ctx.state, owned, req, res));
  });

  // Project settings: name, path, description, visibility and the default branch (which must exist).
  r.put("/projects/:id", (req, res) => {
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
    // a new path moves the project's full path within its namespace (its id stays)
    const path = str(b.path);
    if (path !== undefined && path !== p.path) {
      if (!/^[\w.-]+$/.test(path)) return void res.status(400).json({ message: { path: ["is invalid"] } });
      const full = projectFullPath(ctx.state, p);
      const taken = findProject(ctx.state, `${full.slice(0, full.length - p.path.length)}${path}`);
      if (taken && taken !== p)
        return void res.status(400).json({ message: { path: ["has already been taken"] } });
    }
    const name = str(b.name);
    if (name !== undefined) {
      if (!name.trim()) return void res.status(400).json({ message: { name: ["can't be blank"] } });
      p.name = name;
    }
    const description = str(b.description);
    if (description !== undefined) p.description = description;
    if (visibility !== undefined) p.visibility = visibility as Project["visibility"];
    if (branch !== undefined) p.default_branch = branch;
    if (path !== undefined) p.path = path;
    p.last_activity_at = ctx.state.clock.iso();
    res.json(projectJson(ctx.state, p, ctx.origin, caller(res)?.user ?? null));
  });

  r.post("/projects/:id/fork", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const src = loadProject(ctx.state, req, res);
    if (!src) return;
    const b = params(req);
    const ref = str(b.namespace_id) ?? str(b.namespace_path) ?? str(b.namespace);
    const ns = ref ? findNamespace(ctx.state, ref) : { kind: "user" as const, user: me };
    if (!ns) return notFound(res, "Target Namespace");
    const nsPath = ns.kind === "user" ? ns.user.username : groupFullPath(ctx.state, ns.group);
    const path = str(b.path) ?? src.path;
    if (findProject(ctx.state, `${nsPath}/${path}`))
      return void res.status(409).json({
        message: [
          "Project namespace name has already been taken",
          "Name has already been taken",
          "Path has already been taken",
        ],
      });
    const now = ctx.state.clock.iso();
    const fork: Project = {
      ...structuredClone({ ...src, repository: undefined }),
      id: nextId(ctx.state, "project"),
      name: str(b.name) ?? src.name,
      path,
      namespace: ns.kind === "user" ? { kind: "user", id: ns.user.id } : { kind: "group", id: ns.group.id },
      members: [],
      creator_id: me.id,
      created_at: now,
      last_activity_at: now,
      archived: false,
      repository: structuredClone(src.repository),
    };
    ctx.state.projects.push(fork);
    ctx.state.forks[fork.id] = src.id;
    res.status(201).json({
      ...projectJson(ctx.state, fork, ctx.origin, me),
      forked_from_project: {
        id: src.id,
        name: src.name,
        path_with_namespace: projectFullPath(ctx.state, src),
      },
    });
  });

  r.get("/projects/:id/languages", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const head = resolveRef(p.repository, p.default_branch);
    const bytes = new Map<string, number>();
    for (const [path, content] of Object.entries(head?.files ?? {})) {
      const lang = languageOf(path);
      if (lang) bytes.set(lang, (bytes.get(lang) ?? 0) + Buffer.byteLength(content));
    }
    const total = [...bytes.values()].reduce((a, b) => a + b, 0);
    const shares = [...bytes]
      .map(([lang, n]) => [lang, Math.round((n / total) * 10_000) / 100] as const)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    res.json(Object.fromEntries(shares));
  });

  r.post("/projects", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const p = params(req);
    const name = str(p.name);
    const path = str(p.path) ?? name?.toLowerCase().replace(/[^a-z0-9_.-]+/g, "-");
    if (!name && !str(p.path)) {
      return void res
        .status(400)
        .json({ error: "name, path are missing, at least one parameter must be provided" });
    }
    const state = ctx.state;
    const nsRef = str(p.namespace_id) ?? str(p.namespace_path);
    const ns: Namespace | undefined = nsRef ? findNamespace(state, nsRef) : { kind: "user", user: me };
    if (!ns) return notFound(res, "Namespace");
    if (
      ns.kind === "user"
        ? ns.user.id !== me.id && !me.admin
        : groupAccessLevel(state, me, ns.group) < ACCESS.developer
    ) {
      return forbidden(res);
    }
    const visibility = (str(p.visibility) ?? "private") as Visibility;
    if (!["public", "internal", "private"].includes(visibility)) {
      return void res.status(400).json({ error: "visibility does not have a valid value" });
    }
    const nsPath = ns.kind === "user" ? ns.user.username : groupFullPath(state, ns.group);
    if (!path || !/^[\w.-]+$/.test(path))
      return void res.status(400).json({ message: { path: ["is invalid"] } });
    if (findProject(state, `${nsPath}/${path}`)) {
      return void res
        .status(400)
        .json({ message: { path: ["has already been taken"], name: ["has already been taken"] } });
    }
    const now = state.clock.iso();
    const project: Project = {
      id: nextId(state, "project"),
      name: name ?? path,
      path,
      description: str(p.description) ?? "",
      namespace: ns.kind === "user" ? { kind: "user", id: ns.user.id } : { kind: "group", id: ns.group.id },
      visibility,
      default_branch: str(p.default_branch) ?? "main",
      archived: false,
      members: [],
      creator_id: me.id,
      created_at: now,
      last_activity_at: now,
      repository: emptyRepository(),
    };
    if (boolParam(p.initialize_with_readme)) {
      const readme = addCommit(project.repository, {
        parents: [],
        message: "Initial commit",
        author_name: me.name,
        author_email: me.email,
        files: { "README.md": `# ${project.name}\n\n${project.description}\n` },
        created_at: now,
      });
      project.repository.branches.set(project.default_branch, readme.id);
      project.repository.protected.add(project.default_branch);
    }
    state.projects.push(project);
    res.status(201).json(projectJson(state, project, ctx.origin, me));
  });
}
