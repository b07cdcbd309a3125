import { z } from "zod";
import { enc } from "../forge/api.js";
import { ForgeHttpError } from "../forge/http.js";
import { id, pagination, projectId, tool } from "./define.js";

const eventFilters = {
  action: z
    .enum([
      "approved",
      "closed",
      "commented",
      "created",
      "destroyed",
      "expired",
      "joined",
      "left",
      "merged",
      "pushed",
      "reopened",
      "updated",
    ])
    .optional(),
  target_type: z
    .enum(["epic", "issue", "merge_request", "milestone", "note", "project", "snippet", "user"])
    .optional(),
  before: z.string().optional().describe("YYYY-MM-DD"),
  after: z.string().optional().describe("YYYY-MM-DD"),
  sort: z.enum(["asc", "desc"]).optional(),
  ...pagination,
};

export const userTools = [
  tool({
    name: "whoami",
    aliases: ["get_current_user"],
    description: "Who am I: the forge user behind the current token.",
    write: false,
    endpoint: "GET /user",
    input: {},
    run: (api) => api.get("/user"),
  }),
  tool({
    name: "list_users",
    description: "Find users by name, username or email.",
    write: false,
    endpoint: "GET /users",
    input: { search: z.string().optional(), username: z.string().optional(), ...pagination },
    run: (api, q) => api.get("/users", q),
  }),
  tool({
    name: "get_user",
    description: "Get one user by numeric id or by username.",
    write: false,
    endpoint: "GET /users/:id (GET /users?username=)",
    input: { user: z.union([id, z.string().min(1)]).describe("User id, or username") },
    run: async (api, { user }) => {
      if (typeof user === "number" || /^\d+$/.test(user)) return api.get(`/users/${user}`);
      const r = await api.get("/users", { username: user.replace(/^@/, "") });
      const found = Array.isArray(r.data) ? r.data[0] : undefined;
      if (!found) throw new ForgeHttpError(404, "404 User Not Found", undefined);
      return { data: found, page: undefined };
    },
  }),
  tool({
    name: "list_todos",
    description: "List your to-do items (review requests, mentions, assignments), pending by default.",
    write: false,
    endpoint: "GET /todos",
    input: {
      state: z.enum(["pending", "done"]).optional(),
      action: z
        .enum([
          "assigned",
          "mentioned",
          "build_failed",
          "marked",
          "approval_required",
          "directly_addressed",
          "review_requested",
        ])
        .optional(),
      type: z
        .enum([
          "Issue",
          "MergeRequest",
          "Commit",
          "Epic",
          "DesignManagement::Design",
          "AlertManagement::Alert",
        ])
        .optional(),
      project_id: id.optional(),
      ...pagination,
    },
    run: (api, q) => api.get("/todos", q),
  }),
  tool({
    name: "mark_todo_done",
    description: "Mark one to-do item as done.",
    write: true,
    endpoint: "POST /todos/:id/mark_as_done",
    input: { todo_id: id },
    run: (api, a) => api.post(`/todos/${a.todo_id}/mark_as_done`),
  }),
  tool({
    name: "list_events",
    description: "Your recent activity (pushes, comments, merges, …), or another user's with user.",
    write: false,
    endpoint: "GET /events (GET /users/:id/events)",
    input: {
      user: z
        .union([id, z.string().min(1)])
        .optional()
        .describe("User id or username"),
      ...eventFilters,
    },
    run: (api, { user, ...q }) =>
      api.get(user === undefined ? "/events" : `/users/${enc(String(user).replace(/^@/, ""))}/events`, q),
  }),
  tool({
    name: "get_project_events",
    description: "Recent activity in a project.",
    write: false,
    endpoint: "GET /projects/:id/events",
    input: { project_id: projectId, ...eventFilters },
    run: (api, { project_id, ...q }) => api.get(`/projects/${enc(project_id)}/events`, q),
  }),
  tool({
    name: "mark_all_todos_done",
    description: "Mark every pending to-do of yours as done.",
    write: true,
    endpoint: "POST /todos/mark_as_done",
    input: {},
    run: (api) => api.post("/todos/mark_as_done"),
  }),
];
