import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { caller, loadProject, requireUser } from "../model/access.js";
import { isFinal, jobJson, pipelineJobs, renderTrace, retryJobs, syncPipeline } from "../model/ci.js";
import { jobArtifactFiles } from "../model/job-artifacts.js";
import type { ForgeState, Job, JobStatus } from "../model/state.js";
import { ACCESS } from "../model/state.js";
import { forbidden, notFound, sendRanged, unauthorized } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam } from "../wire/params.js";
import type { Routes } from "../wire/router.js";
import { pipelineLoaders } from "./pipelines.js";

function jobScopes(req: Request): JobStatus[] | undefined {
  const q = req.query as Record<string, unknown>;
  const raw = q.scope ?? q["scope[]"];
  if (raw === undefined) return undefined;
  return ([] as unknown[]).concat(raw).map(String) as JobStatus[];
}

/** The job `:job_id` of the project `:id` (its pipeline brought up to date), or null when answered. */
export function loadProjectJob(state: ForgeState, req: Request, res: Response, minLevel = 0) {
  if (minLevel && !requireUser(res)) return null;
  const project = loadProject(state, req, res, minLevel);
  if (!project) return null;
  const job = state.jobs.find((j) => j.project_id === project.id && j.id === Number(req.params.job_id));
  if (!job) {
    notFound(res);
    return null;
  }
  const pipeline = state.pipelines.find((x) => x.id === job.pipeline_id)!;
  syncPipeline(state, pipeline);
  return { project, job, pipeline };
}

/**
 * CI jobs (GitLab's ci/jobs.rb): the job token's own job, a pipeline's jobs and bridges, a
 * project's jobs, trace, retry, cancel, play and erase.
 */
export function jobRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  // The job of the CI/CD job token the request carries (rest/auth.ts lets only a running job's in).
  r.get("/job", (_req, res) => {
    const job = caller(res)?.job;
    if (!job) return unauthorized(res);
    res.json(jobJson(ctx.state, job, ctx.origin));
  });

  const { projectPipelines, loadPipeline } = pipelineLoaders(ctx);

  const loadJob = (req: Request, res: Response, minLevel = 0) =>
    loadProjectJob(ctx.state, req, res, minLevel);

  const renderJobs = (req: Request, res: Response, jobs: Job[]) => {
    const scopes = jobScopes(req);
    const rows = (scopes ? jobs.filter((j) => scopes.includes(j.status)) : jobs).sort((a, b) => b.id - a.id);
    res.json(paginate(req, res, ctx.origin, rows).map((j) => jobJson(ctx.state, j, ctx.origin)));
  };

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
    // a byte window of the log with `Range` (206 and Content-Range), as GitLab's trace answers
    if (l) sendRanged(req, res, renderTrace(l.job));
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

  r.get("/projects/:id/pipelines/:pipeline_id/bridges", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const pl = ctx.state.pipelines.find(
      (x) => x.project_id === p.id && String(x.id) === req.params.pipeline_id,
    );
    if (!pl) return notFound(res);
    const q = req.query as Record<string, unknown>;
    const scope = q.scope === undefined ? undefined : ([] as unknown[]).concat(q.scope).map(String);
    const rows = ctx.state.jobs
      .filter((j) => j.pipeline_id === pl.id && j.trigger !== undefined)
      .filter((j) => (scope ? scope.includes(j.status) : true))
      .sort((a, b) => b.id - a.id);
    res.json(
      paginate(req, res, ctx.origin, rows).map((j) => {
        const {
          artifacts: _a,
          artifacts_file: _f,
          ...job
        } = jobJson(ctx.state, j, ctx.origin) as Record<string, unknown>;
        return { ...job, downstream_pipeline: null };
      }),
    );
  });

  r.post("/projects/:id/jobs/:job_id/play", (req, res) => {
    const l = loadJob(req, res, ACCESS.developer);
    if (!l) return;
    if (l.job.status !== "manual")
      return void res.status(400).json({ message: "400 Bad request - Unplayable Job" });
    // One reading of the clock: two could differ by a millisecond, and the job's duration with them.
    const nowMs = ctx.state.clock.now();
    const now = new Date(nowMs).toISOString();
    // A played manual job runs like any other: queued 1 s, then its run (seeded `seconds`, else
    // 30 s) on the simulated clock.
    l.job.status = "pending";
    l.job.user_id = caller(res)!.user.id;
    l.job.schedule = {
      startMs: nowMs + 1000,
      endMs: nowMs + 1000 + (l.job.run_seconds ?? 30) * 1000,
      outcome: "success",
      first: true,
    };
    l.job.created_at = now;
    syncPipeline(ctx.state, l.pipeline);
    res.json(jobJson(ctx.state, l.job, ctx.origin));
  });

  // Erasing keeps the job and drops its log and artifacts; only a finished job that still has one
  // of them can be erased (GitLab's Ci::BuildEraseService).
  r.post("/projects/:id/jobs/:job_id/erase", (req, res) => {
    const l = loadJob(req, res, ACCESS.developer);
    if (!l) return;
    const hasArtifacts = Object.keys(jobArtifactFiles(ctx.state, l.job)).length > 0;
    if (!isFinal(l.job.status) || l.job.status === "manual" || (!hasArtifacts && renderTrace(l.job) === ""))
      return forbidden(res, "403 Forbidden - Job is not erasable!");
    l.job.trace = "";
    ctx.state.artifacts[l.job.id] = {};
    l.job.erased_at = ctx.state.clock.iso();
    res.status(201).json(jobJson(ctx.state, l.job, ctx.origin));
  });
}
