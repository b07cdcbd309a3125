import type { Express } from "express";
import type { SimContext } from "../../core/sim.js";
import { caller, loadProject } from "../model/access.js";
import { commitJson, resolveRef } from "../model/repo.js";
import type { ReleaseRow, WikiRow } from "../model/state.js";
import { ACCESS, type ForgeState, type Project } from "../model/state.js";
import { userRef } from "../model/users.js";
import { editWikiPage, newWikiPage, wikiJson } from "../model/wikis.js";
import { API, missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, params, str } from "../wire/params.js";

export function releaseWikiRoutes(
  app: Express,
  ctx: SimContext<ForgeState>,
  fullPath: (p: Project) => string,
): void {
  const d = () => ctx.state;
  const R = `${API}/projects/:id/releases`;
  const findRelease = (p: Project, tag: string) =>
    d().releases.find((r) => r.project_id === p.id && r.tag_name === tag);

  const releaseJson = (p: Project, r: ReleaseRow) => {
    const tag = p.repository.tags.get(r.tag_name);
    const commit = tag ? p.repository.commits.get(tag.target) : undefined;
    const web = `${ctx.origin}/${fullPath(p)}`;
    return {
      tag_name: r.tag_name,
      name: r.name,
      description: r.description,
      created_at: r.created_at,
      released_at: r.released_at,
      upcoming_release: r.released_at > ctx.state.clock.iso(),
      author: userRef(ctx.state, r.author_id, ctx.origin),
      commit: commit ? commitJson(commit, ctx.origin, fullPath(p)) : null,
      milestones: d()
        .milestones.filter((m) => m.project_id === p.id && r.milestones.includes(m.title))
        .map((m) => ({ id: m.id, iid: m.iid, title: m.title, state: m.state })),
      commit_path: commit ? `/${fullPath(p)}/-/commit/${commit.id}` : null,
      tag_path: `/${fullPath(p)}/-/tags/${r.tag_name}`,
      assets: { count: 0, sources: [], links: [] },
      _links: { self: `${web}/-/releases/${encodeURIComponent(r.tag_name)}` },
    };
  };

  const unknownMilestone = (p: Project, titles: unknown): string | undefined => {
    if (!Array.isArray(titles)) return undefined;
    return titles
      .map(String)
      .find((t) => !d().milestones.some((m) => m.project_id === p.id && m.title === t));
  };

  app.get(R, (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    const key = q.order_by === "created_at" ? "created_at" : "released_at";
    const dir = q.sort === "asc" ? 1 : -1;
    const rows = d()
      .releases.filter((r) => r.project_id === p.id)
      .sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0) * dir);
    res.json(paginate(req, res, ctx.origin, rows).map((r) => releaseJson(p, r)));
  });

  app.get(`${R}/:tag_name`, (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const r = findRelease(p, String(req.params.tag_name));
    if (!r) return notFound(res);
    res.json(releaseJson(p, r));
  });

  app.post(R, (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.developer);
    if (!p) return;
    const b = params(req);
    const tagName = str(b.tag_name);
    if (!tagName) return missing(res, "tag_name");
    if (findRelease(p, tagName)) return void res.status(409).json({ message: "Release already exists" });
    const bad = unknownMilestone(p, b.milestones);
    if (bad !== undefined) return void res.status(400).json({ message: `Milestone(s) not found: ${bad}` });
    const now = ctx.state.clock.iso();
    if (!p.repository.tags.has(tagName)) {
      // The tag is created from ref; without ref GitLab refuses.
      const ref = str(b.ref);
      if (!ref) return void res.status(422).json({ message: "Ref is not specified" });
      const commit = resolveRef(p.repository, ref);
      if (!commit) return void res.status(422).json({ message: "Ref is invalid" });
      p.repository.tags.set(tagName, { name: tagName, target: commit.id, message: null, created_at: now });
    }
    const r: ReleaseRow = {
      project_id: p.id,
      tag_name: tagName,
      name: str(b.name) ?? tagName,
      description: str(b.description) ?? "",
      author_id: caller(res)!.user.id,
      milestones: Array.isArray(b.milestones) ? b.milestones.map(String) : [],
      created_at: now,
      released_at: str(b.released_at) ?? now,
    };
    d().releases.push(r);
    res.status(201).json(releaseJson(p, r));
  });

  app.put(`${R}/:tag_name`, (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.developer);
    if (!p) return;
    const r = findRelease(p, String(req.params.tag_name));
    if (!r) return notFound(res);
    const b = params(req);
    const bad = unknownMilestone(p, b.milestones);
    if (bad !== undefined) return void res.status(400).json({ message: `Milestone(s) not found: ${bad}` });
    if (typeof b.name === "string") r.name = b.name;
    if (typeof b.description === "string") r.description = b.description;
    if (typeof b.released_at === "string") r.released_at = b.released_at;
    if (Array.isArray(b.milestones)) r.milestones = b.milestones.map(String);
    res.json(releaseJson(p, r));
  });

  app.delete(`${R}/:tag_name`, (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.maintainer);
    if (!p) return;
    const r = findRelease(p, String(req.params.tag_name));
    if (!r) return notFound(res);
    d().releases = d().releases.filter((x) => x !== r);
    // GitLab answers the deleted release.
    res.json(releaseJson(p, r));
  });

  const W = `${API}/projects/:id/wikis`;
  const findPage = (p: Project, slug: string) =>
    d().wiki.find((w) => w.project_id === p.id && w.slug === slug);

  app.get(W, (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    const content = boolParam(q.with_content) === true;
    res.json(
      d()
        .wiki.filter((w) => w.project_id === p.id)
        .map((w) => wikiJson(w, content)),
    );
  });

  app.get(`${W}/:slug`, (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const w = findPage(p, String(req.params.slug));
    if (!w) return notFound(res, "Wiki Page");
    res.json(wikiJson(w, true));
  });

  app.post(W, (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.developer);
    if (!p) return;
    const made = newWikiPage(params(req), (slug) => findPage(p, slug) !== undefined);
    if ("missing" in made) return missing(res, ...made.missing);
    if ("error" in made) return void res.status(400).json({ message: made.error });
    const w: WikiRow = { project_id: p.id, ...made.page };
    d().wiki.push(w);
    res.status(201).json(wikiJson(w, true));
  });

  app.put(`${W}/:slug`, (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.developer);
    if (!p) return;
    const w = findPage(p, String(req.params.slug));
    if (!w) return notFound(res, "Wiki Page");
    const error = editWikiPage(w, params(req));
    if (error) return void res.status(400).json({ error });
    res.json(wikiJson(w, true));
  });

  app.delete(`${W}/:slug`, (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.developer);
    if (!p) return;
    const w = findPage(p, String(req.params.slug));
    if (!w) return notFound(res, "Wiki Page");
    d().wiki = d().wiki.filter((x) => x !== w);
    res.status(204).end();
  });
}
