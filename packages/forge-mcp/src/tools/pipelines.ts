import { z } from "zod";
import { enc } from "../forge/api.js";
import { pagination, projectId, tool } from "./define.js";

/** Job logs can be megabytes; the tail is what a reader wants. */
const LOG_TAIL_BYTES = 64 * 1024;

export const pipelineTools = [
  tool({
    name: "list_pipelines",
    description: "List CI pipelines of a project, newest first.",
    write: false,
    input: {
      project_id: projectId,
      status: z
        .enum([
          "created",
          "pending",
          "running",
          "success",
          "failed",
          "canceled",
          "skipped",
          "manual",
          "scheduled",
        ])
        .optional(),
      ref: z.string().optional(),
      ...pagination,
    },
    run: (api, { project_id, ...q }) => api.get(`/projects/${enc(project_id)}/pipelines`, q),
  }),
  tool({
    name: "get_pipeline",
    description: "Get one pipeline.",
    write: false,
    input: { project_id: projectId, pipeline_id: z.number().int().positive() },
    run: (api, a) => api.get(`/projects/${enc(a.project_id)}/pipelines/${a.pipeline_id}`),
  }),
  tool({
    name: "list_pipeline_jobs",
    description: "List the jobs of a pipeline.",
    write: false,
    input: { project_id: projectId, pipeline_id: z.number().int().positive(), ...pagination },
    run: (api, { project_id, pipeline_id, ...q }) =>
      api.get(`/projects/${enc(project_id)}/pipelines/${pipeline_id}/jobs`, q),
  }),
  tool({
    name: "get_job_log",
    description: "Get the log (trace) of a CI job; long logs are cut to their last 64 KiB.",
    write: false,
    input: { project_id: projectId, job_id: z.number().int().positive() },
    run: async (api, a) => {
      const r = await api.get(`/projects/${enc(a.project_id)}/jobs/${a.job_id}/trace`);
      const text = typeof r.data === "string" ? r.data : JSON.stringify(r.data);
      return text.length > LOG_TAIL_BYTES
        ? `[log cut to its last ${LOG_TAIL_BYTES} bytes]\n${text.slice(-LOG_TAIL_BYTES)}`
        : text;
    },
  }),
  tool({
    name: "retry_pipeline",
    description: "Retry the failed jobs of a pipeline.",
    write: true,
    input: { project_id: projectId, pipeline_id: z.number().int().positive() },
    run: (api, a) => api.post(`/projects/${enc(a.project_id)}/pipelines/${a.pipeline_id}/retry`),
  }),
];
