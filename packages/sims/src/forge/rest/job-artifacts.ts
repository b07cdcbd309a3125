import { zipSync } from "fflate";
import type { SimContext } from "../../core/sim.js";
import { loadProject } from "../model/access.js";
import { isFinal, syncPipeline } from "../model/ci.js";
import { jobArtifactFiles } from "../model/job-artifacts.js";
import type { ForgeState } from "../model/state.js";
import { notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";
import { loadProjectJob } from "./jobs.js";

/** A job's whole artifacts archive (`/projects/:id/jobs/:job_id/artifacts`), as a zip. */
/** The entries of an artifacts archive under `dir`: directories first, then files, by name. */
function artifactEntries(files: Record<string, string>, dir: string, recursive: boolean) {
  const prefix = dir ? `${dir}/` : "";
  const dirs = new Map<string, string>();
  const out: Array<{
    name: string;
    path: string;
    type: "file" | "directory";
    size: number | null;
    mode: string;
  }> = [];
  for (const [path, content] of Object.entries(files)) {
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length).split("/");
    // every directory on the way (only the first level unless recursive)
    for (let i = 1; i < rest.length && (recursive || i === 1); i++) {
      const d = prefix + rest.slice(0, i).join("/");
      dirs.set(d, rest[i - 1]!);
    }
    if (rest.length === 1 || recursive)
      out.push({ name: rest.at(-1)!, path, type: "file", size: Buffer.byteLength(content), mode: "100644" });
  }
  const dirRows = [...dirs].map(([path, name]) => ({
    name,
    path,
    type: "directory" as const,
    size: null,
    mode: "040755",
  }));
  const byPath = (a: { path: string }, b: { path: string }) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
  return [...dirRows.sort(byPath), ...out.sort(byPath)];
}

export function jobArtifactRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;

  // The job's whole artifacts archive, as a zip (404 while the job runs or when it kept nothing).
  r.get("/projects/:id/jobs/:job_id/artifacts", (req, res) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const job = s().jobs.find((j) => j.project_id === p.id && String(j.id) === req.params.job_id);
    if (!job) return notFound(res);
    const files = jobArtifactFiles(s(), job);
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
    const content = jobArtifactFiles(ctx.state, l.job)[path];
    if (content === undefined) return notFound(res);
    res.status(200).type("application/octet-stream").send(Buffer.from(content));
  });

  // The files of a job's artifacts archive (GET /projects/:id/jobs/:job_id/artifacts/tree, GitLab
  // 18.x): `path` names a directory, `recursive` lists everything below it.
  r.get("/projects/:id/jobs/:job_id/artifacts/tree", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const job = ctx.state.jobs.find((j) => j.project_id === p.id && j.id === Number(req.params.job_id));
    if (!job) return notFound(res);
    const pipeline = ctx.state.pipelines.find((x) => x.id === job.pipeline_id);
    if (pipeline) syncPipeline(ctx.state, pipeline);
    const files = isFinal(job.status) ? jobArtifactFiles(ctx.state, job) : {};
    if (Object.keys(files).length === 0) return notFound(res);
    const q = req.query as Record<string, unknown>;
    const dir = (str(q.path) ?? "").replace(/^\/+|\/+$/g, "");
    const rows = artifactEntries(files, dir, boolParam(q.recursive) === true);
    if (dir && rows.length === 0) return notFound(res);
    res.json(paginate(req, res, ctx.origin, rows));
  });
}
