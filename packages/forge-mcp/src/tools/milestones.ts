import { z } from "zod";
import { enc } from "../forge/api.js";
import { id, pagination, projectId, tool } from "./define.js";

const ms = (p: string | number) => `/projects/${enc(p)}/milestones`;
const M = "/projects/:id/milestones";
const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .describe("YYYY-MM-DD");

/** Names follow gitlab-mcp (edit_milestone), so agents moving over keep their prompts. */
export const milestoneTools = [
  tool({
    name: "list_milestones",
    description: "List the milestones of a project.",
    write: false,
    endpoint: `GET ${M}`,
    input: {
      project_id: projectId,
      state: z.enum(["active", "closed"]).optional(),
      title: z.string().optional(),
      search: z.string().optional(),
      ...pagination,
    },
    run: (api, { project_id, ...q }) => api.get(ms(project_id), q),
  }),
  tool({
    name: "get_milestone",
    description: "Get one project milestone by its id.",
    write: false,
    endpoint: `GET ${M}/:milestone_id`,
    input: { project_id: projectId, milestone_id: id },
    run: (api, a) => api.get(`${ms(a.project_id)}/${a.milestone_id}`),
  }),
  tool({
    name: "create_milestone",
    description: "Create a project milestone.",
    write: true,
    endpoint: `POST ${M}`,
    input: {
      project_id: projectId,
      title: z.string().min(1),
      description: z.string().optional(),
      start_date: date.optional(),
      due_date: date.optional(),
    },
    run: (api, { project_id, ...body }) => api.post(ms(project_id), body),
  }),
  tool({
    name: "edit_milestone",
    description: "Update a milestone: title, description, dates, or close/activate it.",
    write: true,
    endpoint: `PUT ${M}/:milestone_id`,
    input: {
      project_id: projectId,
      milestone_id: id,
      title: z.string().min(1).optional(),
      description: z.string().optional(),
      start_date: date.optional(),
      due_date: date.optional(),
      state_event: z.enum(["close", "activate"]).optional(),
    },
    run: (api, { project_id, milestone_id, ...body }) => api.put(`${ms(project_id)}/${milestone_id}`, body),
  }),
  tool({
    name: "delete_milestone",
    description: "Delete a project milestone.",
    write: true,
    destructive: true,
    endpoint: `DELETE ${M}/:milestone_id`,
    input: { project_id: projectId, milestone_id: id },
    run: (api, a) => api.delete(`${ms(a.project_id)}/${a.milestone_id}`),
  }),
];
