import type { Express, Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import {
  caller,
  findGroup,
  groupAccessLevel,
  groupById,
  groupChain,
  groupFullPath,
  loadGroup,
  loadProject,
} from "../model/access.js";
import type { HookEventRow, HookRow } from "../model/state.js";
import { ACCESS, type ForgeState, type Group, nextId } from "../model/state.js";
import { editWikiPage, newWikiPage, wikiJson } from "../model/wikis.js";
import { API, forbidden, missing, notFound, unauthorized } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, params, str } from "../wire/params.js";
import { groupJson } from "./groups.js";

/**
 * Group wikis (`/groups/:id/wikis`), group iterations, creating groups (`POST /groups`), project
 * and group webhooks with their recorded deliveries (`/hooks/:hook_id/events`) and the group
 * dependency proxy's cache purge, answered as GitLab's REST API answers them.
 */

/** The caller's access to a group, refusing (401/403) below `min`: the group itself was loaded. */
function groupLevel(ctx: SimContext<ForgeState>, res: Response, g: Group, min: number): boolean {
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

/** The hook event names GitLab's hook objects carry, with their defaults (push on, the rest off). */
const HOOK_EVENTS = [
  "push_events",
  "tag_push_events",
  "issues_events",
  "confidential_issues_events",
  "merge_requests_events",
  "note_events",
  "confidential_note_events",
  "job_events",
  "pipeline_events",
  "wiki_page_events",
  "deployment_events",
  "releases_events",
  "emoji_events",
];

export function hookJson(h: HookRow) {
  return {
    id: h.id,
    url: h.url,
    name: h.name,
    description: h.description,
    ...(h.project_id !== null ? { project_id: h.project_id } : { group_id: h.group_id }),
    ...Object.fromEntries(HOOK_EVENTS.map((e) => [e, h.events[e] ?? e === "push_events"])),
    push_events_branch_filter: null,
    enable_ssl_verification: h.enable_ssl_verification,
    alert_status: "executable",
    disabled_until: null,
    url_variables: [],
    created_at: h.created_at,
  };
}

/** `status`: a code (200) or a category (successful, client_failure, server_failure). */
function statusMatches(e: HookEventRow, status: unknown): boolean {
  if (status === undefined || status === "") return true;
  const s = String(status);
  if (/^\d+$/.test(s)) return e.response_status === Number(s);
  if (s === "successful") return e.response_status >= 200 && e.response_status < 300;
  if (s === "client_failure") return e.response_status >= 400 && e.response_status < 500;
  if (s === "server_failure") return e.response_status >= 500;
  return false;
}

export function groupMoreRoutes(app: Express, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;
  const m = () => ctx.state;

  // group wikis (Premium): the project wiki's shapes under /groups/:id/wikis
  const GW = `${API}/groups/:id/wikis`;
  const findPage = (g: Group, slug: string) =>
    m().groupWiki.find((w) => w.group_id === g.id && w.slug === slug);

  app.get(GW, (req, res) => {
    const g = loadGroup(s(), req, res);
    if (!g) return;
    const content = boolParam((req.query as Record<string, unknown>).with_content) === true;
    const rows = m().groupWiki.filter((w) => w.group_id === g.id);
    res.json(rows.map((w) => wikiJson(w, content)));
  });
  app.get(`${GW}/:slug`, (req, res) => {
    const g = loadGroup(s(), req, res);
    if (!g) return;
    const w = findPage(g, String(req.params.slug));
    if (!w) return notFound(res, "Wiki Page");
    res.json(wikiJson(w, true));
  });
  app.post(GW, (req, res) => {
    const g = loadGroup(s(), req, res);
    if (!g || !groupLevel(ctx, res, g, ACCESS.developer)) return;
    const made = newWikiPage(params(req), (slug) => findPage(g, slug) !== undefined);
    if ("missing" in made) return missing(res, ...made.missing);
    if ("error" in made) return void res.status(400).json({ message: made.error });
    const w = { group_id: g.id, ...made.page };
    m().groupWiki.push(w);
    res.status(201).json(wikiJson(w, true));
  });
  app.put(`${GW}/:slug`, (req, res) => {
    const g = loadGroup(s(), req, res);
    if (!g || !groupLevel(ctx, res, g, ACCESS.developer)) return;
    const w = findPage(g, String(req.params.slug));
    if (!w) return notFound(res, "Wiki Page");
    const error = editWikiPage(w, params(req));
    if (error) return void res.status(400).json({ error });
    res.json(wikiJson(w, true));
  });
  app.delete(`${GW}/:slug`, (req, res) => {
    const g = loadGroup(s(), req, res);
    if (!g || !groupLevel(ctx, res, g, ACCESS.developer)) return;
    const w = findPage(g, String(req.params.slug));
    if (!w) return notFound(res, "Wiki Page");
    m().groupWiki = m().groupWiki.filter((x) => x !== w);
    res.status(204).end();
  });

  // iterations (Premium): state 1 upcoming, 2 current, 3 closed, from the dates and today
  app.get(`${API}/groups/:id/iterations`, (req, res) => {
    const g = loadGroup(s(), req, res);
    if (!g) return;
    const q = req.query as Record<string, unknown>;
    const today = ctx.state.clock.iso().slice(0, 10);
    const stateOf = (i: { start_date: string; due_date: string }) =>
      i.start_date > today ? 1 : i.due_date < today ? 3 : 2;
    const ancestors = boolParam(q.include_ancestors) !== false;
    const descendants = boolParam(q.include_descendants) === true;
    const inScope = (gid: number) => {
      if (gid === g.id) return true;
      const other = groupById(s(), gid);
      if (!other) return false;
      if (ancestors && groupChain(s(), g).includes(other)) return true;
      return descendants && groupChain(s(), other).includes(g);
    };
    const wanted = str(q.state) ?? "all";
    const codes: Record<string, number[]> = {
      opened: [1, 2],
      upcoming: [1],
      current: [2],
      closed: [3],
      all: [1, 2, 3],
    };
    const allowed = codes[wanted];
    if (!allowed) return void res.status(400).json({ error: "state does not have a valid value" });
    const term = str(q.search)?.toLowerCase();
    const rows = m()
      .iterations.filter((i) => inScope(i.group_id) && allowed.includes(stateOf(i)))
      .filter((i) => !term || (i.title ?? "").toLowerCase().includes(term))
      .sort((a, b) => (a.due_date < b.due_date ? -1 : 1));
    res.json(
      paginate(req, res, ctx.origin, rows).map((i) => {
        const owner = groupById(s(), i.group_id)!;
        return {
          id: i.id,
          iid: i.iid,
          sequence: i.iid,
          group_id: i.group_id,
          title: i.title,
          description: i.description,
          state: stateOf(i),
          created_at: i.created_at,
          updated_at: i.updated_at,
          start_date: i.start_date,
          due_date: i.due_date,
          web_url: `${ctx.origin}/groups/${groupFullPath(s(), owner)}/-/iterations/${i.id}`,
        };
      }),
    );
  });

  // creating a group: top level for any signed-in user, a subgroup for the parent's maintainers
  app.post(`${API}/groups`, (req, res) => {
    const user = caller(res)?.user;
    if (!user) return unauthorized(res);
    const b = params(req);
    const name = str(b.name);
    const path = str(b.path);
    if (!name || !path) return missing(res, ...(!name ? ["name"] : []), ...(!path ? ["path"] : []));
    const parentId = b.parent_id === undefined || b.parent_id === null ? null : Number(b.parent_id);
    const parent = parentId === null ? undefined : groupById(s(), parentId);
    if (parentId !== null && !parent) return notFound(res, "Parent group");
    if (parent && groupAccessLevel(s(), user, parent) < ACCESS.maintainer) return forbidden(res);
    if (!/^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/.test(path) || /\.(git|atom)$/.test(path))
      return void res.status(400).json({ message: { path: ["is invalid"] } });
    const full = parent ? `${groupFullPath(s(), parent)}/${path}` : path;
    const taken =
      findGroup(s(), full) !== undefined ||
      (!parent && s().users.some((u) => u.username.toLowerCase() === path.toLowerCase()));
    if (taken)
      return void res
        .status(400)
        .json({ message: 'Failed to save group {:path=>["has already been taken"]}' });
    const visibility = str(b.visibility) ?? "private";
    if (!["private", "internal", "public"].includes(visibility))
      return void res.status(400).json({ error: "visibility does not have a valid value" });
    const g: Group = {
      id: nextId(s(), "group"),
      name,
      path,
      parent_id: parent?.id ?? null,
      description: str(b.description) ?? "",
      visibility: visibility as Group["visibility"],
      members: [{ user_id: user.id, access_level: ACCESS.owner }],
      created_at: ctx.state.clock.iso(),
    };
    s().groups.push(g);
    res.status(201).json(groupJson(s(), g, ctx.origin));
  });

  // webhooks: project hooks need maintainer, group hooks owner; deliveries are read newest first
  const hookRoutes = (kind: "projects" | "groups") => {
    const base = `${API}/${kind}/:id/hooks`;
    const owner = (
      req: Request,
      res: Response,
    ): { project_id: number | null; group_id: number | null } | null => {
      if (kind === "projects") {
        const p = loadProject(s(), req, res, ACCESS.maintainer);
        return p ? { project_id: p.id, group_id: null } : null;
      }
      const g = loadGroup(s(), req, res);
      if (!g || !groupLevel(ctx, res, g, ACCESS.owner)) return null;
      return { project_id: null, group_id: g.id };
    };
    const hooksOf = (o: { project_id: number | null; group_id: number | null }) =>
      m().hooks.filter((h) => h.project_id === o.project_id && h.group_id === o.group_id);
    const findHook = (req: Request, res: Response) => {
      const o = owner(req, res);
      if (!o) return null;
      const h = hooksOf(o).find((x) => x.id === Number(req.params.hook_id));
      if (!h) {
        notFound(res);
        return null;
      }
      return h;
    };
    app.get(base, (req, res) => {
      const o = owner(req, res);
      if (!o) return;
      res.json(paginate(req, res, ctx.origin, hooksOf(o)).map(hookJson));
    });
    app.get(`${base}/:hook_id`, (req, res) => {
      const h = findHook(req, res);
      if (h) res.json(hookJson(h));
    });
    app.get(`${base}/:hook_id/events`, (req, res) => {
      const h = findHook(req, res);
      if (!h) return;
      const q = req.query as Record<string, unknown>;
      const perPage = Number(q.per_page ?? 20);
      if (!Number.isInteger(perPage) || perPage < 1 || perPage > 20)
        return void res.status(400).json({ error: "per_page does not have a valid value" });
      const rows = m()
        .hookEvents.filter((e) => e.hook_id === h.id && statusMatches(e, q.status))
        .sort((a, b) => b.id - a.id);
      res.json(paginate(req, res, ctx.origin, rows).map(({ hook_id: _h, created_at: _c, ...e }) => e));
    });
  };
  hookRoutes("projects");
  hookRoutes("groups");

  // the dependency proxy's cache: purged in the background (202), by the group's owners
  app.delete(`${API}/groups/:id/dependency_proxy/cache`, (req, res) => {
    const g = loadGroup(s(), req, res);
    if (!g || !groupLevel(ctx, res, g, ACCESS.owner)) return;
    const row = m().dependencyProxy.find((d) => d.group_id === g.id);
    if (row) row.blobs = [];
    res.status(202).end();
  });
}
