import { z } from "zod";
import { type ApiResult, enc, type ForgeApi } from "../forge/api.js";
import { type ForgeTool, id, iid, pagination, projectId, tool } from "./define.js";

/**
 * Emoji reactions (GitLab's award emoji) on issues, merge requests, work items and their notes, by
 * gitlab-mcp's names. A work item of a project shares the issues' iids, so its reactions are the
 * issue award-emoji endpoints (REST, which the project allow-list can check; GraphQL it cannot).
 */

const emojiName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9_+-]+$/)
  .describe("Emoji name without colons: thumbsup, rocket, eyes, ...");
const awardId = id.describe("The reaction's id (from the list tool)");
const discussionId = z
  .string()
  .optional()
  .describe("Accepted for gitlab-mcp compatibility: a thread reply is a note too, so note_id alone names it");
const noteGid = z
  .union([z.number().int().positive(), z.string().regex(/^(gid:\/\/gitlab\/(\w+::)?Note\/)?\d+$/)])
  .describe("The note: its id, or its GraphQL id gid://gitlab/Note/123");

const noteNumber = (n: number | string) => Number(String(n).replace(/^.*\//, ""));

type Kind = { noun: string; seg: "issues" | "merge_requests"; key: "issue_iid" | "merge_request_iid" };
const ISSUE: Kind = { noun: "issue", seg: "issues", key: "issue_iid" };
const MR: Kind = { noun: "merge request", seg: "merge_requests", key: "merge_request_iid" };

const base = (k: Kind, p: string | number, i: number, note?: number) =>
  `/projects/${enc(p)}/${k.seg}/${i}${note === undefined ? "" : `/notes/${note}`}/award_emoji`;
const ep = (k: Kind, note: boolean) =>
  `/projects/:id/${k.seg}/:iid${note ? "/notes/:note_id" : ""}/award_emoji`;

/** The six tools for one kind of awardable (issues or merge requests), by gitlab-mcp's names. */
function restTools(k: Kind, prefix: "issue" | "merge_request"): ForgeTool[] {
  const target = { project_id: projectId, [k.key]: iid } as { project_id: typeof projectId } & Record<
    Kind["key"],
    typeof iid
  >;
  const on = (a: Record<string, unknown>) => [a.project_id as string | number, a[k.key] as number] as const;
  const noteTarget = { ...target, note_id: id.describe("The note's id"), discussion_id: discussionId };
  return [
    tool({
      name: `list_${prefix}_emoji_reactions`,
      description: `List the emoji reactions on a ${k.noun}.`,
      write: false,
      endpoint: `GET ${ep(k, false)}`,
      input: { ...target, ...pagination },
      run: (api, a) => {
        const { page, per_page } = a as { page?: number; per_page?: number };
        return api.get(base(k, ...on(a)), { page, per_page });
      },
    }),
    tool({
      name: `list_${prefix}_note_emoji_reactions`,
      description: `List the emoji reactions on a note (comment or thread reply) of a ${k.noun}.`,
      write: false,
      endpoint: `GET ${ep(k, true)}`,
      input: { ...noteTarget, ...pagination },
      run: (api, a) => {
        const { page, per_page, note_id } = a as { page?: number; per_page?: number; note_id: number };
        return api.get(base(k, ...on(a), note_id), { page, per_page });
      },
    }),
    tool({
      name: `create_${prefix}_emoji_reaction`,
      description: `Add an emoji reaction to a ${k.noun} (thumbsup, rocket, eyes, ...).`,
      write: true,
      endpoint: `POST ${ep(k, false)}`,
      input: { ...target, name: emojiName },
      run: (api, a) => api.post(base(k, ...on(a)), { name: (a as { name: string }).name }),
    }),
    tool({
      name: `delete_${prefix}_emoji_reaction`,
      description: `Remove one of your emoji reactions from a ${k.noun}, by its award_id.`,
      write: true,
      destructive: true,
      endpoint: `DELETE ${ep(k, false)}/:award_id`,
      input: { ...target, award_id: awardId },
      run: (api, a) => api.delete(`${base(k, ...on(a))}/${(a as { award_id: number }).award_id}`),
    }),
    tool({
      name: `create_${prefix}_note_emoji_reaction`,
      description: `Add an emoji reaction to a note (comment or thread reply) of a ${k.noun}.`,
      write: true,
      endpoint: `POST ${ep(k, true)}`,
      input: { ...noteTarget, name: emojiName },
      run: (api, a) => {
        const { note_id, name } = a as { note_id: number; name: string };
        return api.post(base(k, ...on(a), note_id), { name });
      },
    }),
    tool({
      name: `delete_${prefix}_note_emoji_reaction`,
      description: `Remove one of your emoji reactions from a note of a ${k.noun}, by its award_id.`,
      write: true,
      destructive: true,
      endpoint: `DELETE ${ep(k, true)}/:award_id`,
      input: { ...noteTarget, award_id: awardId },
      run: (api, a) => {
        const { note_id, award_id } = a as { note_id: number; award_id: number };
        return api.delete(`${base(k, ...on(a), note_id)}/${award_id}`);
      },
    }),
  ];
}

export const issueEmojiTools = restTools(ISSUE, "issue");
export const mergeRequestEmojiTools = restTools(MR, "merge_request");

/**
 * gitlab-mcp removes a work item's reaction by name (its GraphQL mutation removes the caller's).
 * Over REST: the reactions first (the project gate sees that call before any other), then the
 * DELETE of the one with that name; only when several people reacted with it, who am I as well.
 */
async function removeMine(api: ForgeApi, path: string, name: string): Promise<ApiResult | string> {
  type Award = { id: number; name: string; user?: { username?: string } };
  const named = ((await api.get(path, { per_page: 100 })).data as Award[]).filter((x) => x.name === name);
  let mine = named[0];
  if (named.length > 1) {
    const username = ((await api.get("/user")).data as { username?: string }).username;
    mine = named.find((x) => x.user?.username === username);
  }
  if (!mine) return `You have no :${name}: reaction there; nothing was removed.`;
  return api.delete(`${path}/${mine.id}`);
}

const wi = (a: { project_id: string | number; iid: number }, note?: number | string) =>
  base(ISSUE, a.project_id, a.iid, note === undefined ? undefined : noteNumber(note));
const WI = "/projects/:id/issues/:iid";

export const workItemEmojiTools = [
  tool({
    name: "list_work_item_emoji_reactions",
    description: "List the emoji reactions on a work item (issue, task, incident, ...) of a project.",
    write: false,
    endpoint: `GET ${WI}/award_emoji`,
    input: { project_id: projectId, iid: iid.describe("The work item's iid"), ...pagination },
    run: (api, { page, per_page, ...a }) => api.get(wi(a), { page, per_page }),
  }),
  tool({
    name: "list_work_item_note_emoji_reactions",
    description: "List the emoji reactions on a note of a work item.",
    write: false,
    endpoint: `GET ${WI}/notes/:note_id/award_emoji`,
    input: {
      project_id: projectId,
      iid: iid.describe("The work item's iid"),
      note_id: noteGid,
      ...pagination,
    },
    run: (api, { page, per_page, note_id, ...a }) => api.get(wi(a, note_id), { page, per_page }),
  }),
  tool({
    name: "create_work_item_emoji_reaction",
    description: "Add an emoji reaction to a work item (thumbsup, rocket, eyes, ...).",
    write: true,
    endpoint: `POST ${WI}/award_emoji`,
    input: { project_id: projectId, iid: iid.describe("The work item's iid"), name: emojiName },
    run: (api, { name, ...a }) => api.post(wi(a), { name }),
  }),
  tool({
    name: "delete_work_item_emoji_reaction",
    description:
      "Remove your emoji reaction with this name from a work item (reads the reactions, then removes yours: two forge calls).",
    write: true,
    destructive: true,
    endpoint: `DELETE ${WI}/award_emoji/:award_id`,
    input: { project_id: projectId, iid: iid.describe("The work item's iid"), name: emojiName },
    run: (api, { name, ...a }) => removeMine(api, wi(a), name),
  }),
  tool({
    name: "create_work_item_note_emoji_reaction",
    description: "Add an emoji reaction to a note of a work item.",
    write: true,
    endpoint: `POST ${WI}/notes/:note_id/award_emoji`,
    input: {
      project_id: projectId,
      iid: iid.describe("The work item's iid"),
      note_id: noteGid,
      name: emojiName,
    },
    run: (api, { name, note_id, ...a }) => api.post(wi(a, note_id), { name }),
  }),
  tool({
    name: "delete_work_item_note_emoji_reaction",
    description:
      "Remove your emoji reaction with this name from a note of a work item (reads the reactions, then removes yours: two forge calls).",
    write: true,
    destructive: true,
    endpoint: `DELETE ${WI}/notes/:note_id/award_emoji/:award_id`,
    input: {
      project_id: projectId,
      iid: iid.describe("The work item's iid"),
      note_id: noteGid,
      name: emojiName,
    },
    run: (api, { name, note_id, ...a }) => removeMine(api, wi(a, note_id), name),
  }),
];
