import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { loadProject, requireUser } from "../model/access.js";
import {
  cancelPipeline,
  createPipeline,
  isFinal,
  pipelineDetailJson,
  pipelineJobs,
  pipelineJson,
  retryJobs,
  syncPipeline,
} from "../model/ci.js";
import { resolveRef } from "../model/repo.js";
import type { ForgeState, Pipeline, Project } from "../model/state.js";
import { ACCESS, userByName } from "../model/state.js";
import { missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

/**
 * A project's pipelines (GitLab's ci/pipelines.rb): list, latest, one, its variables, run, retry,
 * cancel, delete, its name (metadata) and its unit test report.
 */
const SCOPES: Record<string, (p: Pipeline) => boolean> = {
  running: (p) => p.status === "running",
  pending: (p) => p.status === "pending",
  finished: (p) => isFinal(p.status),
  branches: () => true,
  tags: () => false,
};

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

/** A project's pipelines (brought up to date first), and the one `:pipeline_id` names. */
export function pipelineLoaders(ctx: SimContext<ForgeState>) {
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
  return { projectPipelines, loadPipeline };
}

export function pipelineRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const { projectPipelines, loadPipeline } = pipelineLoaders(ctx);

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

  r.put("/projects/:id/pipelines/:pipeline_id/metadata", (req, res) => {
    const l = loadPipeline(req, res, ACCESS.developer);
    if (!l) return;
    const name = str(params(req).name);
    if (!name) return missing(res, "name");
    l.pipeline.name = name;
    l.pipeline.updated_at = ctx.state.clock.iso();
    res.json(pipelineDetailJson(ctx.state, l.pipeline, ctx.origin));
  });

  r.get("/projects/:id/pipelines/:pipeline_id/test_report", (req, res) => {
    const l = loadPipeline(req, res);
    if (l) res.json(testReport(ctx.state, l.pipeline));
  });

  r.get("/projects/:id/pipelines/:pipeline_id/test_report_summary", (req, res) => {
    const l = loadPipeline(req, res);
    if (!l) return;
    const report = testReport(ctx.state, l.pipeline);
    res.json({
      total: {
        time: report.total_time,
        count: report.total_count,
        success: report.success_count,
        failed: report.failed_count,
        skipped: report.skipped_count,
        error: report.error_count,
        suite_error: null,
      },
      test_suites: report.test_suites.map(({ test_cases: _c, ...suite }) => suite),
    });
  });
}

/** The simulated JUnit cases of a finished job of the `test` stage: three, the last failing when the job failed. */
const CASES = ["parses input", "renders output", "handles errors"];

/**
 * A pipeline's unit test report (GitLab's TestReportEntity): a suite per finished, not retried job
 * of the test stage, named after the job.
 */
function testReport(state: ForgeState, pipeline: Pipeline) {
  const suites = pipelineJobs(state, pipeline)
    .filter((j) => j.stage === "test" && (j.status === "success" || j.status === "failed"))
    .sort((a, b) => a.id - b.id)
    .map((j) => {
      const cases = CASES.map((c, i) => {
        const failed = j.status === "failed" && i === CASES.length - 1;
        return {
          status: failed ? "failed" : "success",
          name: `${j.name} ${c}`,
          classname: `${j.name}_spec`,
          file: `spec/${j.name}_spec.rb`,
          execution_time: 0.25 * (i + 1),
          system_output: failed ? `expected no error, got ${j.name}: simulated failure` : null,
          stack_trace: null,
          attachment_url: null,
          recent_failures: null,
        };
      });
      const failed = cases.filter((c) => c.status === "failed").length;
      return {
        name: j.name,
        total_time: cases.reduce((n, c) => n + c.execution_time, 0),
        total_count: cases.length,
        success_count: cases.length - failed,
        failed_count: failed,
        skipped_count: 0,
        error_count: 0,
        build_ids: [j.id],
        suite_error: null,
        test_cases: cases,
      };
    });
  const sum = (k: "total_time" | "total_count" | "success_count" | "failed_count") =>
    suites.reduce((n, s) => n + s[k], 0);
  return {
    total_time: sum("total_time"),
    total_count: sum("total_count"),
    success_count: sum("success_count"),
    failed_count: sum("failed_count"),
    skipped_count: 0,
    error_count: 0,
    test_suites: suites,
  };
}
