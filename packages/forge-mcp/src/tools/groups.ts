import { z } from "zod";
import { enc } from "../forge/api.js";
import { groupId, pagination, tool } from "./define.js";

const G = "/groups/:id";

export const groupTools = [
  tool({
    name: "get_group",
    description: "Get one group by id or full path.",
    write: false,
    endpoint: `GET ${G}`,
    input: { group_id: groupId },
    run: (api, a) => api.get(`/groups/${enc(a.group_id)}`, { with_projects: false }),
  }),
  tool({
    name: "list_group_projects",
    description: "List the projects of a group (and of its subgroups with include_subgroups).",
    write: false,
    endpoint: `GET ${G}/projects`,
    input: {
      group_id: groupId,
      include_subgroups: z.boolean().optional(),
      search: z.string().optional(),
      archived: z.boolean().optional(),
      order_by: z.enum(["id", "name", "path", "created_at", "updated_at", "last_activity_at"]).optional(),
      ...pagination,
    },
    run: (api, { group_id, ...q }) => api.get(`/groups/${enc(group_id)}/projects`, q),
  }),
  tool({
    name: "list_group_members",
    description: "List the members of a group; with inherited, also members of its parent groups.",
    write: false,
    endpoint: `GET ${G}/members (…/members/all)`,
    input: {
      group_id: groupId,
      inherited: z.boolean().optional(),
      query: z.string().optional(),
      ...pagination,
    },
    run: (api, { group_id, inherited, ...q }) =>
      api.get(`/groups/${enc(group_id)}/members${inherited ? "/all" : ""}`, q),
  }),
  tool({
    name: "list_namespaces",
    description: "List the namespaces (your own and your groups) you can create projects in.",
    write: false,
    endpoint: "GET /namespaces",
    input: { search: z.string().optional(), owned_only: z.boolean().optional(), ...pagination },
    run: (api, q) => api.get("/namespaces", q),
  }),
  tool({
    name: "get_namespace",
    description: "Get one namespace (a user's or a group's) by id or path.",
    write: false,
    endpoint: "GET /namespaces/:id",
    input: { namespace_id: groupId },
    run: (api, a) => api.get(`/namespaces/${enc(a.namespace_id)}`),
  }),
  tool({
    name: "verify_namespace",
    description:
      "Check whether a namespace path is taken (at the top level, or under parent_id for a subgroup), with a free alternative when it is.",
    write: false,
    endpoint: "GET /namespaces/:id/exists",
    input: {
      namespace: z.string().min(1).describe("The path to check (one segment)"),
      parent_id: z
        .union([z.string().min(1), z.number().int()])
        .optional()
        .describe("Parent group id or path"),
    },
    run: (api, a) => api.get(`/namespaces/${enc(a.namespace)}/exists`, { parent_id: a.parent_id }),
  }),
];
