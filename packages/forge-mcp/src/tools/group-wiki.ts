import { z } from "zod";
import { enc } from "../forge/api.js";
import { groupId, tool } from "./define.js";

/** Group wikis (GitLab Premium): the project wiki's calls under /groups/:id/wikis. */

const wikis = (g: string | number) => `/groups/${enc(g)}/wikis`;
const W = "/groups/:id/wikis";
const slug = z.string().min(1).describe("Page slug, e.g. home or dir/page");
const format = z.enum(["markdown", "rdoc", "asciidoc", "org"]).optional();

export const groupWikiTools = [
  tool({
    name: "list_group_wiki_pages",
    description: "List the wiki pages of a group (with their content when with_content is true).",
    write: false,
    endpoint: `GET ${W}`,
    input: { group_id: groupId, with_content: z.boolean().optional() },
    run: (api, { group_id, with_content }) =>
      api.get(wikis(group_id), {
        with_content: with_content === undefined ? undefined : Number(with_content),
      }),
  }),
  tool({
    name: "get_group_wiki_page",
    description: "Read one page of a group's wiki.",
    write: false,
    endpoint: `GET ${W}/:slug`,
    input: { group_id: groupId, slug, version: z.string().optional().describe("A page version sha") },
    run: (api, a) => api.get(`${wikis(a.group_id)}/${enc(a.slug)}`, { version: a.version }),
  }),
  tool({
    name: "create_group_wiki_page",
    description: "Create a page in a group's wiki.",
    write: true,
    endpoint: `POST ${W}`,
    input: { group_id: groupId, title: z.string().min(1), content: z.string(), format },
    run: (api, { group_id, ...body }) => api.post(wikis(group_id), body),
  }),
  tool({
    name: "update_group_wiki_page",
    description: "Change a group wiki page's content or title (a new title changes the slug).",
    write: true,
    endpoint: `PUT ${W}/:slug`,
    input: {
      group_id: groupId,
      slug,
      title: z.string().min(1).optional(),
      content: z.string().optional(),
      format,
    },
    run: (api, { group_id, slug, ...body }) => api.put(`${wikis(group_id)}/${enc(slug)}`, body),
  }),
  tool({
    name: "delete_group_wiki_page",
    description: "Delete a page of a group's wiki.",
    write: true,
    destructive: true,
    endpoint: `DELETE ${W}/:slug`,
    input: { group_id: groupId, slug },
    run: (api, a) => api.delete(`${wikis(a.group_id)}/${enc(a.slug)}`),
  }),
];
