import type { SimContext } from "../../core/sim.js";
import { loadProject } from "../model/access.js";
import { jobJson } from "../model/ci.js";
import type { DeploymentRow, EnvironmentRow } from "../model/state.js";
import { ACCESS, type ForgeState, type Project } from "../model/state.js";
import { userRef } from "../model/users.js";
import { missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { params, str } from "../wire/params.js";
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
