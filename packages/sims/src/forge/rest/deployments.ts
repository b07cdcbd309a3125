import type { SimContext } from "../../core/sim.js";
import { loadProject, requireUser } from "../model/access.js";
import type { DeploymentRow } from "../model/state.js";
import { ACCESS, type ForgeState } from "../model/state.js";
import { missing, notFound } from "../wire/answers.js";
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
