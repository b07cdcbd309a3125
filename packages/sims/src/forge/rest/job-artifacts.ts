import { zipSync } from "fflate";
import type { SimContext } from "../../core/sim.js";
import { loadProject } from "../model/access.js";
import { isFinal } from "../model/ci.js";
import { jobArtifactFiles } from "../model/project-extras.js";
import type { ForgeState } from "../model/state.js";
import { notFound } from "../wire/answers.js";
import type { Routes } from "../wire/router.js";
import { loadProjectJob } from "./jobs.js";

/** A job's whole artifacts archive (`/projects/:id/jobs/:job_id/artifacts`), as a zip. */
export function jobArtifactRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;

  // The job's whole artifacts archive, as a zip (404 while the job runs or when it kept nothing).
  r.get("/projects/:id/jobs/:job_id/artifacts", (req, res) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const job = s().jobs.find((j) => j.project_id === p.id && String(j.id) === req.params.job_id);
    if (!job) return notFound(res);
    const files = jobArtifactFiles(s().extras, job);
    if (!isFinal(job.status) || Object.keys(files).length === 0) return notFound(res);
    const zip = zipSync(
      Object.fromEntries(Object.entries(files).map(([path, text]) => [path, Buffer.from(text)])),
      { mtime: new Date(job.finished_at ?? job.created_at) },
    );
    res
      .status(200)
      .type("application/zip")
      .setHeader("Content-Disposition", `attachment; filename="artifacts.zip"`)
      .send(Buffer.from(zip));
  });

  r.get("/projects/:id/jobs/:job_id/artifacts/*artifact_path", (req, res) => {
    const l = loadProjectJob(ctx.state, req, res);
    if (!l) return;
    const raw = (req.params as Record<string, unknown>).artifact_path;
    const path = (Array.isArray(raw) ? raw.join("/") : String(raw)).replace(/^\/+/, "");
    if (!isFinal(l.job.status)) return notFound(res);
    const content = jobArtifactFiles(ctx.state.extras, l.job)[path];
    if (content === undefined) return notFound(res);
    res.status(200).type("application/octet-stream").send(Buffer.from(content));
  });
}
