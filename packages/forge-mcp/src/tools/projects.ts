import { z } from "zod";
import { enc } from "../forge/api.js";
import { pagination, projectId, tool } from "./define.js";

export const projectTools = [
  tool({
    name: "list_projects",
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
    description: "Get one project by id or full path.",
    write: false,
    input: { project_id: projectId },
    run: (api, a) => api.get(`/projects/${enc(a.project_id)}`),
  }),
  tool({
    name: "search",
    description:
      "Search the forge globally, in a group, or in a project (projects, issues, merge requests, code, commits, ...).",
    write: false,
    input: {
      scope: z.enum([
        "projects",
        "issues",
        "merge_requests",
        "milestones",
        "users",
        "blobs",
        "commits",
        "notes",
        "wiki_blobs",
      ]),
      search: z.string().min(1),
      project_id: projectId.optional(),
      group_id: z.union([z.string(), z.number().int()]).optional(),
      ...pagination,
    },
    run: (api, { project_id, group_id, ...q }) => {
      if (project_id !== undefined) return api.get(`/projects/${enc(project_id)}/search`, q);
      if (group_id !== undefined) return api.get(`/groups/${enc(group_id)}/search`, q);
      return api.get("/search", q);
    },
  }),
  tool({
    name: "list_groups",
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
];
