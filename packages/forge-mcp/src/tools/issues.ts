import { z } from "zod";
import { enc } from "../forge/api.js";
import { iid, pagination, projectId, tool } from "./define.js";

export const issueTools = [
  tool({
    name: "list_issues",
    description: "List issues of a project, or of all projects the user can see when project_id is omitted.",
    write: false,
    input: {
      project_id: projectId.optional(),
      state: z.enum(["opened", "closed", "all"]).optional(),
      labels: z.string().optional().describe("Comma-separated label names"),
      search: z.string().optional(),
      assignee_username: z.string().optional(),
      ...pagination,
    },
    run: (api, { project_id, ...q }) =>
      api.get(project_id === undefined ? "/issues" : `/projects/${enc(project_id)}/issues`, q),
  }),
  tool({
    name: "get_issue",
    description: "Get one issue by its project and internal id (iid).",
    write: false,
    input: { project_id: projectId, issue_iid: iid },
    run: (api, a) => api.get(`/projects/${enc(a.project_id)}/issues/${a.issue_iid}`),
  }),
  tool({
    name: "create_issue",
    description: "Create an issue.",
    write: true,
    input: {
      project_id: projectId,
      title: z.string().min(1),
      description: z.string().optional(),
      labels: z.string().optional(),
      assignee_ids: z.array(z.number().int()).optional(),
    },
    run: (api, { project_id, ...body }) => api.post(`/projects/${enc(project_id)}/issues`, body),
  }),
  tool({
    name: "update_issue",
    description: "Update an issue: title, description, labels, or close/reopen it (state_event).",
    write: true,
    input: {
      project_id: projectId,
      issue_iid: iid,
      title: z.string().optional(),
      description: z.string().optional(),
      labels: z.string().optional(),
      state_event: z.enum(["close", "reopen"]).optional(),
    },
    run: (api, { project_id, issue_iid, ...body }) =>
      api.put(`/projects/${enc(project_id)}/issues/${issue_iid}`, body),
  }),
  tool({
    name: "list_issue_notes",
    description: "List the comments (notes) of an issue.",
    write: false,
    input: { project_id: projectId, issue_iid: iid, sort: z.enum(["asc", "desc"]).optional(), ...pagination },
    run: (api, { project_id, issue_iid, ...q }) =>
      api.get(`/projects/${enc(project_id)}/issues/${issue_iid}/notes`, q),
  }),
  tool({
    name: "create_issue_note",
    description: "Add a comment to an issue.",
    write: true,
    input: { project_id: projectId, issue_iid: iid, body: z.string().min(1) },
    run: (api, { project_id, issue_iid, body }) =>
      api.post(`/projects/${enc(project_id)}/issues/${issue_iid}/notes`, { body }),
  }),
];
