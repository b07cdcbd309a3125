import { z } from "zod";
import { enc } from "../forge/api.js";
import { groupId, pagination, projectId, tool } from "./define.js";

/**
 * Code search: GitLab's `scope=blobs` search across the instance, in a group or in a project.
 * Instance-wide and group code search need GitLab's advanced (or exact code) search; without it
 * the forge answers 400 and the tool relays it. The filters travel as GitLab's inline search
 * syntax (`filename:`, `path:`, `extension:`), which every search backend reads.
 */

const filters = {
  search: z.string().min(1).describe("Text to find in files"),
  filename: z.string().optional().describe("Only files with this name (* wildcard), e.g. *.ts"),
  path: z.string().optional().describe("Only files under this path (* wildcard), e.g. src/*"),
  extension: z.string().optional().describe("Only files with this extension, without the dot"),
};

type Filters = {
  search: string;
  filename?: string | undefined;
  path?: string | undefined;
  extension?: string | undefined;
};

/** The query string GitLab reads: the text, then its inline filters. */
export function codeQuery(f: Filters): string {
  const parts = [f.search];
  if (f.filename) parts.push(`filename:${f.filename}`);
  if (f.path) parts.push(`path:${f.path}`);
  if (f.extension) parts.push(`extension:${f.extension.replace(/^\./, "")}`);
  return parts.join(" ");
}

export const codeSearchTools = [
  tool({
    name: "search_code",
    description:
      "Search code (file contents) across every project you can see. Needs the forge's advanced search; otherwise use search_project_code.",
    write: false,
    endpoint: "GET /search?scope=blobs",
    input: { ...filters, ...pagination },
    run: (api, { page, per_page, ...f }) =>
      api.get("/search", { scope: "blobs", search: codeQuery(f), page, per_page }),
  }),
  tool({
    name: "search_project_code",
    description: "Search code (file contents) in one project, on its default branch or at ref.",
    write: false,
    endpoint: "GET /projects/:id/search?scope=blobs",
    input: { project_id: projectId, ...filters, ref: z.string().optional(), ...pagination },
    run: (api, { project_id, ref, page, per_page, ...f }) =>
      api.get(`/projects/${enc(project_id)}/search`, {
        scope: "blobs",
        search: codeQuery(f),
        ref,
        page,
        per_page,
      }),
  }),
  tool({
    name: "search_group_code",
    description: "Search code (file contents) in the projects of a group. Needs the forge's advanced search.",
    write: false,
    endpoint: "GET /groups/:id/search?scope=blobs",
    input: { group_id: groupId, ...filters, ...pagination },
    run: (api, { group_id, page, per_page, ...f }) =>
      api.get(`/groups/${enc(group_id)}/search`, { scope: "blobs", search: codeQuery(f), page, per_page }),
  }),
];
