import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import {
  caller,
  canReadProject,
  groupById,
  groupChain,
  loadGroup,
  loadProject,
  projectFullPath,
} from "../model/access.js";
import { mrJson } from "../model/merge-requests.js";
import { commitJson, history, resolveRef } from "../model/repo.js";
import type { ForgeState, Group, Project } from "../model/state.js";
import { basicUser } from "../model/users.js";
import { paginate } from "../wire/paginate.js";
import { str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";
import { canSeeIssue, issueJson } from "./issues.js";
import { projectJson } from "./projects.js";

const GLOBAL_SCOPES = [
  "projects",
  "issues",
  "merge_requests",
  "milestones",
  "snippet_titles",
  "users",
  "blobs",
  "commits",
  "wiki_blobs",
];
const PROJECT_SCOPES = [
  "issues",
  "merge_requests",
  "milestones",
  "notes",
  "wiki_blobs",
  "commits",
  "blobs",
  "users",
];
const GROUP_SCOPES = [
  "projects",
  "issues",
  "merge_requests",
  "milestones",
  "users",
  "blobs",
  "commits",
  "wiki_blobs",
];

/** `*` wildcards of GitLab's search filters, as a whole-string pattern. */
const glob = (g: string) =>
  new RegExp(
    `^${g
      .split("*")
      .map((x) => x.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
    "i",
  );

/**
 * GitLab's inline blob-search filters, taken out of the search text: `filename:` (the file's name,
 * `*` wildcards), `path:` (its directory path, `*` wildcards) and `extension:`.
 */
function blobFilters(term: string): { text: string; keep: (path: string) => boolean } {
  const tests: Array<(path: string) => boolean> = [];
  const text = term
    .replace(/(?:^|\s)(filename|path|extension):(\S+)/g, (_m, key: string, value: string) => {
      if (key === "filename") tests.push((p) => glob(value).test(p.split("/").pop()!));
      else if (key === "extension") tests.push((p) => p.toLowerCase().endsWith(`.${value.toLowerCase()}`));
      else tests.push((p) => glob(value.endsWith("*") ? value : `${value}*`).test(p));
      return "";
    })
    .trim();
  return { text, keep: (p) => tests.every((t) => t(p)) };
}

/** A blob hit: the matching line with up to two lines of context before and after, as GitLab returns. */
function blobHits(p: Project, query: string, ref: string | undefined) {
  const commit = resolveRef(p.repository, ref, p.default_branch);
  if (!commit) return [];
  const hits: unknown[] = [];
  const { text: term, keep } = blobFilters(query);
  const lower = term.toLowerCase();
  for (const path of Object.keys(commit.files).sort()) {
    if (!keep(path)) continue;
    const content = commit.files[path]!;
    const inName = path.toLowerCase().includes(lower);
    const lines = content.split("\n");
    const at = lines.findIndex((l) => l.toLowerCase().includes(lower));
    if (at < 0 && !inName) continue;
    const start = Math.max(0, at < 0 ? 0 : at - 2);
    hits.push({
      basename: path.replace(/\.[^/.]+$/, ""),
      data: `${lines.slice(start, start + 5).join("\n")}\n`,
      path,
      filename: path,
      id: null,
      ref: ref ?? p.default_branch,
      startline: start + 1,
      project_id: p.id,
    });
  }
  return hits;
}

function search(
  ctx: SimContext<ForgeState>,
  req: Request,
  res: Response,
  projects: Project[],
  allowed: string[],
  withProjects: boolean,
): void {
  const q = req.query as Record<string, unknown>;
  const scope = str(q.scope);
  const term = str(q.search);
  const absent = [...(scope ? [] : ["scope"]), ...(term === undefined ? ["search"] : [])];
  if (absent.length)
    return void res.status(400).json({ error: absent.map((a) => `${a} is missing`).join(", ") });
  if (!allowed.includes(scope!))
    return void res.status(400).json({ error: "scope does not have a valid value" });
  const state = ctx.state;
  const user = caller(res)?.user ?? null;
  const visible = projects.filter((p) => canReadProject(state, user, p));
  const ids = new Set(visible.map((p) => p.id));
  const t = term!.toLowerCase();
  const matches = (...fields: string[]) => fields.some((f) => f.toLowerCase().includes(t));
  const byProject = new Map(visible.map((p) => [p.id, p]));
  let rows: unknown[] = [];
  switch (scope) {
    case "projects":
      rows = withProjects
        ? visible
            .filter((p) => matches(p.name, p.path, p.description))
            .map((p) => projectJson(state, p, ctx.origin, user))
        : [];
      break;
    case "issues":
      rows = state.issues
        .filter(
          (i) => ids.has(i.project_id) && canSeeIssue(state, i, user) && matches(i.title, i.description),
        )
        .sort((a, b) => b.id - a.id)
        .map((i) => issueJson(state, i, ctx.origin));
      break;
    case "merge_requests":
      rows = state.mergeRequests
        .filter((m) => ids.has(m.project_id) && matches(m.title, m.description))
        .sort((a, b) => b.id - a.id)
        .map((m) => mrJson(state, byProject.get(m.project_id)!, m, ctx.origin));
      break;
    case "blobs":
      rows = visible.flatMap((p) => blobHits(p, term!, str(q.ref)));
      break;
    case "commits":
      rows = visible.flatMap((p) => {
        const head = resolveRef(p.repository, str(q.ref), p.default_branch);
        const full = projectFullPath(state, p);
        return head
          ? history(p.repository, head)
              .filter((c) => matches(c.message))
              .map((c) => ({ ...commitJson(c, ctx.origin, full), project_id: p.id }))
          : [];
      });
      break;
    case "users":
      rows = state.users.filter((u) => matches(u.username, u.name)).map((u) => basicUser(u, ctx.origin));
      break;
    case "notes":
      rows = [...state.issues.filter((i) => canSeeIssue(state, i, user)), ...state.mergeRequests]
        .filter((n) => ids.has(n.project_id))
        .flatMap((n) => n.discussions.flatMap((d) => d.notes.filter((x) => !x.system && matches(x.body))))
        .map((n) => ({ id: n.id, body: n.body, created_at: n.created_at, updated_at: n.updated_at }));
      break;
    default:
      rows = [];
  }
  res.json(paginate(req, res, ctx.origin, rows));
}

function inGroup(state: ForgeState, p: Project, g: Group): boolean {
  if (p.namespace.kind !== "group") return false;
  const ns = groupById(state, p.namespace.id);
  return ns !== undefined && groupChain(state, ns).includes(g);
}

export function searchRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  r.get("/search", (req, res) => {
    search(ctx, req, res, ctx.state.projects, GLOBAL_SCOPES, true);
  });
  r.get("/projects/:id/search", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (p) search(ctx, req, res, [p], PROJECT_SCOPES, false);
  });
  r.get("/groups/:id/search", (req, res) => {
    const g = loadGroup(ctx.state, req, res);
    if (g)
      search(
        ctx,
        req,
        res,
        ctx.state.projects.filter((p) => inGroup(ctx.state, p, g)),
        GROUP_SCOPES,
        true,
      );
  });
}
