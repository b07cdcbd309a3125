import { z } from "zod";
import { enc } from "../forge/api.js";
import { pagination, projectId, tool } from "./define.js";

export const projectTools = [
  tool({
    name: "list_projects",
    endpoint: "GET /projects",
    description: "List projects visible to the user, optionally filtered by a search term or membership.",
    write: false,
    input: {
      search: z.string().optional(),
      membership: z.boolean().optional().describe("Only projects the user is a member of"),
      owned: z.boolean().optional(),
      archived: z.boolean().optional(),
      order_by: z.enum(["id", "name", "path", "created_at", "updated_at", "last_activity_at"]).optional(),
      ...pagination,
    },
    run: (api, a) => api.get("/projects", a),
  }),
  tool({
    name: "get_project",
    endpoint: "GET /projects/:id",
    description: "Get one project by id or full path.",
    write: false,
    input: { project_id: projectId },
    run: (api, a) => api.get(`/projects/${enc(a.project_id)}`),
  }),
  tool({
    name: "list_groups",
    endpoint: "GET /groups",
    description:
      "List groups the user can see (each with its full path), optionally filtered by a search term.",
    write: false,
    input: {
      search: z.string().optional(),
      min_access_level: z
        .number()
        .int()
        .optional()
        .describe("10 guest, 20 reporter, 30 developer, 40 maintainer, 50 owner"),
      ...pagination,
    },
    run: (api, q) => api.get("/groups", q),
  }),
  tool({
    name: "create_repository",
    aliases: ["create_project"],
    description: "Create a project (a repository) in the user's namespace or in a group (namespace_id).",
    write: true,
    endpoint: "POST /projects",
    input: {
      name: z.string().min(1),
      path: z.string().optional(),
      namespace_id: z
        .number()
        .int()
        .positive()
        .optional()
        .describe("Group or namespace id (list_namespaces)"),
      description: z.string().optional(),
      visibility: z.enum(["private", "internal", "public"]).optional(),
      initialize_with_readme: z.boolean().optional(),
      default_branch: z.string().optional(),
    },
    run: (api, body) => api.post("/projects", body),
  }),
  tool({
    name: "fork_repository",
    description: "Fork a project into the user's namespace or another namespace.",
    write: true,
    endpoint: "POST /projects/:id/fork",
    input: {
      project_id: projectId,
      namespace_path: z.string().optional().describe("Target namespace full path (default: your own)"),
      name: z.string().optional(),
      path: z.string().optional(),
    },
    run: (api, { project_id, ...body }) => api.post(`/projects/${enc(project_id)}/fork`, body),
  }),
  tool({
    name: "search_repositories",
    endpoint: "GET /projects",
    description: "Search the projects visible to the user by name, path or description.",
    write: false,
    input: {
      search: z.string().min(1),
      search_namespaces: z.boolean().optional().describe("Match the namespace path too"),
      ...pagination,
    },
    run: (api, a) => api.get("/projects", a),
  }),
  tool({
    name: "list_project_members",
    endpoint: "GET /projects/:id/members (…/members/all)",
    description:
      "List a project's members with their access levels; include_inheritance adds those who are members through its groups.",
    write: false,
    input: {
      project_id: projectId,
      include_inheritance: z.boolean().optional(),
      query: z.string().optional().describe("Filter by name or username"),
      ...pagination,
    },
    run: (api, { project_id, include_inheritance, ...q }) =>
      api.get(`/projects/${enc(project_id)}/members${include_inheritance ? "/all" : ""}`, q),
  }),
  tool({
    name: "health_check",
    endpoint: "GET /version (GET /job with a CI/CD job token)",
    description:
      "Check that the forge answers with this token, and report its version and revision (with a CI/CD job token: the token's running job instead, as GitLab does not show its version to job tokens).",
    write: false,
    input: {},
    run: async (api) => {
      if (api.tokenKind !== "job") return api.get("/version");
      // GitLab reads a job token only on its job-token endpoints; /version is not one of them
      const job = await api.get("/job");
      return {
        ...job,
        data: {
          reachable: true,
          token: "ci_job_token",
          job: job.data,
          version: null,
          version_note:
            "GitLab does not serve /version to a CI/CD job token; a personal access token with read_api reads it",
        },
      };
    },
  }),
  tool({
    name: "update_project",
    endpoint: "PUT /projects/:id",
    description: "Change a project's name, description, visibility or default branch.",
    write: true,
    input: {
      project_id: projectId,
      name: z.string().min(1).optional(),
      description: z.string().optional(),
      visibility: z.enum(["private", "internal", "public"]).optional(),
      default_branch: z.string().min(1).optional(),
    },
    run: (api, { project_id, ...body }) => api.put(`/projects/${enc(project_id)}`, body),
  }),
  tool({
    name: "update_default_branch",
    endpoint: "PUT /projects/:id",
    description: "Make an existing branch the project's default branch.",
    write: true,
    input: { project_id: projectId, default_branch: z.string().min(1) },
    run: (api, a) => api.put(`/projects/${enc(a.project_id)}`, { default_branch: a.default_branch }),
  }),
];
