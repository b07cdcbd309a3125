import { z } from "zod";
import { enc } from "../forge/api.js";
import { id, iid, pagination, projectId, tool } from "./define.js";
import { mr } from "./merge-requests.js";

/**
 * Merge-request review beyond threads: the approval state, the two-step diff review (the changed
 * files first, then one file's diff, so a large merge request stays inside a model's context), diff
 * versions, note and thread-note edits, and draft notes (a review written privately, then
 * published at once).
 */

const MR = "/projects/:id/merge_requests/:iid";
const at = { project_id: projectId, merge_request_iid: iid };

interface DiffEntry {
  old_path: string;
  new_path: string;
  new_file?: boolean;
  renamed_file?: boolean;
  deleted_file?: boolean;
  diff?: string;
}

const position = z
  .record(z.string(), z.unknown())
  .describe(
    "A diff position as for create_merge_request_thread (base_sha, start_sha, head_sha, new_path, new_line, ...)",
  );

export const mrReviewTools = [
  tool({
    name: "get_merge_request_approval_state",
    description:
      "Get the approval state of a merge request: its approval rules, who approved, and whether each rule is met.",
    write: false,
    endpoint: `GET ${MR}/approval_state`,
    input: at,
    run: (api, a) => api.get(`${mr(a.project_id, a.merge_request_iid)}/approval_state`),
  }),
  tool({
    name: "list_merge_request_changed_files",
    description:
      "List the files a merge request changes (paths and whether each is new, renamed or deleted), without the diffs: the first step of a review; then get_merge_request_file_diff for one file.",
    write: false,
    endpoint: `GET ${MR}/diffs`,
    input: { ...at, ...pagination },
    run: async (api, { project_id, merge_request_iid, ...q }) => {
      const r = await api.get(`${mr(project_id, merge_request_iid)}/diffs`, q);
      const files = (r.data as DiffEntry[]).map(({ diff: _diff, ...f }) => f);
      return { data: files, page: r.page };
    },
  }),
  tool({
    name: "list_merge_request_diffs",
    description:
      "List a merge request's file diffs a page at a time (per_page files each), for large merge requests.",
    write: false,
    endpoint: `GET ${MR}/diffs`,
    input: { ...at, ...pagination },
    run: (api, { project_id, merge_request_iid, ...q }) =>
      api.get(`${mr(project_id, merge_request_iid)}/diffs`, q),
  }),
  tool({
    name: "get_merge_request_file_diff",
    description:
      "Get the diff of one file of a merge request (by its new or old path), from one page of the merge request's diffs (100 files a page; page 2 and on for larger merge requests).",
    write: false,
    endpoint: `GET ${MR}/diffs`,
    input: {
      ...at,
      file_path: z
        .string()
        .min(1)
        .describe("The file's new path (or old path for a deleted or renamed file)"),
      page: z.number().int().min(1).optional().describe("Page of the diffs to look in (100 files a page)"),
    },
    run: async (api, { project_id, merge_request_iid, file_path, page }) => {
      const r = await api.get(`${mr(project_id, merge_request_iid)}/diffs`, { per_page: 100, page });
      const hit = (r.data as DiffEntry[]).find((d) => d.new_path === file_path || d.old_path === file_path);
      if (!hit) {
        const more = r.page?.next_page ? `; try page ${r.page.next_page}` : "";
        throw new Error(
          `${file_path} is not among the files this merge request changes on page ${page ?? 1}${more}`,
        );
      }
      return { data: hit, page: undefined };
    },
  }),
  tool({
    name: "list_merge_request_versions",
    description: "List the diff versions of a merge request (one per push): head, base and start shas.",
    write: false,
    endpoint: `GET ${MR}/versions`,
    input: { ...at, ...pagination },
    run: (api, { project_id, merge_request_iid, ...q }) =>
      api.get(`${mr(project_id, merge_request_iid)}/versions`, q),
  }),
  tool({
    name: "get_merge_request_version",
    description: "Get one diff version of a merge request with its commits and diffs.",
    write: false,
    endpoint: `GET ${MR}/versions/:version_id`,
    input: { ...at, version_id: id },
    run: (api, a) => api.get(`${mr(a.project_id, a.merge_request_iid)}/versions/${a.version_id}`),
  }),
  tool({
    name: "get_merge_request_note",
    description: "Get one comment (note) of a merge request.",
    write: false,
    endpoint: `GET ${MR}/notes/:note_id`,
    input: { ...at, note_id: id },
    run: (api, a) => api.get(`${mr(a.project_id, a.merge_request_iid)}/notes/${a.note_id}`),
  }),
  tool({
    name: "update_merge_request_note",
    description: "Edit the body of one of your comments (notes) on a merge request.",
    write: true,
    endpoint: `PUT ${MR}/notes/:note_id`,
    input: { ...at, note_id: id, body: z.string().min(1) },
    run: (api, a) => api.put(`${mr(a.project_id, a.merge_request_iid)}/notes/${a.note_id}`, { body: a.body }),
  }),
  tool({
    name: "delete_merge_request_note",
    description: "Delete a comment (note) of a merge request.",
    write: true,
    destructive: true,
    endpoint: `DELETE ${MR}/notes/:note_id`,
    input: { ...at, note_id: id },
    run: (api, a) => api.delete(`${mr(a.project_id, a.merge_request_iid)}/notes/${a.note_id}`),
  }),
  tool({
    name: "update_merge_request_discussion_note",
    description:
      "Edit one note of a merge request thread: its body (your own notes) or whether it is resolved.",
    write: true,
    endpoint: `PUT ${MR}/discussions/:discussion_id/notes/:note_id`,
    input: {
      ...at,
      discussion_id: z.string().min(1),
      note_id: id,
      body: z.string().min(1).optional(),
      resolved: z.boolean().optional(),
    },
    run: (api, { project_id, merge_request_iid, discussion_id, note_id, ...body }) =>
      api.put(
        `${mr(project_id, merge_request_iid)}/discussions/${enc(discussion_id)}/notes/${note_id}`,
        body,
      ),
  }),
  tool({
    name: "delete_merge_request_discussion_note",
    description: "Delete one note of a merge request thread (the thread goes when its last note does).",
    write: true,
    destructive: true,
    endpoint: `DELETE ${MR}/discussions/:discussion_id/notes/:note_id`,
    input: { ...at, discussion_id: z.string().min(1), note_id: id },
    run: (api, a) =>
      api.delete(
        `${mr(a.project_id, a.merge_request_iid)}/discussions/${enc(a.discussion_id)}/notes/${a.note_id}`,
      ),
  }),
  tool({
    name: "list_draft_notes",
    description: "List your draft notes on a merge request (review comments not yet published).",
    write: false,
    endpoint: `GET ${MR}/draft_notes`,
    input: { ...at, ...pagination },
    run: (api, { project_id, merge_request_iid, ...q }) =>
      api.get(`${mr(project_id, merge_request_iid)}/draft_notes`, q),
  }),
  tool({
    name: "get_draft_note",
    description: "Get one of your draft notes on a merge request.",
    write: false,
    endpoint: `GET ${MR}/draft_notes/:draft_note_id`,
    input: { ...at, draft_note_id: id },
    run: (api, a) => api.get(`${mr(a.project_id, a.merge_request_iid)}/draft_notes/${a.draft_note_id}`),
  }),
  tool({
    name: "create_draft_note",
    description:
      "Write a draft review note on a merge request: a comment, a line comment (position), or a reply to a thread; others see it once published.",
    write: true,
    endpoint: `POST ${MR}/draft_notes`,
    input: {
      ...at,
      note: z.string().min(1),
      position: position.optional(),
      in_reply_to_discussion_id: z.string().min(1).optional(),
      resolve_discussion: z.boolean().optional().describe("Resolve the replied-to thread when published"),
    },
    run: (api, { project_id, merge_request_iid, ...body }) =>
      api.post(`${mr(project_id, merge_request_iid)}/draft_notes`, body),
  }),
  tool({
    name: "update_draft_note",
    description: "Edit one of your draft notes (its text or position).",
    write: true,
    endpoint: `PUT ${MR}/draft_notes/:draft_note_id`,
    input: { ...at, draft_note_id: id, note: z.string().min(1).optional(), position: position.optional() },
    run: (api, { project_id, merge_request_iid, draft_note_id, ...body }) =>
      api.put(`${mr(project_id, merge_request_iid)}/draft_notes/${draft_note_id}`, body),
  }),
  tool({
    name: "delete_draft_note",
    description: "Delete one of your draft notes.",
    write: true,
    destructive: true,
    endpoint: `DELETE ${MR}/draft_notes/:draft_note_id`,
    input: { ...at, draft_note_id: id },
    run: (api, a) => api.delete(`${mr(a.project_id, a.merge_request_iid)}/draft_notes/${a.draft_note_id}`),
  }),
  tool({
    name: "publish_draft_note",
    description: "Publish one of your draft notes: it becomes a comment or thread note others see.",
    write: true,
    endpoint: `PUT ${MR}/draft_notes/:draft_note_id/publish`,
    input: { ...at, draft_note_id: id },
    run: (api, a) =>
      api.put(`${mr(a.project_id, a.merge_request_iid)}/draft_notes/${a.draft_note_id}/publish`),
  }),
  tool({
    name: "bulk_publish_draft_notes",
    description: "Publish all your draft notes on a merge request at once (submit the review).",
    write: true,
    endpoint: `POST ${MR}/draft_notes/bulk_publish`,
    input: at,
    run: (api, a) => api.post(`${mr(a.project_id, a.merge_request_iid)}/draft_notes/bulk_publish`),
  }),
];
