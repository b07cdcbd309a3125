import { z } from "zod";
import { enc } from "../forge/api.js";
import { projectId, tool } from "./define.js";

const wikis = (p: string | number) => `/projects/${enc(p)}/wikis`;
const W = "/projects/:id/wikis";
const slug = z.string().min(1).describe("Page slug, e.g. home or dir/page");
const format = z.enum(["markdown", "rdoc", "asciidoc", "org"]).optional();

/** The wiki list is not paged by the forge: it answers every page at once. */
export const wikiTools = [
  tool({
    name: "list_wiki_pages",
    description: "List the wiki pages of a project (with their content when with_content is true).",
    write: false,
    endpoint: `GET ${W}`,
    input: { project_id: projectId, with_content: z.boolean().optional() },
    run: (api, { project_id, with_content }) =>
      api.get(wikis(project_id), {
        with_content: with_content === undefined ? undefined : Number(with_content),
      }),
  }),
  tool({
    name: "get_wiki_page",
    description: "Read one wiki page.",
    write: false,
    endpoint: `GET ${W}/:slug`,
    input: { project_id: projectId, slug, version: z.string().optional().describe("A page version sha") },
    run: (api, { project_id, slug, version }) => api.get(`${wikis(project_id)}/${enc(slug)}`, { version }),
  }),
  tool({
    name: "create_wiki_page",
    description: "Create a wiki page.",
    write: true,
    endpoint: `POST ${W}`,
    input: { project_id: projectId, title: z.string().min(1), content: z.string(), format },
    run: (api, { project_id, ...body }) => api.post(wikis(project_id), body),
  }),
  tool({
    name: "update_wiki_page",
    description: "Change a wiki page's content or title.",
    write: true,
    endpoint: `PUT ${W}/:slug`,
    input: {
      project_id: projectId,
      slug,
      title: z.string().min(1).optional(),
      content: z.string().optional(),
      format,
    },
    run: (api, { project_id, slug, ...body }) => api.put(`${wikis(project_id)}/${enc(slug)}`, body),
  }),
  tool({
    name: "delete_wiki_page",
    description: "Delete a wiki page.",
    write: true,
    destructive: true,
    endpoint: `DELETE ${W}/:slug`,
    input: { project_id: projectId, slug },
    run: (api, a) => api.delete(`${wikis(a.project_id)}/${enc(a.slug)}`),
  }),
];
