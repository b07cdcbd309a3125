import { z } from "zod";
import { enc } from "../forge/api.js";
import { iid, pagination, projectId, tool } from "./define.js";
import { mr } from "./merge-requests.js";

/** Review threads and comments on merge requests, including line-level diff threads. */

const MR = "/projects/:id/merge_requests/:iid";

const position = z
  .object({
    base_sha: z.string().min(1),
    start_sha: z.string().min(1),
    head_sha: z.string().min(1),
    position_type: z.literal("text").default("text"),
    new_path: z.string().optional(),
    old_path: z.string().optional(),
    new_line: z.number().int().positive().optional().describe("Line in the new file (added or unchanged)"),
    old_line: z.number().int().positive().optional().describe("Line in the old file (removed or unchanged)"),
  })
  .refine((p) => p.new_line !== undefined || p.old_line !== undefined, {
    message: "a diff position needs new_line, old_line or both",
  })
  .describe("Where on the diff: the shas come from the MR's diff_refs (get_merge_request)");

export const mrDiscussionTools = [
  tool({
    name: "mr_discussions",
    aliases: ["list_merge_request_discussions"],
    description: "List the discussion threads of a merge request (review comments with their replies).",
    write: false,
    endpoint: `GET ${MR}/discussions`,
    input: { project_id: projectId, merge_request_iid: iid, ...pagination },
    run: (api, { project_id, merge_request_iid, ...q }) =>
      api.get(`${mr(project_id, merge_request_iid)}/discussions`, q),
  }),
  tool({
    name: "get_merge_request_notes",
    aliases: ["list_merge_request_notes"],
    description: "List the comments (notes) of a merge request, flat, including system notes.",
    write: false,
    endpoint: `GET ${MR}/notes`,
    input: {
      project_id: projectId,
      merge_request_iid: iid,
      sort: z.enum(["asc", "desc"]).optional(),
      order_by: z.enum(["created_at", "updated_at"]).optional(),
      ...pagination,
    },
    run: (api, { project_id, merge_request_iid, ...q }) =>
      api.get(`${mr(project_id, merge_request_iid)}/notes`, q),
  }),
  tool({
    name: "create_merge_request_note",
    description: "Add a comment to a merge request.",
    write: true,
    endpoint: `POST ${MR}/notes`,
    input: { project_id: projectId, merge_request_iid: iid, body: z.string().min(1) },
    run: (api, { project_id, merge_request_iid, body }) =>
      api.post(`${mr(project_id, merge_request_iid)}/notes`, { body }),
  }),
  tool({
    name: "create_merge_request_thread",
    description: "Start a resolvable review thread on a merge request; with position, on a line of its diff.",
    write: true,
    endpoint: `POST ${MR}/discussions`,
    input: {
      project_id: projectId,
      merge_request_iid: iid,
      body: z.string().min(1),
      position: position.optional(),
    },
    run: (api, { project_id, merge_request_iid, ...body }) =>
      api.post(`${mr(project_id, merge_request_iid)}/discussions`, body),
  }),
  tool({
    name: "create_merge_request_discussion_note",
    aliases: ["reply_to_merge_request_thread"],
    description: "Reply in an existing discussion thread of a merge request.",
    write: true,
    endpoint: `POST ${MR}/discussions/:discussion_id/notes`,
    input: {
      project_id: projectId,
      merge_request_iid: iid,
      discussion_id: z.string().min(1),
      body: z.string().min(1),
    },
    run: (api, { project_id, merge_request_iid, discussion_id, body }) =>
      api.post(`${mr(project_id, merge_request_iid)}/discussions/${enc(discussion_id)}/notes`, {
        body,
      }),
  }),
  tool({
    name: "resolve_merge_request_thread",
    description: "Resolve (or, with resolved=false, reopen) a review thread of a merge request.",
    write: true,
    endpoint: `PUT ${MR}/discussions/:discussion_id`,
    input: {
      project_id: projectId,
      merge_request_iid: iid,
      discussion_id: z.string().min(1),
      resolved: z.boolean().default(true),
    },
    run: (api, { project_id, merge_request_iid, discussion_id, resolved }) =>
      api.put(`${mr(project_id, merge_request_iid)}/discussions/${enc(discussion_id)}`, {
        resolved,
      }),
  }),
  tool({
    name: "get_merge_request_discussion",
    description: "Get one discussion thread of a merge request with all its notes.",
    write: false,
    endpoint: `GET ${MR}/discussions/:discussion_id`,
    input: { project_id: projectId, merge_request_iid: iid, discussion_id: z.string().min(1) },
    run: (api, { project_id, merge_request_iid, discussion_id }) =>
      api.get(`${mr(project_id, merge_request_iid)}/discussions/${enc(discussion_id)}`),
  }),
];
