import { z } from "zod";
import { type ApiResult, enc } from "../forge/api.js";
import { ForgeHttpError } from "../forge/http.js";
import { groupId, iid, pagination, projectId, tool } from "./define.js";

export const mr = (p: string | number, i: number) => `/projects/${enc(p)}/merge_requests/${i}`;
const MR = "/projects/:id/merge_requests/:iid";
const ids = z.array(z.number().int().positive());

/**
 * A merge or an approval given the head `sha` the caller reviewed: GitLab refuses it (409) when the
 * source branch has moved since, and the model is told what that means and what to do, rather than
 * handed the forge's terse wording.
 */
async function shaGuarded(call: Promise<ApiResult>, sha: string | undefined, what: string) {
  try {
    return await call;
  } catch (err) {
    if (sha === undefined || !(err instanceof ForgeHttpError) || err.status !== 409) throw err;
    if (!/SHA does not match/i.test(err.message)) throw err;
    const head = /source branch:\s*([0-9a-f]{7,64})/i.exec(err.message)?.[1];
    const moved = head ? `its head is now ${head}, not ${sha}` : `its head is no longer ${sha}`;
    throw new ForgeHttpError(
      409,
      `Not ${what}: the source branch moved after you read the merge request (${moved}). Read it again (get_merge_request and its diffs), review the new commits, then retry with the current sha.`,
      err.body,
    );
  }
}
/** The filters of merge request lists (a project's, everyone's, a group's). */
const mrFilters = {
  state: z.enum(["opened", "closed", "locked", "merged", "all"]).optional(),
  scope: z.enum(["created_by_me", "assigned_to_me", "all"]).optional(),
  source_branch: z.string().optional(),
  target_branch: z.string().optional(),
  labels: z.string().optional().describe("Comma-separated label names"),
  search: z.string().optional(),
  ...pagination,
};

export const mergeRequestTools = [
  tool({
    name: "list_merge_requests",
    description: "List merge requests of a project, or across projects when project_id is omitted.",
    write: false,
    endpoint: "GET /projects/:id/merge_requests (GET /merge_requests)",
    input: { project_id: projectId.optional(), ...mrFilters },
    run: (api, { project_id, ...q }) =>
      api.get(
        project_id === undefined ? "/merge_requests" : `/projects/${enc(project_id)}/merge_requests`,
        q,
      ),
  }),
  tool({
    name: "get_merge_request",
    description:
      "Get one merge request by its project and iid: state, branches, SHAs, diff_refs. Its file changes are get_merge_request_diffs, its threads mr_discussions.",
    write: false,
    endpoint: `GET ${MR}`,
    input: { project_id: projectId, merge_request_iid: iid },
    run: (api, a) => api.get(mr(a.project_id, a.merge_request_iid)),
  }),
  tool({
    name: "get_merge_request_diffs",
    description: "List the file changes (diffs) of a merge request, one page at a time.",
    write: false,
    endpoint: `GET ${MR}/diffs`,
    input: { project_id: projectId, merge_request_iid: iid, ...pagination },
    run: (api, { project_id, merge_request_iid, ...q }) =>
      api.get(`${mr(project_id, merge_request_iid)}/diffs`, q),
  }),
  tool({
    name: "get_merge_request_changes",
    description:
      "Get a merge request with all its file changes in one answer (unpaged; prefer diffs for big MRs).",
    write: false,
    endpoint: `GET ${MR}/changes`,
    input: { project_id: projectId, merge_request_iid: iid },
    run: (api, a) => api.get(`${mr(a.project_id, a.merge_request_iid)}/changes`),
  }),
  tool({
    name: "list_merge_request_commits",
    description: "List the commits of a merge request.",
    write: false,
    endpoint: `GET ${MR}/commits`,
    input: { project_id: projectId, merge_request_iid: iid, ...pagination },
    run: (api, { project_id, merge_request_iid, ...q }) =>
      api.get(`${mr(project_id, merge_request_iid)}/commits`, q),
  }),
  tool({
    name: "list_merge_request_pipelines",
    description: "List the pipelines that ran for a merge request.",
    write: false,
    endpoint: `GET ${MR}/pipelines`,
    input: { project_id: projectId, merge_request_iid: iid, ...pagination },
    run: (api, { project_id, merge_request_iid, ...q }) =>
      api.get(`${mr(project_id, merge_request_iid)}/pipelines`, q),
  }),
  tool({
    name: "get_merge_request_conflicts",
    description: "List the merge conflicts of a merge request (files with their conflicting sections).",
    write: false,
    endpoint: `GET ${MR}/conflicts`,
    input: { project_id: projectId, merge_request_iid: iid },
    run: (api, a) => api.get(`${mr(a.project_id, a.merge_request_iid)}/conflicts`),
  }),
  tool({
    name: "create_merge_request",
    description: "Open a merge request from source_branch into target_branch.",
    write: true,
    endpoint: "POST /projects/:id/merge_requests",
    input: {
      project_id: projectId,
      source_branch: z.string().min(1),
      target_branch: z.string().min(1),
      title: z.string().min(1),
      description: z.string().optional(),
      labels: z.string().optional(),
      assignee_ids: ids.optional(),
      reviewer_ids: ids.optional(),
      draft: z.boolean().optional(),
      remove_source_branch: z.boolean().optional(),
      squash: z.boolean().optional(),
    },
    run: (api, { project_id, draft, title, ...body }) =>
      api.post(`/projects/${enc(project_id)}/merge_requests`, {
        ...body,
        title: draft ? `Draft: ${title}` : title,
      }),
  }),
  tool({
    name: "update_merge_request",
    description:
      "Update a merge request: title, description, target branch, labels (set, add or remove), assignees, reviewers, milestone, draft, or close/reopen it.",
    write: true,
    endpoint: `PUT ${MR}`,
    input: {
      project_id: projectId,
      merge_request_iid: iid,
      title: z.string().min(1).optional(),
      description: z.string().optional(),
      target_branch: z.string().optional(),
      labels: z.string().optional().describe("Comma-separated; replaces all labels"),
      add_labels: z.string().optional(),
      remove_labels: z.string().optional(),
      assignee_ids: ids.optional().describe("Replaces the assignees; [] unassigns everyone"),
      reviewer_ids: ids.optional().describe("Replaces the reviewers; [] removes them"),
      milestone_id: z.number().int().min(0).optional().describe("0 removes the milestone"),
      draft: z.boolean().optional(),
      squash: z.boolean().optional(),
      remove_source_branch: z.boolean().optional(),
      state_event: z.enum(["close", "reopen"]).optional(),
    },
    run: (api, { project_id, merge_request_iid, ...body }) =>
      api.put(mr(project_id, merge_request_iid), body),
  }),
  tool({
    name: "get_merge_request_approvals",
    description: "Show the approval state of a merge request.",
    write: false,
    endpoint: `GET ${MR}/approvals`,
    input: { project_id: projectId, merge_request_iid: iid },
    run: (api, a) => api.get(`${mr(a.project_id, a.merge_request_iid)}/approvals`),
  }),
  tool({
    name: "approve_merge_request",
    description: "Approve a merge request as the current user (optionally only if its head is sha).",
    write: true,
    endpoint: `POST ${MR}/approve`,
    input: { project_id: projectId, merge_request_iid: iid, sha: z.string().optional() },
    run: (api, { project_id, merge_request_iid, ...body }) =>
      shaGuarded(api.post(`${mr(project_id, merge_request_iid)}/approve`, body), body.sha, "approved"),
  }),
  tool({
    name: "unapprove_merge_request",
    description: "Withdraw the current user's approval of a merge request.",
    write: true,
    endpoint: `POST ${MR}/unapprove`,
    input: { project_id: projectId, merge_request_iid: iid },
    run: (api, a) => api.post(`${mr(a.project_id, a.merge_request_iid)}/unapprove`),
  }),
  tool({
    name: "merge_merge_request",
    description:
      "Merge a merge request: optionally squash, remove the source branch, set the commit messages, require the head sha, or merge when its pipeline succeeds.",
    write: true,
    endpoint: `PUT ${MR}/merge`,
    input: {
      project_id: projectId,
      merge_request_iid: iid,
      squash: z.boolean().optional(),
      should_remove_source_branch: z.boolean().optional(),
      merge_when_pipeline_succeeds: z.boolean().optional(),
      auto_merge: z.boolean().optional().describe("Merge once the pipeline succeeds (GitLab 17+)"),
      merge_commit_message: z.string().optional(),
      squash_commit_message: z.string().optional(),
      sha: z.string().optional().describe("Refuse (409) unless the source head is this sha"),
    },
    run: (api, { project_id, merge_request_iid, ...body }) =>
      shaGuarded(api.put(`${mr(project_id, merge_request_iid)}/merge`, body), body.sha, "merged"),
  }),
  tool({
    name: "list_group_merge_requests",
    description: "List the merge requests of a group's projects, subgroups included.",
    write: false,
    endpoint: "GET /groups/:id/merge_requests",
    input: { group_id: groupId, ...mrFilters },
    run: (api, { group_id, ...q }) => api.get(`/groups/${enc(group_id)}/merge_requests`, q),
  }),
];
