import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { loadGroup, loadProject } from "../model/access.js";
import { ACCESS, type ForgeState } from "../model/state.js";
import { editWikiPage, newWikiPage, wikiJson } from "../model/wikis.js";
import { missing, notFound } from "../wire/answers.js";
import { boolParam, params } from "../wire/params.js";
import { type Routes, twins } from "../wire/router.js";
import { groupLevel } from "./groups.js";

/**
 * Wikis (GitLab's wikis.rb): a project's (`/projects/:id/wikis`) and a group's (Premium,
 * `/groups/:id/wikis`), the same pages and answers; reading needs the owner visible, writing a
 * developer of it.
 */

type Page = { slug: string; title: string; content: string; format: string };

/** One owner's pages: read them, add one stamped with the owner, remove one. */
interface Wiki {
  pages(): Page[];
  add(page: Page): Page;
  remove(page: Page): void;
}

export function wikiRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;
  const projectWiki = (id: number): Wiki => ({
    pages: () => s().wiki.filter((w) => w.project_id === id),
    add: (page) => {
      const w = { project_id: id, ...page };
      s().wiki.push(w);
      return w;
    },
    remove: (page) => {
      s().wiki = s().wiki.filter((x) => x !== page);
    },
  });
  const groupWiki = (id: number): Wiki => ({
    pages: () => s().groupWiki.filter((w) => w.group_id === id),
    add: (page) => {
      const w = { group_id: id, ...page };
      s().groupWiki.push(w);
      return w;
    },
    remove: (page) => {
      s().groupWiki = s().groupWiki.filter((x) => x !== page);
    },
  });

  const owners = (min: number) => [
    (req: Request, res: Response) => {
      const p = loadProject(s(), req, res, min);
      return p ? projectWiki(p.id) : null;
    },
    (req: Request, res: Response) => {
      const g = loadGroup(s(), req, res);
      return g && (min === 0 || groupLevel(ctx, res, g, min)) ? groupWiki(g.id) : null;
    },
  ];
  const reading = twins(r, owners(0));
  const writing = twins(r, owners(ACCESS.developer));
  const findPage = (wiki: Wiki, slug: unknown) => wiki.pages().find((w) => w.slug === String(slug));

  reading.get(["/projects/:id/wikis", "/groups/:id/wikis"], (wiki, req, res) => {
    const content = boolParam((req.query as Record<string, unknown>).with_content) === true;
    res.json(wiki.pages().map((w) => wikiJson(w, content)));
  });

  reading.get(["/projects/:id/wikis/:slug", "/groups/:id/wikis/:slug"], (wiki, req, res) => {
    const w = findPage(wiki, req.params.slug);
    if (!w) return notFound(res, "Wiki Page");
    res.json(wikiJson(w, true));
  });

  writing.post(["/projects/:id/wikis", "/groups/:id/wikis"], (wiki, req, res) => {
    const made = newWikiPage(params(req), (slug) => findPage(wiki, slug) !== undefined);
    if ("missing" in made) return missing(res, ...made.missing);
    if ("error" in made) return void res.status(400).json({ message: made.error });
    res.status(201).json(wikiJson(wiki.add(made.page), true));
  });

  writing.put(["/projects/:id/wikis/:slug", "/groups/:id/wikis/:slug"], (wiki, req, res) => {
    const w = findPage(wiki, req.params.slug);
    if (!w) return notFound(res, "Wiki Page");
    const error = editWikiPage(w, params(req));
    if (error) return void res.status(400).json({ error });
    res.json(wikiJson(w, true));
  });

  writing.delete(["/projects/:id/wikis/:slug", "/groups/:id/wikis/:slug"], (wiki, req, res) => {
    const w = findPage(wiki, req.params.slug);
    if (!w) return notFound(res, "Wiki Page");
    wiki.remove(w);
    res.status(204).end();
  });
}
