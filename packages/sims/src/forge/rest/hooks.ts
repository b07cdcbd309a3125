import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { loadGroup, loadProject } from "../model/access.js";
import type { HookEventRow, HookRow } from "../model/state.js";
import { ACCESS, type ForgeState, nextId } from "../model/state.js";
import { missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, params, str } from "../wire/params.js";
import { type Routes, twins } from "../wire/router.js";
import { groupLevel } from "./groups.js";

/**
 * Webhooks (GitLab's hooks: project_hooks.rb and group_hooks.rb): a project's for its maintainers,
 * a group's for its owners, with their recorded deliveries (`/hooks/:hook_id/events`). A hook's
 * secret `token` is kept and never answered, as GitLab does.
 */

const STRATEGIES = ["wildcard", "regex", "all_branches"];

/** The writable fields of a hook from a request, or an error message. */
function hookFields(p: Record<string, unknown>, creating: boolean): Partial<HookRow> | string {
  const out: Partial<HookRow> = {};
  const url = str(p.url);
  if (url !== undefined) {
    if (!/^https?:\/\/[^\s]+$/i.test(url)) return "url is blocked: Only allowed schemes are http, https";
    out.url = url;
  } else if (creating) return "url is missing";
  for (const k of ["name", "description", "token", "push_events_branch_filter"] as const) {
    const v = str(p[k]);
    if (v !== undefined) out[k] = v;
  }
  const strategy = str(p.branch_filter_strategy);
  if (strategy !== undefined) {
    if (!STRATEGIES.includes(strategy)) return "branch_filter_strategy does not have a valid value";
    out.branch_filter_strategy = strategy;
  }
  const ssl = boolParam(p.enable_ssl_verification);
  if (ssl !== undefined) out.enable_ssl_verification = ssl;
  const events: Record<string, boolean> = {};
  for (const e of HOOK_EVENTS) {
    const v = boolParam(p[e]);
    if (v !== undefined) events[e] = v;
  }
  out.events = events;
  return out;
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
    push_events_branch_filter: h.push_events_branch_filter ?? null,
    branch_filter_strategy: h.branch_filter_strategy ?? "wildcard",
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

export function hookRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;

  // webhooks: project hooks need maintainer, group hooks owner; deliveries are read newest first
  type HookOwner = { project_id: number | null; group_id: number | null };
  const hooks = twins<HookOwner>(r, [
    (req, res) => {
      const p = loadProject(s(), req, res, ACCESS.maintainer);
      return p ? { project_id: p.id, group_id: null } : null;
    },
    (req, res) => {
      const g = loadGroup(s(), req, res);
      if (!g || !groupLevel(ctx, res, g, ACCESS.owner)) return null;
      return { project_id: null, group_id: g.id };
    },
  ]);
  const hooksOf = (o: HookOwner) =>
    ctx.state.hooks.filter((h) => h.project_id === o.project_id && h.group_id === o.group_id);
  const findHook = (o: HookOwner, req: Request, res: Response) => {
    const h = hooksOf(o).find((x) => x.id === Number(req.params.hook_id));
    if (!h) notFound(res);
    return h;
  };
  hooks.get(["/projects/:id/hooks", "/groups/:id/hooks"], (o, req, res) => {
    res.json(paginate(req, res, ctx.origin, hooksOf(o)).map(hookJson));
  });
  hooks.get(["/projects/:id/hooks/:hook_id", "/groups/:id/hooks/:hook_id"], (o, req, res) => {
    const h = findHook(o, req, res);
    if (h) res.json(hookJson(h));
  });
  hooks.get(["/projects/:id/hooks/:hook_id/events", "/groups/:id/hooks/:hook_id/events"], (o, req, res) => {
    const h = findHook(o, req, res);
    if (!h) return;
    const q = req.query as Record<string, unknown>;
    const perPage = Number(q.per_page ?? 20);
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > 20)
      return void res.status(400).json({ error: "per_page does not have a valid value" });
    const rows = ctx.state.hookEvents
      .filter((e) => e.hook_id === h.id && statusMatches(e, q.status))
      .sort((a, b) => b.id - a.id);
    res.json(paginate(req, res, ctx.origin, rows).map(({ hook_id: _h, created_at: _c, ...e }) => e));
  });

  const PATHS = ["/projects/:id/hooks", "/groups/:id/hooks"];
  const ONE = ["/projects/:id/hooks/:hook_id", "/groups/:id/hooks/:hook_id"];
  const refuse = (res: Response, message: string) =>
    message.endsWith("is missing")
      ? missing(res, message.split(" ")[0]!)
      : void res.status(400).json({ error: message });
  hooks.post(PATHS, (o, req, res) => {
    const f = hookFields(params(req), true);
    if (typeof f === "string") return refuse(res, f);
    const h: HookRow = {
      id: nextId(ctx.state, "record2"),
      ...o,
      url: f.url!,
      name: f.name ?? "",
      description: f.description ?? "",
      created_at: ctx.state.clock.iso(),
      events: f.events ?? {},
      enable_ssl_verification: f.enable_ssl_verification ?? true,
      ...(f.token !== undefined ? { token: f.token } : {}),
      ...(f.push_events_branch_filter !== undefined
        ? { push_events_branch_filter: f.push_events_branch_filter }
        : {}),
      ...(f.branch_filter_strategy !== undefined ? { branch_filter_strategy: f.branch_filter_strategy } : {}),
    };
    ctx.state.hooks.push(h);
    res.status(201).json(hookJson(h));
  });
  hooks.put(ONE, (o, req, res) => {
    const h = findHook(o, req, res);
    if (!h) return;
    const f = hookFields(params(req), false);
    if (typeof f === "string") return refuse(res, f);
    const { events, ...rest } = f;
    Object.assign(h, rest, { events: { ...h.events, ...events } });
    res.json(hookJson(h));
  });
  hooks.delete(ONE, (o, req, res) => {
    const h = findHook(o, req, res);
    if (!h) return;
    ctx.state.hooks = ctx.state.hooks.filter((x) => x !== h);
    ctx.state.hookEvents = ctx.state.hookEvents.filter((e) => e.hook_id !== h.id);
    res.status(204).end();
  });
}
