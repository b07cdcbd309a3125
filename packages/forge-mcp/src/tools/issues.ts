import { z } from "zod";
import { enc } from "../forge/api.js";
import { id, iid, pagination, projectId, tool } from "./define.js";

const issue = (p: string | number, i: number) => `/projects/${enc(p)}/issues/${i}`;
const I = "/projects/:id/issues/:iid";
const ids = z.array(z.number().int().positive());

export const issueTools = [
  tool({
    name: "list_issues",
    description:
      "List issues of a project, or across all projects when project_id is omitted (then scope defaults to created_by_me, as on the forge; scope=all lists every visible issue).",
    write: false,
    endpoint: "GET /projects/:id/issues (GET /issues)",
    input: {
      project_id: projectId.optional(),
      scope: z.enum(["created_by_me", "assigned_to_me", "all"]).optional(),
      state: z.enum(["opened", "closed", "all"]).optional(),
      labels: z.string().optional().describe("Comma-separated label names"),
      milestone: z.string().optional().describe("Milestone title"),
      search: z.string().optional(),
      assignee_username: z.string().optional(),
      author_username: z.string().optional(),
      ...pagination,
    },
    run: (api, { project_id, ...q }) =>
      api.get(project_id === undefined ? "/issues" : `/projects/${enc(project_id)}/issues`, q),
  }),
  tool({
    name: "get_issue",
    description:
      "Get one issue by its project and internal id (iid, as list_issues shows it); its comments are list_issue_discussions.",
    write: false,
    endpoint: `GET ${I}`,
    input: { project_id: projectId, issue_iid: iid },
    run: (api, a) => api.get(issue(a.project_id, a.issue_iid)),
  }),
  tool({
    name: "create_issue",
    description: "Create an issue.",
    write: true,
    endpoint: "POST /projects/:id/issues",
    input: {
      project_id: projectId,
      title: z.string().min(1),
      description: z.string().optional(),
      labels: z.string().optional(),
      assignee_ids: ids.optional(),
      milestone_id: id.optional(),
      confidential: z.boolean().optional(),
      due_date: z.string().optional().describe("YYYY-MM-DD"),
    },
    run: (api, { project_id, ...body }) => api.post(`/projects/${enc(project_id)}/issues`, body),
  }),
  tool({
    name: "update_issue",
    description:
      "Update an issue: title, description, labels (set, add or remove), assignees, milestone, due date, or close/reopen it.",
    write: true,
    endpoint: `PUT ${I}`,
    input: {
      project_id: projectId,
      issue_iid: iid,
      title: z.string().optional(),
      description: z.string().optional(),
      labels: z.string().optional().describe("Comma-separated; replaces all labels"),
      add_labels: z.string().optional(),
      remove_labels: z.string().optional(),
      assignee_ids: ids.optional().describe("Replaces the assignees; [] unassigns everyone"),
      milestone_id: z.number().int().min(0).optional().describe("0 removes the milestone"),
      due_date: z.string().optional(),
      confidential: z.boolean().optional(),
      state_event: z.enum(["close", "reopen"]).optional(),
    },
    run: (api, { project_id, issue_iid, ...body }) => api.put(issue(project_id, issue_iid), body),
  }),
  tool({
    name: "delete_issue",
    description: "Delete an issue (project owners and admins only).",
    write: true,
    destructive: true,
    endpoint: `DELETE ${I}`,
    input: { project_id: projectId, issue_iid: iid },
    run: (api, a) => api.delete(issue(a.project_id, a.issue_iid)),
  }),
  tool({
    name: "list_issue_notes",
    description: "List the comments (notes) of an issue.",
    write: false,
    endpoint: `GET ${I}/notes`,
    input: { project_id: projectId, issue_iid: iid, sort: z.enum(["asc", "desc"]).optional(), ...pagination },
    run: (api, { project_id, issue_iid, ...q }) => api.get(`${issue(project_id, issue_iid)}/notes`, q),
  }),
  tool({
    name: "create_issue_note",
    description: "Add a comment to an issue.",
    write: true,
    endpoint: `POST ${I}/notes`,
    input: { project_id: projectId, issue_iid: iid, body: z.string().min(1) },
    run: (api, { project_id, issue_iid, body }) =>
      api.post(`${issue(project_id, issue_iid)}/notes`, { body }),
  }),
  tool({
    name: "update_issue_note",
    description: "Edit one of your comments on an issue.",
    write: true,
    endpoint: `PUT ${I}/notes/:note_id`,
    input: { project_id: projectId, issue_iid: iid, note_id: id, body: z.string().min(1) },
    run: (api, { project_id, issue_iid, note_id, body }) =>
      api.put(`${issue(project_id, issue_iid)}/notes/${note_id}`, { body }),
  }),
  tool({
    name: "list_issue_discussions",
    description: "List the discussion threads of an issue (comments with their replies).",
    write: false,
    endpoint: `GET ${I}/discussions`,
    input: { project_id: projectId, issue_iid: iid, ...pagination },
    run: (api, { project_id, issue_iid, ...q }) => api.get(`${issue(project_id, issue_iid)}/discussions`, q),
  }),
  tool({
    name: "create_issue_thread",
    description: "Start a discussion thread on an issue (a comment others can reply to).",
    write: true,
    endpoint: `POST ${I}/discussions`,
    input: { project_id: projectId, issue_iid: iid, body: z.string().min(1) },
    run: (api, { project_id, issue_iid, body }) =>
      api.post(`${issue(project_id, issue_iid)}/discussions`, { body }),
  }),
  tool({
    name: "reply_to_issue_thread",
    description: "Reply in an existing discussion thread of an issue.",
    write: true,
    endpoint: `POST ${I}/discussions/:discussion_id/notes`,
    input: {
      project_id: projectId,
      issue_iid: iid,
      discussion_id: z.string().min(1),
      body: z.string().min(1),
    },
    run: (api, { project_id, issue_iid, discussion_id, body }) =>
      api.post(`${issue(project_id, issue_iid)}/discussions/${enc(discussion_id)}/notes`, {
        body,
      }),
  }),
  tool({
    name: "list_issue_links",
    description: "List the issues linked to an issue (relates_to, blocks, is_blocked_by).",
    write: false,
    endpoint: `GET ${I}/links`,
    input: { project_id: projectId, issue_iid: iid },
    run: (api, a) => api.get(`${issue(a.project_id, a.issue_iid)}/links`),
  }),
  tool({
    name: "create_issue_link",
    description: "Link an issue to another issue, possibly in another project.",
    write: true,
    endpoint: `POST ${I}/links`,
    input: {
      project_id: projectId,
      issue_iid: iid,
      target_project_id: projectId,
      target_issue_iid: iid,
      link_type: z.enum(["relates_to", "blocks", "is_blocked_by"]).optional(),
    },
    run: (api, { project_id, issue_iid, ...body }) => api.post(`${issue(project_id, issue_iid)}/links`, body),
  }),
  tool({
    name: "delete_issue_link",
    description: "Remove a link between two issues (issue_link_id from list_issue_links).",
    write: true,
    destructive: true,
    endpoint: `DELETE ${I}/links/:issue_link_id`,
    input: { project_id: projectId, issue_iid: iid, issue_link_id: id },
    run: (api, a) => api.delete(`${issue(a.project_id, a.issue_iid)}/links/${a.issue_link_id}`),
  }),
  tool({
    name: "my_issues",
    description:
      "List the issues assigned to you across all projects (open ones unless state says otherwise).",
    write: false,
    endpoint: "GET /issues",
    input: {
      state: z.enum(["opened", "closed", "all"]).optional(),
      labels: z.string().optional().describe("Comma-separated label names"),
      search: z.string().optional(),
      ...pagination,
    },
    run: (api, { state, ...q }) =>
      api.get("/issues", { scope: "assigned_to_me", state: state ?? "opened", ...q }),
  }),
  tool({
    name: "create_note",
    description: "Add a comment (note) to an issue or a merge request.",
    write: true,
    endpoint: "POST /projects/:id/issues/:iid/notes (…/merge_requests/:iid/notes)",
    input: {
      project_id: projectId,
      noteable_type: z.enum(["issue", "merge_request"]),
      noteable_iid: iid,
      body: z.string().min(1),
    },
    run: (api, a) =>
      api.post(
        `/projects/${enc(a.project_id)}/${a.noteable_type === "issue" ? "issues" : "merge_requests"}/${a.noteable_iid}/notes`,
        { body: a.body },
      ),
  }),
];
