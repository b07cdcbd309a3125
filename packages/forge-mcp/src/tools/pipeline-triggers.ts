import { z } from "zod";
import type { ApiResult } from "../forge/api.js";
import { enc } from "../forge/api.js";
import { id, projectId, tool } from "./define.js";

/**
 * Pipeline trigger tokens by gitlab-mcp's names. A trigger token runs pipelines as its owner, so it
 * reaches the model once, in create_pipeline_trigger's answer; the other answers leave it out, and
 * trigger_pipeline sends it in the request body (never in a URL a log could keep).
 */

const P = "/projects/:id/triggers";
const T = `${P}/:trigger_id`;
const path = (p: string | number, t?: number) =>
  `/projects/${enc(p)}/triggers${t === undefined ? "" : `/${t}`}`;
const one = { project_id: projectId, trigger_id: id };

/** The answer without the token(s) it carries. */
async function withoutToken(call: Promise<ApiResult>): Promise<ApiResult> {
  const r = await call;
  const drop = (x: unknown) => {
    if (x && typeof x === "object") delete (x as Record<string, unknown>).token;
  };
  if (Array.isArray(r.data)) r.data.forEach(drop);
  else drop(r.data);
  return r;
}

export const pipelineTriggerTools = [
  tool({
    name: "list_pipeline_triggers",
    description: "List a project's pipeline triggers (no tokens).",
    write: false,
    endpoint: `GET ${P}`,
    input: { project_id: projectId },
    run: (api, a) => withoutToken(api.get(path(a.project_id))),
  }),
  tool({
    name: "get_pipeline_trigger",
    description: "Get a pipeline trigger (no token).",
    write: false,
    endpoint: `GET ${T}`,
    input: one,
    run: (api, a) => withoutToken(api.get(path(a.project_id, a.trigger_id))),
  }),
  tool({
    name: "create_pipeline_trigger",
    description: "Create a pipeline trigger token (shown only in this answer).",
    write: true,
    endpoint: `POST ${P}`,
    input: { project_id: projectId, description: z.string() },
    run: (api, { project_id, ...body }) => api.post(path(project_id), body),
  }),
  tool({
    name: "update_pipeline_trigger",
    description: "Change your pipeline trigger's description.",
    write: true,
    endpoint: `PUT ${T}`,
    input: { ...one, description: z.string() },
    run: (api, { project_id, trigger_id, ...body }) =>
      withoutToken(api.put(path(project_id, trigger_id), body)),
  }),
  tool({
    name: "delete_pipeline_trigger",
    description: "Delete a pipeline trigger token.",
    write: true,
    destructive: true,
    endpoint: `DELETE ${T}`,
    input: one,
    run: (api, a) => api.delete(path(a.project_id, a.trigger_id)),
  }),
  tool({
    name: "trigger_pipeline",
    description: "Run a pipeline with a trigger token.",
    write: true,
    endpoint: "POST /projects/:id/trigger/pipeline",
    input: {
      project_id: projectId,
      token: z.string(),
      ref: z.string(),
      variables: z.record(z.string(), z.string()).optional(),
      inputs: z.record(z.string(), z.unknown()).optional(),
    },
    run: (api, { project_id, ...body }) => api.post(`/projects/${enc(project_id)}/trigger/pipeline`, body),
  }),
];
