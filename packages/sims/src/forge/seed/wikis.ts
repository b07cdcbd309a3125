import { wikiSlug } from "../model/wikis.js";
import { ownedRows, text } from "./records.js";

/**
 * `/_sim/seed` keys `wiki` ({project, title, content, format?}) and `group_wiki` ({group, title,
 * content, format?}): wiki pages, dumped in that shape (a page's slug follows from its title).
 */
function wikiPage(x: Record<string, any>) {
  return {
    slug: wikiSlug(x.title),
    title: x.title,
    content: text(x.content, ""),
    format: text(x.format, "markdown"),
  };
}

export const projectWikis = ownedRows({
  key: "wiki",
  field: "wiki",
  owner: "project",
  required: ["title"],
  build: (_state, w, project_id) => ({ project_id, ...wikiPage(w) }),
  derived: ["slug"],
});

export const groupWikis = ownedRows({
  key: "group_wiki",
  field: "groupWiki",
  owner: "group",
  required: ["title"],
  build: (_state, w, group_id) => ({ group_id, ...wikiPage(w) }),
  derived: ["slug"],
});
