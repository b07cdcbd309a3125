import { z } from "zod";
import { enc } from "../forge/api.js";
import { id, projectId, tool } from "./define.js";

/**
 * Pipeline schedules by gitlab-mcp's names: the schedules, the pipelines each ran, running one now,
 * taking one over (GitLab lets only a schedule's owner change it or its variables), and its
 * variables by key.
 */

const P = "/projects/:id/pipeline_schedules";
const S = `${P}/:pipeline_schedule_id`;
const path = (p: string | number, s?: number) =>
  `/projects/${enc(p)}/pipeline_schedules${s === undefined ? "" : `/${s}`}`;

const one = { project_id: projectId, pipeline_schedule_id: id };
const schedule = {
  description: z.string(),
  ref: z.string(),
  cron: z.string(),
  cron_timezone: z.string().optional(),
  active: z.boolean().optional(),
};
const key = z.string();
/** Paging without the shared descriptions (these tools are one search away, not on the default list). */
export const pages = {
  page: z.number().int().min(1).optional(),
  per_page: z.number().int().min(1).max(100).optional(),
};
const variable = { ...one, key, value: z.string(), variable_type: z.enum(["env_var", "file"]).optional() };

export const pipelineScheduleTools = [
  tool({
    name: "list_pipeline_schedules",
    description: "List a project's pipeline schedules.",
    write: false,
    endpoint: `GET ${P}`,
    input: { project_id: projectId, scope: z.enum(["active", "inactive"]).optional(), ...pages },
    run: (api, { project_id, ...q }) => api.get(path(project_id), q),
  }),
  tool({
    name: "get_pipeline_schedule",
    description: "Get a pipeline schedule with its last pipeline.",
    write: false,
    endpoint: `GET ${S}`,
    input: one,
    run: (api, a) => api.get(path(a.project_id, a.pipeline_schedule_id)),
  }),
  tool({
    name: "list_pipeline_schedule_pipelines",
    description: "List the pipelines a schedule has run.",
    write: false,
    endpoint: `GET ${S}/pipelines`,
    input: {
      ...one,
      scope: z.enum(["running", "pending", "finished", "branches", "tags"]).optional(),
      status: z.string().optional(),
      ...pages,
    },
    run: (api, { project_id, pipeline_schedule_id, ...q }) =>
      api.get(`${path(project_id, pipeline_schedule_id)}/pipelines`, q),
  }),
  tool({
    name: "create_pipeline_schedule",
    description: "Create a pipeline schedule, owned by you.",
    write: true,
    endpoint: `POST ${P}`,
    input: { project_id: projectId, ...schedule },
    run: (api, { project_id, ...body }) => api.post(path(project_id), body),
  }),
  tool({
    name: "update_pipeline_schedule",
    description: "Change your pipeline schedule.",
    write: true,
    endpoint: `PUT ${S}`,
    input: {
      ...one,
      description: schedule.description.optional(),
      ref: schedule.ref.optional(),
      cron: schedule.cron.optional(),
      cron_timezone: schedule.cron_timezone,
      active: schedule.active,
    },
    run: (api, { project_id, pipeline_schedule_id, ...body }) =>
      api.put(path(project_id, pipeline_schedule_id), body),
  }),
  tool({
    name: "delete_pipeline_schedule",
    description: "Delete a pipeline schedule.",
    write: true,
    destructive: true,
    endpoint: `DELETE ${S}`,
    input: one,
    run: (api, a) => api.delete(path(a.project_id, a.pipeline_schedule_id)),
  }),
  tool({
    name: "play_pipeline_schedule",
    description: "Run a pipeline schedule now (its schedule is unchanged).",
    write: true,
    endpoint: `POST ${S}/play`,
    input: one,
    run: (api, a) => api.post(`${path(a.project_id, a.pipeline_schedule_id)}/play`),
  }),
  tool({
    name: "take_ownership_pipeline_schedule",
    description: "Take over a pipeline schedule (to change it).",
    write: true,
    endpoint: `POST ${S}/take_ownership`,
    input: one,
    run: (api, a) => api.post(`${path(a.project_id, a.pipeline_schedule_id)}/take_ownership`),
  }),
  tool({
    name: "get_pipeline_schedule_variable",
    description: "Get a pipeline schedule variable.",
    write: false,
    endpoint: `GET ${S}/variables/:key`,
    input: { ...one, key },
    run: (api, a) => api.get(`${path(a.project_id, a.pipeline_schedule_id)}/variables/${enc(a.key)}`),
  }),
  tool({
    name: "create_pipeline_schedule_variable",
    description: "Add a variable to your pipeline schedule.",
    write: true,
    endpoint: `POST ${S}/variables`,
    input: variable,
    run: (api, { project_id, pipeline_schedule_id, ...body }) =>
      api.post(`${path(project_id, pipeline_schedule_id)}/variables`, body),
  }),
  tool({
    name: "update_pipeline_schedule_variable",
    description: "Change a variable of your pipeline schedule.",
    write: true,
    endpoint: `PUT ${S}/variables/:key`,
    input: variable,
    run: (api, { project_id, pipeline_schedule_id, key, ...body }) =>
      api.put(`${path(project_id, pipeline_schedule_id)}/variables/${enc(key)}`, body),
  }),
  tool({
    name: "delete_pipeline_schedule_variable",
    description: "Delete a variable of your pipeline schedule.",
    write: true,
    destructive: true,
    endpoint: `DELETE ${S}/variables/:key`,
    input: { ...one, key },
    run: (api, a) => api.delete(`${path(a.project_id, a.pipeline_schedule_id)}/variables/${enc(a.key)}`),
  }),
];
