import { wikiSlug } from "../model/wikis.js";
import { check } from "./auth.js";
import { groupAt, groupPath, projectAt, projectPath, type RecordKind, text } from "./records.js";

/**
 * `/_sim/seed` keys `wiki` ({project, title, content, format?}) and `group_wiki` ({group, title,
 * content, format?}): wiki pages, dumped in that shape (a page's slug follows from its title).
 */
function wikiPage(x: Record<string, any>, where: string) {
  check(typeof x.title === "string" && x.title, `${where}.title is required`);
  return {
    slug: wikiSlug(x.title),
    title: x.title,
    content: text(x.content, ""),
    format: text(x.format, "markdown"),
  };
}

export const projectWikis: RecordKind = {
  key: "wiki",
  seed(state, rows) {
    for (const w of rows)
      state.wiki.push({ project_id: projectAt(state, w, "wiki[]").id, ...wikiPage(w, "wiki[]") });
  },
  dump: (state) =>
    state.wiki.map(({ project_id, slug: _slug, ...w }) => ({
      project: projectPath(state, project_id),
      ...w,
    })),
  reset(state) {
    state.wiki = [];
  },
};

export const groupWikis: RecordKind = {
  key: "group_wiki",
  seed(state, rows) {
    for (const w of rows)
      state.groupWiki.push({
        group_id: groupAt(state, w, "group_wiki[]").id,
        ...wikiPage(w, "group_wiki[]"),
      });
  },
  dump: (state) =>
    state.groupWiki.map(({ group_id, slug: _slug, ...w }) => ({ group: groupPath(state, group_id), ...w })),
  reset(state) {
    state.groupWiki = [];
  },
};
