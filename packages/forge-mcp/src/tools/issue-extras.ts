import { applyPatch, createPatch } from "diff";
import { z } from "zod";
import { enc } from "../forge/api.js";
import { id, iid, projectId, tool } from "./define.js";

/**
 * One issue link by id, and editing an issue description by patch: the description is read,
 * patched here (search/replace blocks or a unified diff, applied with the `diff` library), and
 * written back only when the patch applies cleanly — a stale patch changes nothing.
 */

const BLOCK = /<<<<<<< SEARCH[^\S\n]*\n([\s\S]*?)\n?=======[^\S\n]*\n([\s\S]*?)\n?>>>>>>> REPLACE[^\S\n]*/g;

/** Applies `<<<<<<< SEARCH / ======= / >>>>>>> REPLACE` blocks in order; each must match (once, unless allowMultiple). */
export function applySearchReplace(text: string, patch: string, allowMultiple: boolean): string {
  const blocks = [...patch.matchAll(BLOCK)];
  const markers = (patch.match(/<<<<<<<\s+SEARCH/g) ?? []).length;
  if (blocks.length === 0 || blocks.length !== markers)
    throw new Error(
      "the patch must be one or more blocks of <<<<<<< SEARCH, the text to find, =======, its replacement, >>>>>>> REPLACE",
    );
  let out = text;
  for (const [, search, replace] of blocks) {
    if (!search) throw new Error("a SEARCH block is empty");
    const count = out.split(search).length - 1;
    if (count === 0)
      throw new Error(`the text to find is not in the description: ${JSON.stringify(search.slice(0, 80))}`);
    if (count > 1 && !allowMultiple)
      throw new Error(`the text to find occurs ${count} times (allow_multiple: true replaces them all)`);
    out = out.split(search).join(replace ?? "");
  }
  return out;
}

export function applyUnifiedDiff(text: string, patch: string): string {
  const out = applyPatch(text, patch);
  if (out === false) throw new Error("the unified diff does not apply to the current description");
  return out;
}

export const issueExtraTools = [
  tool({
    name: "get_issue_link",
    description: "Get one link between two issues (its type and both issues).",
    write: false,
    endpoint: "GET /projects/:id/issues/:iid/links/:issue_link_id",
    input: { project_id: projectId, issue_iid: iid, issue_link_id: id },
    run: (api, a) => api.get(`/projects/${enc(a.project_id)}/issues/${a.issue_iid}/links/${a.issue_link_id}`),
  }),
  tool({
    name: "update_issue_description_patch",
    description:
      "Change part of an issue description without sending all of it: search/replace blocks (<<<<<<< SEARCH, old, =======, new, >>>>>>> REPLACE) or a unified diff. dry_run shows the result without writing; create_note adds a comment with the diff.",
    write: true,
    endpoint: "PUT /projects/:id/issues/:iid (after GET; POST …/notes with create_note)",
    input: {
      project_id: projectId,
      issue_iid: iid,
      patch_type: z.enum(["search_replace", "unified_diff"]),
      patch: z.string().min(1).max(50_000),
      dry_run: z.boolean().optional(),
      create_note: z.boolean().optional(),
      allow_multiple: z.boolean().optional().describe("search_replace: replace every occurrence"),
    },
    run: async (api, a) => {
      const path = `/projects/${enc(a.project_id)}/issues/${a.issue_iid}`;
      const issue = (await api.get(path)).data as { description?: string | null };
      const before = issue.description ?? "";
      const after =
        a.patch_type === "search_replace"
          ? applySearchReplace(before, a.patch, a.allow_multiple ?? false)
          : applyUnifiedDiff(before, a.patch);
      const diff = createPatch("description", before, after, "", "", { context: 2 })
        .split("\n")
        .slice(2)
        .join("\n");
      if (a.dry_run)
        return {
          data: { dry_run: true, changed: before !== after, diff, description: after },
          page: undefined,
        };
      if (before === after) return { data: { changed: false, diff: "" }, page: undefined };
      const updated = await api.put(path, { description: after });
      if (a.create_note)
        await api.post(`${path}/notes`, { body: `Description updated:\n\n\`\`\`diff\n${diff}\n\`\`\`` });
      return updated;
    },
  }),
];
