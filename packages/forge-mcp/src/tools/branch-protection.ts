import { z } from "zod";
import { enc } from "../forge/api.js";
import { pagination, projectId, tool } from "./define.js";

/** Protected branches and external commit statuses (gitlab-mcp's branches toolset). */

const pb = (p: string | number) => `/projects/${enc(p)}/protected_branches`;
const level = z
  .union([z.literal(0), z.literal(30), z.literal(40), z.literal(60)])
  .describe("0 no one, 30 developers and maintainers, 40 maintainers, 60 admins");

export const branchProtectionTools = [
  tool({
    name: "list_protected_branches",
    description: "List a project's protected branches with who may push and merge.",
    write: false,
    endpoint: "GET /projects/:id/protected_branches",
    input: { project_id: projectId, search: z.string().optional(), ...pagination },
    run: (api, { project_id, ...q }) => api.get(pb(project_id), q),
  }),
  tool({
    name: "get_protected_branch",
    description: "Get one protected branch (or wildcard rule) by name.",
    write: false,
    endpoint: "GET /projects/:id/protected_branches/:name",
    input: { project_id: projectId, name: z.string().min(1) },
    run: (api, a) => api.get(`${pb(a.project_id)}/${enc(a.name)}`),
  }),
  tool({
    name: "protect_branch",
    description:
      "Protect a branch or a wildcard (release/*): who may push and merge, and whether force-push is allowed.",
    write: true,
    endpoint: "POST /projects/:id/protected_branches",
    input: {
      project_id: projectId,
      name: z.string().min(1),
      push_access_level: level.optional(),
      merge_access_level: level.optional(),
      allow_force_push: z.boolean().optional(),
    },
    run: (api, { project_id, ...body }) => api.post(pb(project_id), body),
  }),
  tool({
    name: "unprotect_branch",
    description:
      "Remove a branch's protection (anyone with push access may then push, force-push or delete it).",
    write: true,
    destructive: true,
    endpoint: "DELETE /projects/:id/protected_branches/:name",
    input: { project_id: projectId, name: z.string().min(1) },
    run: (api, a) => api.delete(`${pb(a.project_id)}/${enc(a.name)}`),
  }),
  tool({
    name: "list_commit_statuses",
    description: "List the statuses external systems set on a commit (CI elsewhere, checks).",
    write: false,
    endpoint: "GET /projects/:id/repository/commits/:sha/statuses",
    input: {
      project_id: projectId,
      sha: z.string().min(1),
      ref: z.string().optional(),
      name: z.string().optional(),
      ...pagination,
    },
    run: (api, { project_id, sha, ...q }) =>
      api.get(`/projects/${enc(project_id)}/repository/commits/${enc(sha)}/statuses`, q),
  }),
  tool({
    name: "create_commit_status",
    description:
      "Set a status on a commit for an external check (pending, running, success, failed, canceled, skipped).",
    write: true,
    endpoint: "POST /projects/:id/statuses/:sha",
    input: {
      project_id: projectId,
      sha: z.string().min(1),
      state: z.enum(["pending", "running", "success", "failed", "canceled", "skipped"]),
      name: z.string().optional().describe("The check's name (default: default)"),
      ref: z.string().optional(),
      target_url: z.string().url().optional(),
      description: z.string().optional(),
    },
    run: (api, { project_id, sha, ...body }) =>
      api.post(`/projects/${enc(project_id)}/statuses/${enc(sha)}`, body),
  }),
];
