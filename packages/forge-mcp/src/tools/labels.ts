import { z } from "zod";
import { enc } from "../forge/api.js";
import { pagination, projectId, tool } from "./define.js";

const labels = (p: string | number) => `/projects/${enc(p)}/labels`;
const L = "/projects/:id/labels";
const labelRef = z.union([z.string().min(1), z.number().int().positive()]).describe("Label id or name");
const color = z
  .string()
  .regex(/^#[0-9A-Fa-f]{6}$|^[a-z]+$/)
  .describe("#RRGGBB or a CSS colour name");

export const labelTools = [
  tool({
    name: "list_labels",
    description: "List the labels of a project (with issue and merge request counts when asked).",
    write: false,
    endpoint: `GET ${L}`,
    input: {
      project_id: projectId,
      search: z.string().optional(),
      with_counts: z.boolean().optional(),
      include_ancestor_groups: z.boolean().optional(),
      ...pagination,
    },
    run: (api, { project_id, ...q }) => api.get(labels(project_id), q),
  }),
  tool({
    name: "get_label",
    description: "Get one label of a project by id or name.",
    write: false,
    endpoint: `GET ${L}/:label_id`,
    input: { project_id: projectId, label_id: labelRef },
    run: (api, a) => api.get(`${labels(a.project_id)}/${enc(a.label_id)}`),
  }),
  tool({
    name: "create_label",
    description: "Create a project label.",
    write: true,
    endpoint: `POST ${L}`,
    input: {
      project_id: projectId,
      name: z.string().min(1),
      color,
      description: z.string().optional(),
      priority: z.number().int().min(0).optional(),
    },
    run: (api, { project_id, ...body }) => api.post(labels(project_id), body),
  }),
  tool({
    name: "update_label",
    description: "Rename a label or change its colour, description or priority.",
    write: true,
    endpoint: `PUT ${L}/:label_id`,
    input: {
      project_id: projectId,
      label_id: labelRef,
      new_name: z.string().min(1).optional(),
      color: color.optional(),
      description: z.string().optional(),
      priority: z.number().int().min(0).optional(),
    },
    run: (api, { project_id, label_id, ...body }) => api.put(`${labels(project_id)}/${enc(label_id)}`, body),
  }),
  tool({
    name: "delete_label",
    description: "Delete a project label (it disappears from every issue and merge request).",
    write: true,
    destructive: true,
    endpoint: `DELETE ${L}/:label_id`,
    input: { project_id: projectId, label_id: labelRef },
    run: (api, a) => api.delete(`${labels(a.project_id)}/${enc(a.label_id)}`),
  }),
];
