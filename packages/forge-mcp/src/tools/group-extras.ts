import { z } from "zod";
import { enc } from "../forge/api.js";
import { groupId, groupTreeFilters, pagination, tool } from "./define.js";

/** Creating a group, and a group's iterations (GitLab Premium). */

export const groupExtraTools = [
  tool({
    name: "create_group",
    description:
      "Create a group, or a subgroup under parent_id (you need to be allowed to create groups there).",
    write: true,
    endpoint: "POST /groups",
    input: {
      name: z.string().min(1),
      path: z.string().min(1).describe("The URL path segment"),
      description: z.string().optional(),
      visibility: z.enum(["private", "internal", "public"]).optional(),
      parent_id: z.number().int().positive().optional().describe("The parent group's id, for a subgroup"),
    },
    run: (api, body) => api.post("/groups", body),
  }),
  tool({
    name: "list_group_iterations",
    description: "List the iterations of a group (and its ancestors unless include_ancestors is false).",
    write: false,
    endpoint: "GET /groups/:id/iterations",
    input: {
      group_id: groupId,
      state: z.enum(["opened", "upcoming", "current", "closed", "all"]).optional(),
      search: z.string().optional(),
      ...groupTreeFilters,
      ...pagination,
    },
    run: (api, { group_id, ...q }) => api.get(`/groups/${enc(group_id)}/iterations`, q),
  }),
];
