import { z } from "zod";
import { enc } from "../forge/api.js";
import { pagination, projectId, tool } from "./define.js";

const repo = (p: string | number) => `/projects/${enc(p)}/repository`;

export const repositoryTools = [
  tool({
    name: "list_repository_tree",
    description: "List files and folders of a repository path at a ref.",
    write: false,
    input: {
      project_id: projectId,
      path: z.string().optional(),
      ref: z.string().optional(),
      recursive: z.boolean().optional(),
      ...pagination,
    },
    run: (api, { project_id, ...q }) => api.get(`${repo(project_id)}/tree`, q),
  }),
  tool({
    name: "get_file",
    description: "Read a file of a repository at a ref (default: the default branch); text is decoded.",
    write: false,
    input: { project_id: projectId, file_path: z.string().min(1), ref: z.string().optional() },
    run: async (api, a) => {
      // The files API requires a ref; without one, read the project's default branch.
      const ref =
        a.ref ??
        ((await api.get(`/projects/${enc(a.project_id)}`)).data as { default_branch?: string })
          .default_branch;
      const r = await api.get(`${repo(a.project_id)}/files/${enc(a.file_path)}`, { ref: ref ?? "HEAD" });
      const f = r.data as { content?: string; encoding?: string } & Record<string, unknown>;
      if (f && f.encoding === "base64" && typeof f.content === "string") {
        return {
          data: { ...f, encoding: "text", content: Buffer.from(f.content, "base64").toString("utf8") },
          page: undefined,
        };
      }
      return r;
    },
  }),
  tool({
    name: "create_or_update_file",
    description: "Create or update one file with a commit on a branch.",
    write: true,
    input: {
      project_id: projectId,
      file_path: z.string().min(1),
      branch: z.string().min(1),
      content: z.string(),
      commit_message: z.string().min(1),
      create: z.boolean().describe("true to create a new file, false to update an existing one"),
    },
    run: (api, { project_id, file_path, create, ...body }) => {
      const path = `${repo(project_id)}/files/${enc(file_path)}`;
      return create ? api.post(path, body) : api.put(path, body);
    },
  }),
  tool({
    name: "list_branches",
    description: "List branches of a repository.",
    write: false,
    input: { project_id: projectId, search: z.string().optional(), ...pagination },
    run: (api, { project_id, ...q }) => api.get(`${repo(project_id)}/branches`, q),
  }),
  tool({
    name: "create_branch",
    description: "Create a branch from a ref.",
    write: true,
    input: { project_id: projectId, branch: z.string().min(1), ref: z.string().min(1) },
    run: (api, { project_id, ...body }) => api.post(`${repo(project_id)}/branches`, body),
  }),
  tool({
    name: "list_commits",
    description: "List commits of a repository, optionally on a ref or for a path.",
    write: false,
    input: {
      project_id: projectId,
      ref_name: z.string().optional(),
      path: z.string().optional(),
      since: z.string().optional().describe("ISO 8601 date"),
      ...pagination,
    },
    run: (api, { project_id, ...q }) => api.get(`${repo(project_id)}/commits`, q),
  }),
  tool({
    name: "get_commit",
    description: "Get one commit by SHA or ref.",
    write: false,
    input: { project_id: projectId, sha: z.string().min(1) },
    run: (api, a) => api.get(`${repo(a.project_id)}/commits/${enc(a.sha)}`),
  }),
];
