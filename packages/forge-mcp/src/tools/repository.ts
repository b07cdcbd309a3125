import { z } from "zod";
import { enc } from "../forge/api.js";
import { pagination, projectId, tool } from "./define.js";

const repo = (p: string | number) => `/projects/${enc(p)}/repository`;
const R = "/projects/:id/repository";

export const repositoryTools = [
  tool({
    name: "get_repository_tree",
    aliases: ["list_repository_tree"],
    endpoint: `GET ${R}/tree`,
    description: "List files and folders of a repository path at a ref; read a file with get_file_contents.",
    write: false,
    input: {
      project_id: projectId,
      path: z.string().optional(),
      ref: z.string().optional(),
      recursive: z.boolean().optional(),
      pagination: z
        .literal("keyset")
        .optional()
        .describe("keyset: page with page_token (the path of the last entry seen) instead of page numbers"),
      page_token: z.string().optional(),
      ...pagination,
    },
    run: (api, { project_id, ...q }) => api.get(`${repo(project_id)}/tree`, q),
  }),
  tool({
    name: "get_file_contents",
    aliases: ["get_file"],
    endpoint: `GET ${R}/files/:file_path`,
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
    endpoint: `POST|PUT ${R}/files/:file_path`,
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
    endpoint: `GET ${R}/branches`,
    description: "List branches of a repository.",
    write: false,
    input: { project_id: projectId, search: z.string().optional(), ...pagination },
    run: (api, { project_id, ...q }) => api.get(`${repo(project_id)}/branches`, q),
  }),
  tool({
    name: "create_branch",
    endpoint: `POST ${R}/branches`,
    description: "Create a branch from a ref.",
    write: true,
    input: { project_id: projectId, branch: z.string().min(1), ref: z.string().min(1) },
    run: (api, { project_id, ...body }) => api.post(`${repo(project_id)}/branches`, body),
  }),
  tool({
    name: "list_commits",
    endpoint: `GET ${R}/commits`,
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
    endpoint: `GET ${R}/commits/:sha`,
    description:
      "Get one commit by SHA or ref (its message, author, parents); its changes are get_commit_diff.",
    write: false,
    input: { project_id: projectId, sha: z.string().min(1) },
    run: (api, a) => api.get(`${repo(a.project_id)}/commits/${enc(a.sha)}`),
  }),
  tool({
    name: "get_commit_diff",
    description: "Get the diff of one commit against its parent.",
    write: false,
    endpoint: `GET ${R}/commits/:sha/diff`,
    input: { project_id: projectId, sha: z.string().min(1), ...pagination },
    run: (api, { project_id, sha, ...q }) => api.get(`${repo(project_id)}/commits/${enc(sha)}/diff`, q),
  }),
  tool({
    name: "get_branch_diffs",
    aliases: ["compare"],
    description:
      "Compare two branches, tags or commits: the commits in `to` but not in `from`, and the diff.",
    write: false,
    endpoint: `GET ${R}/compare`,
    input: {
      project_id: projectId,
      from: z.string().min(1),
      to: z.string().min(1),
      straight: z
        .boolean()
        .optional()
        .describe("true: diff from..to directly instead of from the merge base"),
    },
    run: (api, { project_id, ...q }) => api.get(`${repo(project_id)}/compare`, q),
  }),
  tool({
    name: "get_file_blame",
    description: "Blame a file at a ref: ranges of lines with the commit that last changed them.",
    write: false,
    endpoint: `GET ${R}/files/:file_path/blame`,
    input: {
      project_id: projectId,
      file_path: z.string().min(1),
      ref: z.string().min(1),
      range_start: z.number().int().positive().optional(),
      range_end: z.number().int().positive().optional(),
    },
    run: (api, { project_id, file_path, range_start, range_end, ref }) =>
      api.get(`${repo(project_id)}/files/${enc(file_path)}/blame`, {
        ref,
        "range[start]": range_start,
        "range[end]": range_end,
      }),
  }),
  tool({
    name: "push_files",
    description:
      "Commit several file changes at once on a branch: create, update, delete or move files in one commit.",
    write: true,
    endpoint: `POST ${R}/commits`,
    input: {
      project_id: projectId,
      branch: z.string().min(1),
      commit_message: z.string().min(1),
      start_branch: z.string().optional().describe("Create branch from this one when it does not exist"),
      actions: z
        .array(
          z.object({
            action: z.enum(["create", "update", "delete", "move"]),
            file_path: z.string().min(1),
            previous_path: z.string().optional().describe("For move: the old path"),
            content: z.string().optional(),
            encoding: z.enum(["text", "base64"]).optional(),
            last_commit_id: z.string().optional(),
          }),
        )
        .min(1),
      author_name: z.string().optional(),
      author_email: z.string().optional(),
    },
    run: (api, { project_id, ...body }) => api.post(`${repo(project_id)}/commits`, body),
  }),
  tool({
    name: "delete_file",
    description: "Delete one file with a commit on a branch.",
    write: true,
    destructive: true,
    endpoint: `DELETE ${R}/files/:file_path`,
    input: {
      project_id: projectId,
      file_path: z.string().min(1),
      branch: z.string().min(1),
      commit_message: z.string().min(1),
    },
    run: (api, { project_id, file_path, ...q }) =>
      api.delete(`${repo(project_id)}/files/${enc(file_path)}`, q),
  }),
  tool({
    name: "get_branch",
    description: "Get one branch with its head commit.",
    write: false,
    endpoint: `GET ${R}/branches/:branch`,
    input: { project_id: projectId, branch: z.string().min(1) },
    run: (api, a) => api.get(`${repo(a.project_id)}/branches/${enc(a.branch)}`),
  }),
  tool({
    name: "delete_branch",
    description: "Delete a branch (protected and default branches are refused by the forge).",
    write: true,
    destructive: true,
    endpoint: `DELETE ${R}/branches/:branch`,
    input: { project_id: projectId, branch: z.string().min(1) },
    run: (api, a) => api.delete(`${repo(a.project_id)}/branches/${enc(a.branch)}`),
  }),
];
