import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { caller, loadProject, requireUser } from "../model/access.js";
import {
  cancelPipeline,
  createPipeline,
  isFinal,
  jobJson,
  pipelineDetailJson,
  pipelineJobs,
  pipelineJson,
  renderTrace,
  retryJobs,
  syncPipeline,
} from "../model/ci.js";
import { resolveRef } from "../model/repo.js";
import type { ForgeState, Job, JobStatus, Pipeline, Project } from "../model/state.js";
import { ACCESS, userByName } from "../model/state.js";
import { forbidden, missing, notFound, unauthorized } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

const SCOPES: Record<string, (p: Pipeline) => boolean> = {
  running: (p) => p.status === "running",
  pending: (p) => p.status === "pending",
  finished: (p) => isFinal(p.status),
  branches: () => true,
  tags: () => false,
};

function jobScopes(req: Request): JobStatus[] | undefined {
  const q = req.query as Record<string, unknown>;
  const raw = q.scope ?? q["scope[]"];
  if (raw === undefined) return undefined;
  return ([] as unknown[]).concat(raw).map(String) as JobStatus[];
}

function parseVariables(v: unknown): { key: string; value: string }[] | string {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return "variables is invalid";
  const out: { key: string; value: string }[] = [];
  for (const item of v) {
    if (!item || typeof item !== "object" || typeof (item as any).key !== "string")
      return "variables is invalid";
    out.push({ key: (item as any).key, value: String((item as any).value ?? "") });
  }
  return out;
}

export function ciRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  // The job of the CI/CD job token the request carries (rest/auth.ts lets only a running job's in).
  r.get("/job", (_req, res) => {
    const job = caller(res)?.job;
    if (!job) return unauthorized(res);
    res.json(jobJson(ctx.state, job, ctx.origin));
  });

  const projectPipelines = (p: Project) => {
    const rows = ctx.state.pipelines.filter((x) => x.project_id === p.id);
    for (const x of rows) syncPipeline(ctx.state, x);
    return rows;
  };

  const loadPipeline = (req: Request, res: Response, minLevel = 0) => {
    if (minLevel && !requireUser(res)) return null;
    const project = loadProject(ctx.state, req, res, minLevel);
    if (!project) return null;
    const pipeline = ctx.state.pipelines.find(
      (x) => x.project_id === project.id && x.id === Number(req.params.pipeline_id),
    );
    if (!pipeline) {
      notFound(res);
      return null;
    }
    syncPipeline(ctx.state, pipeline);
    return { project, pipeline };
  };

  const loadJob = (req: Request, res: Response, minLevel = 0) => {
    if (minLevel && !requireUser(res)) return null;
    const project = loadProject(ctx.state, req, res, minLevel);
    if (!project) return null;
    const job = ctx.state.jobs.find((j) => j.project_id === project.id && j.id === Number(req.params.job_id));
    if (!job) {
      notFound(res);
      return null;
    }
    const pipeline = ctx.state.pipelines.find((x) => x.id === job.pipeline_id)!;
    syncPipeline(ctx.state, pipeline);
    return { project, job, pipeline };
  };

  const renderJobs = (req: Request, res: Response, jobs: Job[]) => {
    const scopes = jobScopes(req);
    const rows = (scopes ? jobs.filter((j) => scopes.includes(j.status)) : jobs).sort((a, b) => b.id - a.id);
    res.json(paginate(req, res, ctx.origin, rows).map((j) => jobJson(ctx.state, j, ctx.origin)));
  };

  r.get("/projects/:id/pipelines", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    let rows = projectPipelines(p);
    const scope = str(q.scope);
    if (scope && SCOPES[scope]) rows = rows.filter(SCOPES[scope]);
    for (const key of ["status", "ref", "sha", "source"] as const) {
      const v = str(q[key]);
      if (v) rows = rows.filter((x) => x[key] === v);
    }
    if (typeof q.username === "string") {
      const u = userByName(ctx.state, q.username);
      rows = rows.filter((x) => x.user_id === u?.id);
    }
    const by = ["status", "ref", "updated_at", "user_id"].includes(String(q.order_by))
      ? String(q.order_by)
      : "id";
    const dir = q.sort === "asc" ? 1 : -1;
    rows = [...rows].sort((a, b) => {
      const x = a[by as keyof Pipeline] as string | number;
      const y = b[by as keyof Pipeline] as string | number;
      return (x < y ? -1 : x > y ? 1 : a.id - b.id) * dir;
    });
    res.json(paginate(req, res, ctx.origin, rows).map((x) => pipelineJson(ctx.state, x, ctx.origin)));
  });

  r.get("/projects/:id/pipelines/latest", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const ref = str((req.query as Record<string, unknown>).ref) ?? p.default_branch;
    const latest = projectPipelines(p)
      .filter((x) => x.ref === ref)
      .sort((a, b) => b.id - a.id)[0];
    if (!latest) return notFound(res);
    res.json(pipelineDetailJson(ctx.state, latest, ctx.origin));
  });

  r.get("/projects/:id/pipelines/:pipeline_id", (req, res) => {
    const l = loadPipeline(req, res);
    if (l) res.json(pipelineDetailJson(ctx.state, l.pipeline, ctx.origin));
  });

  r.get("/projects/:id/pipelines/:pipeline_id/variables", (req, res) => {
    const l = loadPipeline(req, res, ACCESS.developer);
    if (l) res.json(l.pipeline.variables.map((v) => ({ ...v, variable_type: "env_var" })));
  });

  r.post("/projects/:id/pipeline", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const project = loadProject(ctx.state, req, res, ACCESS.developer);
    if (!project) return;
    const p = params(req);
    const ref = str(p.ref);
    if (!ref) return missing(res, "ref");
    const variables = parseVariables(p.variables);
    if (typeof variables === "string") return void res.status(400).json({ error: variables });
    const commit = resolveRef(project.repository, ref);
    if (!commit) return void res.status(400).json({ message: { base: ["Reference not found"] } });
    const pipeline = createPipeline(ctx.state, project, ref, commit.id, me.id, "api", variables);
    syncPipeline(ctx.state, pipeline);
    res.status(201).json(pipelineDetailJson(ctx.state, pipeline, ctx.origin));
  });

  r.post("/projects/:id/pipelines/:pipeline_id/retry", (req, res) => {
    const l = loadPipeline(req, res, ACCESS.developer);
    if (!l) return;
    const retryable = pipelineJobs(ctx.state, l.pipeline).filter((j) =>
      ["failed", "canceled", "skipped"].includes(j.status),
    );
    if (retryable.length) retryJobs(ctx.state, l.pipeline, retryable);
    res.status(201).json(pipelineDetailJson(ctx.state, l.pipeline, ctx.origin));
  });

  r.post("/projects/:id/pipelines/:pipeline_id/cancel", (req, res) => {
    const l = loadPipeline(req, res, ACCESS.developer);
    if (!l) return;
    cancelPipeline(ctx.state, l.pipeline);
    res.status(200).json(pipelineDetailJson(ctx.state, l.pipeline, ctx.origin));
  });

  r.delete("/projects/:id/pipelines/:pipeline_id", (req, res) => {
    const l = loadPipeline(req, res, ACCESS.owner);
    if (!l) return;
    ctx.state.pipelines = ctx.state.pipelines.filter((x) => x !== l.pipeline);
    ctx.state.jobs = ctx.state.jobs.filter((j) => j.pipeline_id !== l.pipeline.id);
    res.status(204).end();
  });

  r.get("/projects/:id/pipelines/:pipeline_id/jobs", (req, res) => {
    const l = loadPipeline(req, res);
    if (!l) return;
    const includeRetried = boolParam((req.query as Record<string, unknown>).include_retried) === true;
    renderJobs(req, res, pipelineJobs(ctx.state, l.pipeline, includeRetried));
  });

  r.get("/projects/:id/jobs", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    projectPipelines(p);
    renderJobs(
      req,
      res,
      ctx.state.jobs.filter((j) => j.project_id === p.id && j.trigger === undefined),
    );
  });

  r.get("/projects/:id/jobs/:job_id", (req, res) => {
    const l = loadJob(req, res);
    if (l) res.json(jobJson(ctx.state, l.job, ctx.origin));
  });

  r.get("/projects/:id/jobs/:job_id/trace", (req, res) => {
    const l = loadJob(req, res);
    if (l) res.status(200).type("text/plain").send(renderTrace(l.job));
  });

  r.post("/projects/:id/jobs/:job_id/retry", (req, res) => {
    const l = loadJob(req, res, ACCESS.developer);
    if (!l) return;
    if (!isFinal(l.job.status) || l.job.retried)
      return forbidden(res, "403 Forbidden - Job is not retryable");
    const [fresh] = retryJobs(ctx.state, l.pipeline, [l.job]);
    res.status(201).json(jobJson(ctx.state, fresh!, ctx.origin));
  });

  r.post("/projects/:id/jobs/:job_id/cancel", (req, res) => {
    const l = loadJob(req, res, ACCESS.developer);
    if (!l) return;
    if (!isFinal(l.job.status)) {
      l.job.status = "canceled";
      l.job.schedule = null;
      if (l.job.started_at) l.job.finished_at = ctx.state.clock.iso();
      syncPipeline(ctx.state, l.pipeline);
    }
    res.status(201).json(jobJson(ctx.state, l.job, ctx.origin));
  });
}
