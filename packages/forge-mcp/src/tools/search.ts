import { z } from "zod";
import { enc } from "../forge/api.js";
import { pagination, projectId, tool } from "./define.js";

/** Global, group and project search: one tool, the scope picks the kind of object. */

export const searchTools = [
  tool({
    name: "search",
    endpoint: "GET /search (/projects/:id/search, /groups/:id/search)",
    description:
      "Search the forge's content globally, in a group, or in a project (projects, issues, merge requests, code, commits, ...); to find a tool, use search_tools.",
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
];
