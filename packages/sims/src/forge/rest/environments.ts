import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { loadProject, projectRecord } from "../model/access.js";
import { jobJson } from "../model/ci.js";
import type { DeploymentRow, EnvironmentRow } from "../model/state.js";
import { ACCESS, type ForgeState, type Project } from "../model/state.js";
import { userRef } from "../model/users.js";
import { forbidden, missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

/** A project's environments (`/projects/:id/environments`), each with its last deployment. */
/** Environments and deployments as GitLab shows them, each embedding the other. */
export function deploymentViews(ctx: SimContext<ForgeState>) {
  const s = () => ctx.state;
  const envs = () => (s().environments ??= []);
  const deps = () => (s().deployments ??= []);
  const envJson = (p: Project, e: EnvironmentRow, detail: boolean): Record<string, unknown> => {
    const last = deps()
      .filter((d) => d.environment_id === e.id)
      .sort((a, b) => b.id - a.id)[0];
    return {
      id: e.id,
      name: e.name,
      slug: e.slug,
      external_url: e.external_url,
      created_at: e.created_at,
      updated_at: e.updated_at,
      tier: e.tier,
      state: e.state,
      auto_stop_at: null,
      ...(e.auto_delete_at ? { auto_delete_at: e.auto_delete_at } : {}),
      ...(detail ? { last_deployment: last ? depJson(p, last, false) : null } : {}),
    };
  };
  const depJson = (p: Project, d: DeploymentRow, withEnv = true): Record<string, unknown> => {
    const e = envs().find((x) => x.id === d.environment_id)!;
    const job = d.job_id === null ? undefined : s().jobs.find((j) => j.id === d.job_id);
    return {
      id: d.id,
      iid: d.iid,
      ref: d.ref,
      sha: d.sha,
      status: d.status,
      created_at: d.created_at,
      updated_at: d.updated_at,
      finished_at: d.finished_at,
      user: userRef(s(), d.user_id, ctx.origin),
      ...(withEnv ? { environment: envJson(p, e, false) } : {}),
      deployable: job ? jobJson(s(), job, ctx.origin) : null,
      ...(d.approvals
        ? {
            approvals: d.approvals.map((a) => ({
              user: userRef(s(), a.user_id, ctx.origin),
              status: a.status,
              created_at: a.created_at,
              comment: a.comment,
            })),
          }
        : {}),
    };
  };
  /** A new available environment of the project; its tier from the name unless given. */
  const addEnvironment = (p: Project, name: string, externalUrl: string | null, tier?: string) => {
    const now = s().clock.iso();
    const e: EnvironmentRow = {
      id: ++s().seq.record,
      project_id: p.id,
      name,
      slug: name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, ""),
      external_url: externalUrl,
      state: "available",
      tier: tier ?? (/prod/.test(name) ? "production" : "other"),
      created_at: now,
      updated_at: now,
    };
    envs().push(e);
    return e;
  };
  return { envs, deps, envJson, depJson, addEnvironment };
}

export function environmentRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;
  const { envs, envJson, addEnvironment } = deploymentViews(ctx);

  r.get("/projects/:id/environments", (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.reporter);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    const search = str(q.search)?.toLowerCase();
    const rows = envs()
      .filter((e) => e.project_id === p.id)
      .filter((e) => (typeof q.name === "string" ? e.name === q.name : true))
      .filter((e) => (search ? e.name.toLowerCase().includes(search) : true))
      .filter((e) => (q.states === "available" || q.states === "stopped" ? e.state === q.states : true));
    res.json(paginate(req, res, ctx.origin, rows).map((e) => envJson(p, e, false)));
  });

  r.get("/projects/:id/environments/:environment_id", (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.reporter);
    if (!p) return;
    const e = envs().find((x) => x.project_id === p.id && String(x.id) === req.params.environment_id);
    if (!e) return notFound(res, "Environment");
    res.json(envJson(p, e, true));
  });

  r.post("/projects/:id/environments", (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.developer);
    if (!p) return;
    const b = params(req);
    const name = str(b.name)?.trim();
    if (!name) return missing(res, "name");
    if (envs().some((e) => e.project_id === p.id && e.name === name))
      return void res.status(400).json({ message: { name: ["has already been taken"] } });
    const e = addEnvironment(p, name, str(b.external_url) ?? null, str(b.tier));
    res.status(201).json(envJson(p, e, false));
  });
}

const TIERS = ["production", "staging", "testing", "development", "other"];
const DAY_MS = 86_400_000;

/**
 * Changing, stopping and deleting environments: edit (external URL, tier), stop one (or every
 * stale one), delete a stopped one, and schedule the deletion of stopped review apps.
 */
export function environmentLifecycleRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;
  const { envs, deps, envJson } = deploymentViews(ctx);
  const E = "/projects/:id/environments/:environment_id";
  const load = (req: Request, res: Response, level: number) => {
    const p = loadProject(s(), req, res, level);
    if (!p) return null;
    const e = projectRecord(envs(), p, req, res, "environment_id", "Environment");
    return e && { p, e };
  };
  const stop = (e: EnvironmentRow) => {
    e.state = "stopped";
    e.updated_at = s().clock.iso();
  };

  r.put(E, (req, res) => {
    const l = load(req, res, ACCESS.developer);
    if (!l) return;
    const b = params(req);
    const tier = str(b.tier);
    if (tier !== undefined && !TIERS.includes(tier))
      return void res.status(400).json({ error: "tier does not have a valid value" });
    if (b.external_url !== undefined) l.e.external_url = str(b.external_url) ?? null;
    if (tier !== undefined) l.e.tier = tier;
    l.e.updated_at = s().clock.iso();
    res.json(envJson(l.p, l.e, false));
  });

  // GitLab refuses to delete an environment that is still available
  r.delete(E, (req, res) => {
    const l = load(req, res, ACCESS.developer);
    if (!l) return;
    if (l.e.state !== "stopped") return forbidden(res);
    s().environments = envs().filter((x) => x !== l.e);
    s().deployments = deps().filter((d) => d.environment_id !== l.e.id);
    res.status(204).end();
  });

  r.post(`${E}/stop`, (req, res) => {
    const l = load(req, res, ACCESS.developer);
    if (!l) return;
    stop(l.e);
    res.json(envJson(l.p, l.e, false));
  });

  // Every available environment last changed before `before` (at least a week, at most ten years ago)
  r.post("/projects/:id/environments/stop_stale", (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.maintainer);
    if (!p) return;
    const before = str(params(req).before);
    if (before === undefined) return missing(res, "before");
    const at = Date.parse(before);
    const now = s().clock.now();
    if (Number.isNaN(at)) return void res.status(400).json({ error: "before is invalid" });
    if (at > now - 7 * DAY_MS || at < now - 3650 * DAY_MS)
      return void res.status(400).json({ message: "Invalid Date" });
    for (const e of envs())
      if (e.project_id === p.id && e.state === "available" && Date.parse(e.updated_at) < at) stop(e);
    res.json({ message: "Successfully requested stop for all stale environments" });
  });

  // Stopped review apps (environments under review/) last changed before `before` (default 30 days
  // ago), at most `limit`: listed with dry_run (the default), else their deletion is set a week out.
  r.delete("/projects/:id/environments/review_apps", (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.developer);
    if (!p) return;
    const b = params(req);
    const now = s().clock.now();
    const before = str(b.before) === undefined ? now - 30 * DAY_MS : Date.parse(str(b.before)!);
    if (Number.isNaN(before)) return void res.status(400).json({ error: "before is invalid" });
    const limit = b.limit === undefined ? 100 : Number(b.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      return void res.status(400).json({ error: "limit does not have a valid value" });
    const dryRun = boolParam(b.dry_run) ?? true;
    const picked = envs()
      .filter((e) => e.project_id === p.id && e.name.startsWith("review/") && e.state === "stopped")
      .filter((e) => Date.parse(e.updated_at) < before)
      .slice(0, limit);
    if (!dryRun) for (const e of picked) e.auto_delete_at = new Date(now + 7 * DAY_MS).toISOString();
    const entry = (e: EnvironmentRow) => ({
      id: e.id,
      name: e.name,
      slug: e.slug,
      external_url: e.external_url,
    });
    res.json({ scheduled_entries: picked.map(entry), unprocessable_entries: [] });
  });
}
