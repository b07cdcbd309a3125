import { z } from "zod";
import { enc } from "../forge/api.js";
import { iid, pagination, projectId, tool } from "./define.js";

const mr = (p: string | number, i: number) => `/projects/${enc(p)}/merge_requests/${i}`;

export const mergeRequestTools = [
  tool({
    name: "list_merge_requests",
    description: "List merge requests of a project, or across projects when project_id is omitted.",
    write: false,
    input: {
      project_id: projectId.optional(),
      state: z.enum(["opened", "closed", "locked", "merged", "all"]).optional(),
      scope: z.enum(["created_by_me", "assigned_to_me", "all"]).optional(),
      source_branch: z.string().optional(),
      target_branch: z.string().optional(),
      search: z.string().optional(),
      ...pagination,
    },
    run: (api, { project_id, ...q }) =>
      api.get(
        project_id === undefined ? "/merge_requests" : `/projects/${enc(project_id)}/merge_requests`,
        q,
      ),
  }),
  tool({
    name: "get_merge_request",
    description: "Get one merge request by its project and iid.",
    write: false,
    input: { project_id: projectId, merge_request_iid: iid },
    run: (api, a) => api.get(mr(a.project_id, a.merge_request_iid)),
  }),
  tool({
    name: "get_merge_request_diffs",
    description: "List the file changes (diffs) of a merge request.",
    write: false,
    input: { project_id: projectId, merge_request_iid: iid, ...pagination },
    run: (api, { project_id, merge_request_iid, ...q }) =>
      api.get(`${mr(project_id, merge_request_iid)}/diffs`, q),
  }),
  tool({
    name: "create_merge_request",
    description: "Open a merge request from source_branch into target_branch.",
    write: true,
    input: {
      project_id: projectId,
      source_branch: z.string().min(1),
      target_branch: z.string().min(1),
      title: z.string().min(1),
      description: z.string().optional(),
      draft: z.boolean().optional(),
    },
    run: (api, { project_id, draft, title, ...body }) =>
      api.post(`/projects/${enc(project_id)}/merge_requests`, {
        ...body,
        title: draft ? `Draft: ${title}` : title,
      }),
  }),
  tool({
    name: "list_merge_request_discussions",
    description: "List the discussion threads of a merge request (review comments with their replies).",
    write: false,
    input: { project_id: projectId, merge_request_iid: iid, ...pagination },
    run: (api, { project_id, merge_request_iid, ...q }) =>
      api.get(`${mr(project_id, merge_request_iid)}/discussions`, q),
  }),
  tool({
    name: "create_merge_request_note",
    description: "Add a comment to a merge request.",
    write: true,
    input: { project_id: projectId, merge_request_iid: iid, body: z.string().min(1) },
    run: (api, { project_id, merge_request_iid, body }) =>
      api.post(`${mr(project_id, merge_request_iid)}/notes`, { body }),
  }),
  tool({
    name: "get_merge_request_approvals",
    description: "Show the approval state of a merge request.",
    write: false,
    input: { project_id: projectId, merge_request_iid: iid },
    run: (api, a) => api.get(`${mr(a.project_id, a.merge_request_iid)}/approvals`),
  }),
  tool({
    name: "approve_merge_request",
    description: "Approve a merge request as the current user.",
    write: true,
    input: { project_id: projectId, merge_request_iid: iid },
    run: (api, a) => api.post(`${mr(a.project_id, a.merge_request_iid)}/approve`),
  }),
  tool({
    name: "merge_merge_request",
    description: "Merge a merge request (optionally squashing, or when its pipeline succeeds).",
    write: true,
    input: {
      project_id: projectId,
      merge_request_iid: iid,
      squash: z.boolean().optional(),
      should_remove_source_branch: z.boolean().optional(),
      merge_when_pipeline_succeeds: z.boolean().optional(),
    },
    run: (api, { project_id, merge_request_iid, ...body }) =>
      api.put(`${mr(project_id, merge_request_iid)}/merge`, body),
  }),
];
