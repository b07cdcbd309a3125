import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { loadProject, projectRecord, requireUser } from "../model/access.js";
import { mrJson } from "../model/merge-requests.js";
import type { DeploymentRow } from "../model/state.js";
import { ACCESS, type ForgeState } from "../model/state.js";
import { userRef } from "../model/users.js";
import { forbidden, missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { compareBy, params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";
import { deploymentViews } from "./environments.js";

/** A project's deployments (`/projects/:id/deployments`), each with its environment and job. */
export function deploymentRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;
  const { envs, deps, depJson, addEnvironment } = deploymentViews(ctx);

  const ORDER: Record<string, (d: DeploymentRow) => string | number> = {
    id: (d) => d.id,
    iid: (d) => d.iid,
    created_at: (d) => d.created_at,
    updated_at: (d) => d.updated_at,
    finished_at: (d) => d.finished_at ?? "",
    ref: (d) => d.ref,
  };

  r.get("/projects/:id/deployments", (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.reporter);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    const env = str(q.environment);
    const envId =
      env === undefined ? undefined : envs().find((e) => e.project_id === p.id && e.name === env)?.id;
    const key = ORDER[str(q.order_by) ?? "id"];
    if (!key) return void res.status(400).json({ error: "order_by does not have a valid value" });
    const rows = deps()
      .filter((d) => d.project_id === p.id)
      .filter((d) => (env === undefined ? true : d.environment_id === envId))
      .filter((d) => (typeof q.status === "string" ? d.status === q.status : true))
      .filter((d) => (typeof q.updated_after === "string" ? d.updated_at > q.updated_after : true))
      .filter((d) => (typeof q.updated_before === "string" ? d.updated_at < q.updated_before : true))
      .sort(compareBy(key, q.sort === "desc" ? -1 : 1, (d) => d.id));
    res.json(paginate(req, res, ctx.origin, rows).map((d) => depJson(p, d)));
  });

  r.get("/projects/:id/deployments/:deployment_id", (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.reporter);
    if (!p) return;
    const d = deps().find((x) => x.project_id === p.id && String(x.id) === req.params.deployment_id);
    if (!d) return notFound(res, "Deployment");
    res.json(depJson(p, d));
  });

  // A deployment made by hand (GitLab's POST /deployments): names its environment, created if new.
  r.post("/projects/:id/deployments", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const p = loadProject(s(), req, res, ACCESS.developer);
    if (!p) return;
    const b = params(req);
    const absent = ["environment", "sha", "ref", "tag", "status"].filter((k) => b[k] === undefined);
    if (absent.length) return missing(res, ...absent);
    const statuses = ["running", "success", "failed", "canceled"];
    if (!statuses.includes(String(b.status)))
      return void res.status(400).json({ error: "status does not have a valid value" });
    const now = s().clock.iso();
    const name = String(b.environment);
    const e = envs().find((x) => x.project_id === p.id && x.name === name) ?? addEnvironment(p, name, null);
    const d: DeploymentRow = {
      id: ++s().seq.record,
      iid: deps().filter((x) => x.project_id === p.id).length + 1,
      project_id: p.id,
      environment_id: e.id,
      ref: String(b.ref),
      sha: String(b.sha),
      status: b.status as DeploymentRow["status"],
      user_id: me.id,
      job_id: null,
      created_at: now,
      updated_at: now,
      finished_at: b.status === "running" ? null : now,
    };
    deps().push(d);
    res.status(201).json(depJson(p, d));
  });
}

const STATUSES = ["running", "success", "failed", "canceled"];

/**
 * Changing deployments: a status update (only of one made through the API, not by a CI job), a
 * deletion (never of a running one, nor of the one its environment is on), the merge requests a
 * deployment shipped, and the approval or rejection of a blocked one (a protected environment's).
 */
export function deploymentChangeRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;
  const { deps, depJson } = deploymentViews(ctx);
  const D = "/projects/:id/deployments/:deployment_id";
  const load = (req: Request, res: Response, level: number) => {
    const p = loadProject(s(), req, res, level);
    if (!p) return null;
    const d = projectRecord(deps(), p, req, res, "deployment_id", "Deployment");
    return d && { p, d };
  };

  r.put(D, (req, res) => {
    const l = load(req, res, ACCESS.developer);
    if (!l) return;
    const status = str(params(req).status);
    if (status === undefined) return missing(res, "status");
    if (!STATUSES.includes(status))
      return void res.status(400).json({ error: "status does not have a valid value" });
    if (l.d.job_id !== null)
      return forbidden(res, "Deployments created using GitLab CI can not be updated using the API");
    const now = s().clock.iso();
    Object.assign(l.d, { status, updated_at: now, finished_at: status === "running" ? null : now });
    res.json(depJson(l.p, l.d));
  });

  r.delete(D, (req, res) => {
    const l = load(req, res, ACCESS.maintainer);
    if (!l) return;
    if (l.d.status === "running")
      return void res.status(400).json({ message: "Cannot destroy running deployment" });
    const current = deps()
      .filter((x) => x.environment_id === l.d.environment_id && x.status === "success")
      .sort((a, b) => b.id - a.id)[0];
    if (current === l.d)
      return void res.status(400).json({ message: "Deployment currently deployed to environment" });
    s().deployments = deps().filter((x) => x !== l.d);
    res.status(204).end();
  });

  // The merge requests merged into the deployed ref up to the deployment
  r.get(`${D}/merge_requests`, (req, res) => {
    const l = load(req, res, ACCESS.reporter);
    if (!l) return;
    const until = l.d.finished_at ?? l.d.created_at;
    const rows = s()
      .mergeRequests.filter((m) => m.project_id === l.p.id && m.state === "merged")
      .filter((m) => m.target_branch === l.d.ref && m.merged_at !== null && m.merged_at <= until);
    res.json(paginate(req, res, ctx.origin, rows).map((m) => mrJson(s(), l.p, m, ctx.origin)));
  });

  r.post(`${D}/approval`, (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const l = load(req, res, ACCESS.developer);
    if (!l) return;
    const b = params(req);
    const status = str(b.status);
    if (status === undefined) return missing(res, "status");
    if (status !== "approved" && status !== "rejected")
      return void res.status(400).json({ error: "status does not have a valid value" });
    if (l.d.status !== "blocked")
      return void res.status(400).json({ message: "This deployment is not waiting for approvals." });
    if (l.d.user_id === me.id)
      return void res.status(400).json({ message: "You cannot approve your own deployment." });
    const approval = {
      user_id: me.id,
      status: status as "approved" | "rejected",
      comment: str(b.comment) ?? null,
      created_at: s().clock.iso(),
    };
    l.d.approvals = [...(l.d.approvals ?? []).filter((a) => a.user_id !== me.id), approval];
    if (status === "rejected") Object.assign(l.d, { status: "canceled", updated_at: approval.created_at });
    res.status(201).json({
      user: userRef(s(), me.id, ctx.origin),
      status,
      created_at: approval.created_at,
      comment: approval.comment,
    });
  });
}
