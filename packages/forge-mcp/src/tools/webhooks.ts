import { z } from "zod";
import type { ApiResult, ForgeApi } from "../forge/api.js";
import { enc } from "../forge/api.js";
import { groupId, id, pagination, projectId, tool } from "./define.js";

/**
 * Project and group webhooks and their recorded deliveries (GitLab 17.3+). Exactly one of
 * project_id and group_id names the hook's owner. A delivery is read from the event list (GitLab
 * has no call for one event): the page given, or the newest pages until it is found. A hook's
 * secret tokens go to the forge and never come back: GitLab does not answer them, and an answer
 * that did would lose them here before the model saw it.
 */

const owner = {
  project_id: projectId.optional().describe("Project id or path (give this or group_id)"),
  group_id: groupId.optional().describe("Group id or path (give this or project_id)"),
};

function hooksPath(a: {
  project_id?: string | number | undefined;
  group_id?: string | number | undefined;
}): string {
  if ((a.project_id === undefined) === (a.group_id === undefined))
    throw new Error("give exactly one of project_id and group_id");
  return a.project_id !== undefined
    ? `/projects/${enc(a.project_id)}/hooks`
    : `/groups/${enc(a.group_id!)}/hooks`;
}

const secret = z.string().optional().describe("Never shown again");
const on = z.boolean().optional();
/** What create_webhook and update_webhook may set beside the URL (gitlab-mcp's argument names). */
const hookFields = {
  name: z.string().optional(),
  description: z.string().optional(),
  token: secret,
  signing_token: secret,
  enable_ssl_verification: on,
  push_events_branch_filter: z.string().optional(),
  branch_filter_strategy: z.enum(["wildcard", "regex", "all_branches"]).optional(),
  push_events: on,
  tag_push_events: on,
  issues_events: on,
  confidential_issues_events: on,
  merge_requests_events: on,
  note_events: on,
  confidential_note_events: on,
  job_events: on,
  pipeline_events: on,
  wiki_page_events: on,
  deployment_events: on,
  releases_events: on,
  emoji_events: on,
};

/** A hook as answered, with any secret token the forge might have echoed taken out. */
function withoutSecrets(r: ApiResult): ApiResult {
  if (!r.data || typeof r.data !== "object" || Array.isArray(r.data)) return r;
  const { token: _t, signing_token: _s, ...hook } = r.data as Record<string, unknown>;
  return { ...r, data: hook };
}

/** GitLab serves at most 20 events a page; a delivery is looked for in the newest 5 pages. */
const EVENT_PAGE = 20;
const EVENT_PAGES = 5;

const status = z
  .union([z.number().int(), z.enum(["successful", "client_failure", "server_failure"])])
  .optional()
  .describe("A response status code (200, 500) or successful, client_failure, server_failure");

/** The fields worth a glance, without the request and response payloads. */
function summarize(events: unknown): unknown {
  if (!Array.isArray(events)) return events;
  return events.map((e: Record<string, unknown>) => ({
    id: e.id,
    url: e.url,
    trigger: e.trigger,
    response_status: e.response_status,
    execution_duration: e.execution_duration,
  }));
}

async function findEvent(
  api: ForgeApi,
  path: string,
  eventId: number,
  page?: number,
): Promise<ApiResult | string> {
  const pages = page !== undefined ? [page] : Array.from({ length: EVENT_PAGES }, (_, i) => i + 1);
  for (const p of pages) {
    const r = await api.get(path, { page: p, per_page: EVENT_PAGE });
    const list = Array.isArray(r.data) ? (r.data as Array<{ id?: unknown }>) : [];
    const hit = list.find((e) => e.id === eventId);
    if (hit) return { data: hit, page: undefined };
    if (r.page?.next_page == null || list.length === 0) break;
  }
  throw new Error(
    `event ${eventId} was not found ${page !== undefined ? `on page ${page}` : `in the newest ${EVENT_PAGES * EVENT_PAGE} deliveries`} of this hook`,
  );
}

export const webhookTools = [
  tool({
    name: "list_webhooks",
    description:
      "List the webhooks of a project or a group (URL, events, SSL verification; never the secret token).",
    write: false,
    endpoint: "GET /projects/:id/hooks (/groups/:id/hooks)",
    input: { ...owner, ...pagination },
    run: (api, { project_id, group_id, ...q }) => api.get(hooksPath({ project_id, group_id }), q),
  }),
  tool({
    name: "list_webhook_events",
    description:
      "List the recorded deliveries of a webhook, newest first (at most 20 a page); summary: true keeps only id, url, trigger, status and duration.",
    write: false,
    endpoint: "GET /projects/:id/hooks/:hook_id/events (/groups/:id/…)",
    input: {
      ...owner,
      hook_id: id,
      status,
      summary: z.boolean().optional(),
      page: pagination.page,
      per_page: z.number().int().min(1).max(EVENT_PAGE).optional().describe("Events per page (max 20)"),
    },
    run: async (api, { project_id, group_id, hook_id, summary, ...q }) => {
      const r = await api.get(`${hooksPath({ project_id, group_id })}/${hook_id}/events`, q);
      return summary ? { ...r, data: summarize(r.data) } : r;
    },
  }),
  tool({
    name: "get_webhook_event",
    description:
      "Read one recorded delivery of a webhook (request and response): from page when given, else from the newest 100.",
    write: false,
    endpoint: "GET /projects/:id/hooks/:hook_id/events (/groups/:id/…)",
    input: { ...owner, hook_id: id, event_id: id, page: pagination.page },
    run: (api, { project_id, group_id, hook_id, event_id, page }) =>
      findEvent(api, `${hooksPath({ project_id, group_id })}/${hook_id}/events`, event_id, page),
  }),
  tool({
    name: "create_webhook",
    description: "Add a webhook to a project or a group (events not given: push only).",
    write: true,
    endpoint: "POST /projects/:id/hooks (/groups/:id/hooks)",
    input: { ...owner, url: z.string().min(1), ...hookFields },
    run: async (api, { project_id, group_id, ...body }) =>
      withoutSecrets(await api.post(hooksPath({ project_id, group_id }), body)),
  }),
  tool({
    name: "update_webhook",
    description: "Change a webhook: only the fields given change.",
    write: true,
    endpoint: "PUT /projects/:id/hooks/:hook_id (/groups/:id/…)",
    input: { ...owner, hook_id: id, url: z.string().min(1).optional(), ...hookFields },
    run: async (api, { project_id, group_id, hook_id, ...body }) =>
      withoutSecrets(await api.put(`${hooksPath({ project_id, group_id })}/${hook_id}`, body)),
  }),
  tool({
    name: "delete_webhook",
    description: "Delete a webhook and its recorded deliveries.",
    write: true,
    destructive: true,
    endpoint: "DELETE /projects/:id/hooks/:hook_id (/groups/:id/…)",
    input: { ...owner, hook_id: id },
    run: (api, { project_id, group_id, hook_id }) =>
      api.delete(`${hooksPath({ project_id, group_id })}/${hook_id}`),
  }),
];
