import { z } from "zod";
import { type ApiResult, enc } from "../forge/api.js";
import { id, pagination, projectId, tool } from "./define.js";
import { batchProgress, waitForFinal, waitInput } from "./wait.js";

const P = "/projects/:id";
const proj = (p: string | number) => `/projects/${enc(p)}`;

/** Job logs and artifact files can be megabytes: the caller bounds what comes back. */
const MAX_TEXT_BYTES = 1024 * 1024;
const maxBytes = z
  .number()
  .int()
  .min(1)
  .max(MAX_TEXT_BYTES)
  .default(64 * 1024)
  .describe(`Keep at most this many bytes (default 64 KiB, max ${MAX_TEXT_BYTES})`);

/** The last `maxBytes` bytes (on a character boundary) of a text, saying when it was cut. */
function boundText(text: string, max: number, where: "head" | "tail", what: string): string {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= max) return text;
  const cut = where === "tail" ? buf.subarray(buf.length - max) : buf.subarray(0, max);
  // A multibyte character split by the cut decodes as U+FFFD; drop it.
  const s = cut.toString("utf8").replace(where === "tail" ? /^\uFFFD+/ : /\uFFFD+$/, "");
  return where === "tail"
    ? `[${what} cut to its last ${max} of ${buf.length} bytes]\n${s}`
    : `${s}\n[${what} cut to its first ${max} of ${buf.length} bytes]`;
}

/**
 * A byte window of a job log as the model reads it: a first line saying which bytes of how many
 * these are and where the next window starts, then the text (a character the window's edges split
 * dropped). A forge that answers the whole log is cut here.
 */
function logWindow(r: ApiResult, a: { start_byte: number; max_bytes: number }): string {
  const w = r.data as { text: string; start: number; size: number | null; beyond?: boolean };
  const size = w.size ?? "?";
  if (w.beyond) return `[log has ${size} bytes: start_byte ${a.start_byte} is past its end]`;
  let bytes = Buffer.from(w.text, "utf8");
  // a forge that ignores Range answers the whole log from byte 0
  if (w.start !== a.start_byte)
    bytes = bytes.subarray(a.start_byte - w.start, a.start_byte - w.start + a.max_bytes);
  bytes = bytes.subarray(0, a.max_bytes);
  const end = a.start_byte + bytes.length;
  const next = typeof w.size === "number" && end < w.size ? `; next start_byte ${end}` : "";
  const text = bytes.toString("utf8").replace(/^\uFFFD+|\uFFFD+$/g, "");
  return `[log bytes ${a.start_byte}-${end - 1} of ${size}${next}]\n${text}`;
}

const asText = (data: unknown) => (typeof data === "string" ? data : JSON.stringify(data));

const jobVariables = z.array(z.object({ key: z.string().min(1), value: z.string() })).optional();

const jobStatus = z.enum([
  "created",
  "pending",
  "running",
  "success",
  "failed",
  "canceled",
  "skipped",
  "manual",
  "scheduled",
]);

export const pipelineTools = [
  tool({
    name: "list_pipelines",
    description: "List CI pipelines of a project, newest first.",
    write: false,
    endpoint: `GET ${P}/pipelines`,
    input: {
      project_id: projectId,
      status: jobStatus.optional(),
      ref: z.string().optional(),
      sha: z.string().optional(),
      source: z.string().optional(),
      ...pagination,
    },
    run: (api, { project_id, ...q }) => api.get(`${proj(project_id)}/pipelines`, q),
  }),
  tool({
    name: "get_pipeline",
    description: "Get one pipeline: status, ref, sha; its jobs are list_pipeline_jobs.",
    write: false,
    endpoint: `GET ${P}/pipelines/:pipeline_id`,
    input: { project_id: projectId, pipeline_id: id },
    run: (api, a) => api.get(`${proj(a.project_id)}/pipelines/${a.pipeline_id}`),
  }),
  tool({
    name: "list_pipeline_jobs",
    description:
      "List the jobs of a pipeline with their ids and states; a failed job's log is get_pipeline_job_output.",
    write: false,
    endpoint: `GET ${P}/pipelines/:pipeline_id/jobs`,
    input: { project_id: projectId, pipeline_id: id, scope: jobStatus.optional(), ...pagination },
    run: (api, { project_id, pipeline_id, ...q }) =>
      api.get(`${proj(project_id)}/pipelines/${pipeline_id}/jobs`, q),
  }),
  tool({
    name: "create_pipeline",
    description: "Run a new pipeline on a branch or tag, optionally with CI variables.",
    write: true,
    endpoint: `POST ${P}/pipeline`,
    input: {
      project_id: projectId,
      ref: z.string().min(1),
      variables: z
        .array(
          z.object({
            key: z.string().min(1),
            value: z.string(),
            variable_type: z.enum(["env_var", "file"]).optional(),
          }),
        )
        .optional(),
    },
    run: (api, { project_id, ...body }) => api.post(`${proj(project_id)}/pipeline`, body),
  }),
  tool({
    name: "retry_pipeline",
    description: "Retry the failed jobs of a pipeline.",
    write: true,
    endpoint: `POST ${P}/pipelines/:pipeline_id/retry`,
    input: { project_id: projectId, pipeline_id: id },
    run: (api, a) => api.post(`${proj(a.project_id)}/pipelines/${a.pipeline_id}/retry`),
  }),
  tool({
    name: "cancel_pipeline",
    description: "Cancel the running and pending jobs of a pipeline.",
    write: true,
    endpoint: `POST ${P}/pipelines/:pipeline_id/cancel`,
    input: { project_id: projectId, pipeline_id: id },
    run: (api, a) => api.post(`${proj(a.project_id)}/pipelines/${a.pipeline_id}/cancel`),
  }),
  tool({
    name: "get_pipeline_job",
    aliases: ["get_job"],
    description: "Get one CI job (status, stage, timings, artifacts).",
    write: false,
    endpoint: `GET ${P}/jobs/:job_id`,
    input: { project_id: projectId, job_id: id },
    run: (api, a) => api.get(`${proj(a.project_id)}/jobs/${a.job_id}`),
  }),
  tool({
    name: "get_pipeline_job_output",
    aliases: ["get_job_log"],
    description:
      "Get the log (trace) of a CI job (its id from list_pipeline_jobs). Long logs keep their end: at most max_bytes, and with tail_lines only the last lines; start_byte reads the max_bytes from there instead.",
    write: false,
    endpoint: `GET ${P}/jobs/:job_id/trace`,
    input: {
      project_id: projectId,
      job_id: id,
      tail_lines: z.number().int().min(1).max(100_000).optional().describe("Only the last N lines"),
      max_bytes: maxBytes,
      start_byte: z.number().int().min(0).optional(),
    },
    run: async (api, a) => {
      const trace = `${proj(a.project_id)}/jobs/${a.job_id}/trace`;
      if (a.start_byte !== undefined) {
        if (a.tail_lines !== undefined) throw new Error("give start_byte or tail_lines, not both");
        const window = await api.window(trace, a.start_byte, a.start_byte + a.max_bytes - 1);
        return logWindow(window, { start_byte: a.start_byte, max_bytes: a.max_bytes });
      }
      let text = asText((await api.get(trace)).data);
      if (a.tail_lines !== undefined) {
        const lines = text.replace(/\n$/, "").split("\n");
        if (lines.length > a.tail_lines) text = `${lines.slice(-a.tail_lines).join("\n")}\n`;
      }
      return boundText(text, a.max_bytes, "tail", "log");
    },
  }),
  tool({
    name: "retry_pipeline_job",
    aliases: ["retry_job"],
    description: "Retry one CI job (a new job is created).",
    write: true,
    endpoint: `POST ${P}/jobs/:job_id/retry`,
    input: { project_id: projectId, job_id: id },
    run: (api, a) => api.post(`${proj(a.project_id)}/jobs/${a.job_id}/retry`),
  }),
  tool({
    name: "cancel_pipeline_job",
    aliases: ["cancel_job"],
    description: "Cancel one CI job.",
    write: true,
    endpoint: `POST ${P}/jobs/:job_id/cancel`,
    input: { project_id: projectId, job_id: id },
    run: (api, a) => api.post(`${proj(a.project_id)}/jobs/${a.job_id}/cancel`),
  }),
  tool({
    name: "play_pipeline_job",
    aliases: ["play_job"],
    description: "Start a manual CI job, optionally with job variables.",
    write: true,
    endpoint: `POST ${P}/jobs/:job_id/play`,
    input: {
      project_id: projectId,
      job_id: id,
      job_variables_attributes: jobVariables,
    },
    run: (api, { project_id, job_id, ...body }) => api.post(`${proj(project_id)}/jobs/${job_id}/play`, body),
  }),
  tool({
    name: "list_job_artifacts",
    description: "List a CI job's artifacts (archive, reports, trace), their sizes and the archive's expiry.",
    write: false,
    endpoint: `GET ${P}/jobs/:job_id`,
    input: { project_id: projectId, job_id: id },
    run: async (api, a) => {
      const r = await api.get(`${proj(a.project_id)}/jobs/${a.job_id}`);
      const j = (r.data ?? {}) as Record<string, unknown>;
      return {
        data: {
          job_id: j.id,
          artifacts: j.artifacts ?? [],
          artifacts_file: j.artifacts_file ?? null,
          artifacts_expire_at: j.artifacts_expire_at ?? null,
        },
        page: undefined,
      };
    },
  }),
  tool({
    name: "get_job_artifact_file",
    description: "Read one file of a job's artifacts archive (text, its first max_bytes).",
    write: false,
    endpoint: `GET ${P}/jobs/:job_id/artifacts/*artifact_path`,
    input: {
      project_id: projectId,
      job_id: id,
      artifact_path: z.string().min(1).describe("Path inside the archive, e.g. coverage/summary.txt"),
      max_bytes: maxBytes,
    },
    run: async (api, a) => {
      const path = a.artifact_path.replace(/^\/+/, "").split("/").map(enc).join("/");
      const r = await api.get(`${proj(a.project_id)}/jobs/${a.job_id}/artifacts/${path}`);
      return boundText(asText(r.data), a.max_bytes, "head", "artifact");
    },
  }),
  // waiting on the forge, batches of manual jobs, and the rest of a pipeline's life
  tool({
    name: "wait_for_pipeline",
    description:
      "Wait until a pipeline finishes (success, failed, canceled, skipped or manual) and answer it; fails after timeout_seconds.",
    write: false,
    endpoint: `GET ${P}/pipelines/:pipeline_id`,
    input: { project_id: projectId, pipeline_id: id, ...waitInput },
    run: (api, { project_id, pipeline_id, ...wait }, call) =>
      waitForFinal(
        () => api.get(`${proj(project_id)}/pipelines/${pipeline_id}`),
        `pipeline ${pipeline_id}`,
        wait,
        call,
      ),
  }),
  tool({
    name: "wait_for_job",
    description: "Wait until a CI job finishes, as wait_for_pipeline does, and answer it.",
    write: false,
    endpoint: `GET ${P}/jobs/:job_id`,
    input: { project_id: projectId, job_id: id, ...waitInput },
    run: (api, { project_id, job_id, ...wait }, call) =>
      waitForFinal(() => api.get(`${proj(project_id)}/jobs/${job_id}`), `job ${job_id}`, wait, call),
  }),
  tool({
    name: "play_pipeline_jobs",
    description:
      "Run manual jobs in order, each waited for (timeout_seconds each) before the next; answers them finished.",
    write: true,
    endpoint: `POST ${P}/jobs/:job_id/play`,
    input: {
      project_id: projectId,
      job_ids: z
        .array(id)
        .min(1)
        .refine((xs) => new Set(xs).size === xs.length, "job_ids must not repeat"),
      job_variables_attributes: jobVariables,
      ...waitInput,
    },
    run: async (api, { project_id, job_ids, job_variables_attributes, ...wait }, call) => {
      const batch = batchProgress(call, wait.timeout_seconds * job_ids.length);
      const done: unknown[] = [];
      for (const jobId of job_ids) {
        const played = await api.post(`${proj(project_id)}/jobs/${jobId}/play`, { job_variables_attributes });
        const playedId = (played.data as { id?: number }).id ?? jobId;
        const r = await waitForFinal(
          () => api.get(`${proj(project_id)}/jobs/${playedId}`),
          `job ${playedId}`,
          wait,
          batch,
        );
        done.push(r.data);
      }
      return { data: done, page: undefined };
    },
  }),
  tool({
    name: "erase_pipeline_job",
    description: "Erase a finished CI job's log and artifacts (the job stays).",
    write: true,
    destructive: true,
    endpoint: `POST ${P}/jobs/:job_id/erase`,
    input: { project_id: projectId, job_id: id },
    run: (api, a) => api.post(`${proj(a.project_id)}/jobs/${a.job_id}/erase`),
  }),
  tool({
    name: "delete_pipeline",
    description: "Delete a pipeline with its jobs and logs (Owner role; child pipelines stay).",
    write: true,
    destructive: true,
    endpoint: `DELETE ${P}/pipelines/:pipeline_id`,
    input: { project_id: projectId, pipeline_id: id },
    run: (api, a) => api.delete(`${proj(a.project_id)}/pipelines/${a.pipeline_id}`),
  }),
  tool({
    name: "update_pipeline_metadata",
    description: "Rename a pipeline.",
    write: true,
    endpoint: `PUT ${P}/pipelines/:pipeline_id/metadata`,
    input: { project_id: projectId, pipeline_id: id, name: z.string().min(1) },
    run: (api, { project_id, pipeline_id, name }) =>
      api.put(`${proj(project_id)}/pipelines/${pipeline_id}/metadata`, { name }),
  }),
  tool({
    name: "get_pipeline_variables",
    description: "List the variables a pipeline was run with.",
    write: false,
    endpoint: `GET ${P}/pipelines/:pipeline_id/variables`,
    input: { project_id: projectId, pipeline_id: id },
    run: (api, a) => api.get(`${proj(a.project_id)}/pipelines/${a.pipeline_id}/variables`),
  }),
  tool({
    name: "get_pipeline_test_report",
    description: "Get a pipeline's unit test report: every suite and test case, failures with their output.",
    write: false,
    endpoint: `GET ${P}/pipelines/:pipeline_id/test_report`,
    input: { project_id: projectId, pipeline_id: id },
    run: (api, a) => api.get(`${proj(a.project_id)}/pipelines/${a.pipeline_id}/test_report`),
  }),
  tool({
    name: "get_pipeline_test_report_summary",
    description: "Get the counts of a pipeline's unit test report, in total and per suite.",
    write: false,
    endpoint: `GET ${P}/pipelines/:pipeline_id/test_report_summary`,
    input: { project_id: projectId, pipeline_id: id },
    run: (api, a) => api.get(`${proj(a.project_id)}/pipelines/${a.pipeline_id}/test_report_summary`),
  }),
];
