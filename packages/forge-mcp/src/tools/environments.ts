import { z } from "zod";
import { enc } from "../forge/api.js";
import { id, projectId, tool } from "./define.js";
import { pages } from "./pipeline-schedules.js";

/**
 * Changing environments and deployments by gitlab-mcp's names (reading them is in ./ci.ts): stop,
 * edit and delete environments, clean up stale ones and review apps, and make, update, delete and
 * approve deployments.
 */

const E = "/projects/:id/environments";
const D = "/projects/:id/deployments";
const envs = (p: string | number) => `/projects/${enc(p)}/environments`;
const deps = (p: string | number) => `/projects/${enc(p)}/deployments`;
const env = { project_id: projectId, environment_id: id };
const dep = { project_id: projectId, deployment_id: id };
const status = z.enum(["running", "success", "failed", "canceled"]);

export const environmentTools = [
  tool({
    name: "update_environment",
    description: "Edit an environment's URL or tier.",
    write: true,
    endpoint: `PUT ${E}/:environment_id`,
    input: {
      ...env,
      external_url: z.string().optional(),
      tier: z.enum(["production", "staging", "testing", "development", "other"]).optional(),
    },
    run: (api, { project_id, environment_id, ...body }) =>
      api.put(`${envs(project_id)}/${environment_id}`, body),
  }),
  tool({
    name: "stop_environment",
    description: "Stop an environment (runs its stop action).",
    write: true,
    destructive: true,
    endpoint: `POST ${E}/:environment_id/stop`,
    input: { ...env, force: z.boolean().optional() },
    run: (api, { project_id, environment_id, ...body }) =>
      api.post(`${envs(project_id)}/${environment_id}/stop`, body),
  }),
  tool({
    name: "stop_stale_environments",
    description: "Stop unprotected environments not updated since `before` (≥ a week ago).",
    write: true,
    destructive: true,
    endpoint: `POST ${E}/stop_stale`,
    input: { project_id: projectId, before: z.string() },
    run: (api, { project_id, ...body }) => api.post(`${envs(project_id)}/stop_stale`, body),
  }),
  tool({
    name: "delete_environment",
    description: "Delete a stopped environment.",
    write: true,
    destructive: true,
    endpoint: `DELETE ${E}/:environment_id`,
    input: env,
    run: (api, a) => api.delete(`${envs(a.project_id)}/${a.environment_id}`),
  }),
  tool({
    name: "delete_review_app_environments",
    description: "Schedule old stopped review apps' deletion; dry_run (default) only lists them.",
    write: true,
    destructive: true,
    endpoint: `DELETE ${E}/review_apps`,
    input: {
      project_id: projectId,
      before: z.string().optional(),
      limit: z.number().int().min(1).max(1000).optional(),
      dry_run: z.boolean().optional(),
    },
    run: (api, { project_id, ...q }) => api.delete(`${envs(project_id)}/review_apps`, q),
  }),
  tool({
    name: "create_deployment",
    description: "Record a deployment to an environment (created if new).",
    write: true,
    endpoint: `POST ${D}`,
    input: {
      project_id: projectId,
      environment: z.string(),
      sha: z.string(),
      ref: z.string(),
      tag: z.boolean(),
      status,
    },
    run: (api, { project_id, ...body }) => api.post(deps(project_id), body),
  }),
  tool({
    name: "update_deployment",
    description: "Set the status of an API-made deployment.",
    write: true,
    endpoint: `PUT ${D}/:deployment_id`,
    input: { ...dep, status },
    run: (api, { project_id, deployment_id, ...body }) =>
      api.put(`${deps(project_id)}/${deployment_id}`, body),
  }),
  tool({
    name: "delete_deployment",
    description: "Delete a deployment (not running, not current).",
    write: true,
    destructive: true,
    endpoint: `DELETE ${D}/:deployment_id`,
    input: dep,
    run: (api, a) => api.delete(`${deps(a.project_id)}/${a.deployment_id}`),
  }),
  tool({
    name: "approve_deployment",
    description: "Approve or reject a blocked deployment (protected environment).",
    write: true,
    destructive: true,
    endpoint: `POST ${D}/:deployment_id/approval`,
    input: {
      ...dep,
      status: z.enum(["approved", "rejected"]),
      comment: z.string().optional(),
    },
    run: (api, { project_id, deployment_id, ...body }) =>
      api.post(`${deps(project_id)}/${deployment_id}/approval`, body),
  }),
  tool({
    name: "list_deployment_merge_requests",
    description: "List a deployment's merge requests.",
    write: false,
    endpoint: `GET ${D}/:deployment_id/merge_requests`,
    input: { ...dep, ...pages },
    run: (api, { project_id, deployment_id, ...q }) =>
      api.get(`${deps(project_id)}/${deployment_id}/merge_requests`, q),
  }),
];
