import type { SimContext } from "../../core/sim.js";
import { caller, loadProject, projectFullPath } from "../model/access.js";
import { commitJson, resolveRef } from "../model/repo.js";
import type { ReleaseRow } from "../model/state.js";
import { ACCESS, type ForgeState, nextId, type Project } from "../model/state.js";
import { userRef } from "../model/users.js";
import { missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

/**
 * Releases (GitLab's releases.rb): a project's releases by tag, their evidence snapshots (Premium)
 * and asset downloads.
 */
export function releaseRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const fullPath = (p: Project) => projectFullPath(ctx.state, p);
  const d = () => ctx.state;
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

  r.get("/projects/:id/releases", (req, res) => {
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

  r.get("/projects/:id/releases/:tag_name", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const r = findRelease(p, String(req.params.tag_name));
    if (!r) return notFound(res);
    res.json(releaseJson(p, r));
  });

  r.post("/projects/:id/releases", (req, res) => {
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

  r.put("/projects/:id/releases/:tag_name", (req, res) => {
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

  r.delete("/projects/:id/releases/:tag_name", (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.maintainer);
    if (!p) return;
    const r = findRelease(p, String(req.params.tag_name));
    if (!r) return notFound(res);
    d().releases = d().releases.filter((x) => x !== r);
    // GitLab answers the deleted release.
    res.json(releaseJson(p, r));
  });

  // Premium: a new evidence snapshot of an existing release (201, body true)
  r.post("/projects/:id/releases/:tag_name/evidence", (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.reporter);
    if (!p) return;
    const r = findRelease(p, String(req.params.tag_name));
    if (!r) return notFound(res);
    const tag = p.repository.tags.get(r.tag_name);
    ctx.state.evidence.push({
      id: nextId(ctx.state, "record2"),
      project_id: p.id,
      tag_name: r.tag_name,
      sha: (tag?.target ?? "").padEnd(40, "0").slice(0, 40),
      collected_at: ctx.state.clock.iso(),
    });
    res.status(201).json(true);
  });

  // a release asset by its direct_asset_path: a redirect to the link's URL
  r.get("/projects/:id/releases/:tag_name/downloads/*asset", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const r = findRelease(p, String(req.params.tag_name));
    if (!r) return notFound(res);
    const raw = (req.params as Record<string, unknown>).asset;
    const path = `/${Array.isArray(raw) ? raw.join("/") : String(raw)}`;
    const link = ctx.state.releaseLinks.find(
      (l) => l.project_id === p.id && l.tag_name === r.tag_name && l.direct_asset_path === path,
    );
    if (!link) return notFound(res);
    res.redirect(302, link.url);
  });
}
