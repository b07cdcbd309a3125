import { z } from "zod";
import { enc } from "../forge/api.js";
import { pagination, projectId, tool } from "./define.js";

const tags = (p: string | number) => `/projects/${enc(p)}/repository/tags`;
const releases = (p: string | number) => `/projects/${enc(p)}/releases`;
const T = "/projects/:id/repository/tags";
const RL = "/projects/:id/releases";
const tagName = z.string().min(1);

export const tagTools = [
  tool({
    name: "list_tags",
    description: "List the tags of a repository.",
    write: false,
    endpoint: `GET ${T}`,
    input: {
      project_id: projectId,
      search: z.string().optional().describe("^prefix, suffix$ or a substring"),
      order_by: z.enum(["name", "updated", "version"]).optional(),
      sort: z.enum(["asc", "desc"]).optional(),
      ...pagination,
    },
    run: (api, { project_id, ...q }) => api.get(tags(project_id), q),
  }),
  tool({
    name: "get_tag",
    description: "Get one tag with its commit (and release, when there is one).",
    write: false,
    endpoint: `GET ${T}/:tag_name`,
    input: { project_id: projectId, tag_name: tagName },
    run: (api, a) => api.get(`${tags(a.project_id)}/${enc(a.tag_name)}`),
  }),
  tool({
    name: "create_tag",
    description: "Create a tag at a ref; with message it is an annotated tag.",
    write: true,
    endpoint: `POST ${T}`,
    input: {
      project_id: projectId,
      tag_name: tagName,
      ref: z.string().min(1),
      message: z.string().optional(),
    },
    run: (api, { project_id, ...body }) => api.post(tags(project_id), body),
  }),
  tool({
    name: "delete_tag",
    description: "Delete a tag.",
    write: true,
    destructive: true,
    endpoint: `DELETE ${T}/:tag_name`,
    input: { project_id: projectId, tag_name: tagName },
    run: (api, a) => api.delete(`${tags(a.project_id)}/${enc(a.tag_name)}`),
  }),
];

export const releaseTools = [
  tool({
    name: "list_releases",
    description: "List the releases of a project, newest first.",
    write: false,
    endpoint: `GET ${RL}`,
    input: {
      project_id: projectId,
      order_by: z.enum(["released_at", "created_at"]).optional(),
      sort: z.enum(["asc", "desc"]).optional(),
      ...pagination,
    },
    run: (api, { project_id, ...q }) => api.get(releases(project_id), q),
  }),
  tool({
    name: "get_release",
    description: "Get one release by its tag name.",
    write: false,
    endpoint: `GET ${RL}/:tag_name`,
    input: { project_id: projectId, tag_name: tagName },
    run: (api, a) => api.get(`${releases(a.project_id)}/${enc(a.tag_name)}`),
  }),
  tool({
    name: "create_release",
    description: "Create a release for a tag; the tag is created from ref when it does not exist.",
    write: true,
    endpoint: `POST ${RL}`,
    input: {
      project_id: projectId,
      tag_name: tagName,
      name: z.string().optional(),
      description: z.string().optional().describe("Release notes (Markdown)"),
      ref: z.string().optional(),
      milestones: z.array(z.string()).optional().describe("Milestone titles"),
      released_at: z.string().optional().describe("ISO 8601"),
    },
    run: (api, { project_id, ...body }) => api.post(releases(project_id), body),
  }),
  tool({
    name: "update_release",
    description: "Update a release's name, notes, milestones or date.",
    write: true,
    endpoint: `PUT ${RL}/:tag_name`,
    input: {
      project_id: projectId,
      tag_name: tagName,
      name: z.string().optional(),
      description: z.string().optional(),
      milestones: z.array(z.string()).optional(),
      released_at: z.string().optional(),
    },
    run: (api, { project_id, tag_name, ...body }) =>
      api.put(`${releases(project_id)}/${enc(tag_name)}`, body),
  }),
  tool({
    name: "delete_release",
    description: "Delete a release (the tag stays).",
    write: true,
    destructive: true,
    endpoint: `DELETE ${RL}/:tag_name`,
    input: { project_id: projectId, tag_name: tagName },
    run: (api, a) => api.delete(`${releases(a.project_id)}/${enc(a.tag_name)}`),
  }),
];
