import { findProject, projectFullPath } from "../model/access.js";
import { emptyExtras, wikiSlug } from "../model/project-extras.js";
import { resolveRef } from "../model/repo.js";
import { type ForgeState, type Project, userByName } from "../model/state.js";
import { check, list } from "./auth.js";

/**
 * `/_sim/seed` keys for a project's extra records (model/project-extras.ts), by project path (ids change when a seed
 * replaces the world): `labels`, `milestones`, `releases`, `wiki`, `artifacts`. `replace: true`
 * empties them first. Issue links, to-dos done and issue milestones are not seeded.
 */
export function seedExtras(state: ForgeState, body: Record<string, unknown>): void {
  if (body.replace === true) state.extras = { ...emptyExtras(), seq: state.extras.seq };
  const d = state.extras;
  const project = (x: Record<string, any>, where: string): Project => {
    const p = typeof x.project === "string" ? findProject(state, x.project) : undefined;
    check(p, `${where}: project ${JSON.stringify(x.project)} does not exist`);
    return p;
  };
  const now = state.clock.iso();
  for (const l of list(body, "labels")) {
    const p = project(l, "labels[]");
    check(typeof l.name === "string" && l.name, "labels[].name is required");
    d.labels = d.labels.filter((x) => !(x.project_id === p.id && x.name === l.name));
    d.labels.push({
      id: ++d.seq,
      project_id: p.id,
      name: l.name,
      color: typeof l.color === "string" ? l.color : "#6699cc",
      description: typeof l.description === "string" ? l.description : null,
      priority: typeof l.priority === "number" ? l.priority : null,
    });
  }
  for (const m of list(body, "milestones")) {
    const p = project(m, "milestones[]");
    check(typeof m.title === "string" && m.title, "milestones[].title is required");
    d.milestones.push({
      id: ++d.seq,
      iid: d.milestones.filter((x) => x.project_id === p.id).length + 1,
      project_id: p.id,
      title: m.title,
      description: typeof m.description === "string" ? m.description : "",
      state: m.state === "closed" ? "closed" : "active",
      start_date: typeof m.start_date === "string" ? m.start_date : null,
      due_date: typeof m.due_date === "string" ? m.due_date : null,
      created_at: now,
      updated_at: now,
    });
  }
  for (const r of list(body, "releases")) {
    const p = project(r, "releases[]");
    check(typeof r.tag_name === "string" && r.tag_name, "releases[].tag_name is required");
    if (!p.repository.tags.has(r.tag_name)) {
      const c = typeof r.ref === "string" ? resolveRef(p.repository, r.ref) : undefined;
      check(c, `releases[]: tag ${r.tag_name} does not exist and no valid ref was given`);
      p.repository.tags.set(r.tag_name, { name: r.tag_name, target: c.id, message: null, created_at: now });
    }
    const author = typeof r.author === "string" ? userByName(state, r.author) : undefined;
    d.releases.push({
      project_id: p.id,
      tag_name: r.tag_name,
      name: typeof r.name === "string" ? r.name : r.tag_name,
      description: typeof r.description === "string" ? r.description : "",
      author_id: author?.id ?? p.creator_id,
      milestones: Array.isArray(r.milestones) ? r.milestones.map(String) : [],
      created_at: typeof r.created_at === "string" ? r.created_at : now,
      released_at: typeof r.released_at === "string" ? r.released_at : now,
    });
  }
  for (const w of list(body, "wiki")) {
    const p = project(w, "wiki[]");
    check(typeof w.title === "string" && w.title, "wiki[].title is required");
    d.wiki.push({
      project_id: p.id,
      slug: wikiSlug(w.title),
      title: w.title,
      content: typeof w.content === "string" ? w.content : "",
      format: typeof w.format === "string" ? w.format : "markdown",
    });
  }
  for (const a of list(body, "artifacts")) {
    const p = project(a, "artifacts[]");
    const job = state.jobs
      .filter((j) => j.project_id === p.id && j.name === a.job && (a.ref === undefined || j.ref === a.ref))
      .sort((x, y) => y.id - x.id)[0];
    check(job, `artifacts[]: no job ${JSON.stringify(a.job)} in ${JSON.stringify(a.project)}`);
    check(a.files && typeof a.files === "object", "artifacts[].files must be an object of path → text");
    d.artifacts[job.id] = Object.fromEntries(
      Object.entries(a.files as object).map(([k, v]) => [k, String(v)]),
    );
  }
}

/** The extra records in the shape `seedExtras` reads. */
export function dumpExtras(state: ForgeState) {
  const path = (id: number) => {
    const p = state.projects.find((x) => x.id === id);
    return p ? projectFullPath(state, p) : null;
  };
  const d = state.extras;
  return {
    labels: d.labels.map(({ id: _id, project_id, ...l }) => ({ project: path(project_id), ...l })),
    milestones: d.milestones.map(
      ({ id: _id, iid: _iid, project_id, created_at: _c, updated_at: _u, ...m }) => ({
        project: path(project_id),
        ...m,
      }),
    ),
    releases: d.releases.map(({ project_id, author_id, ...r }) => ({
      project: path(project_id),
      author: state.users.find((u) => u.id === author_id)?.username ?? null,
      ...r,
    })),
    wiki: d.wiki.map(({ project_id, slug: _slug, ...w }) => ({ project: path(project_id), ...w })),
    artifacts: Object.entries(d.artifacts).flatMap(([id, files]) => {
      const job = state.jobs.find((j) => j.id === Number(id));
      return job ? [{ project: path(job.project_id), job: job.name, ref: job.ref, files }] : [];
    }),
  };
}
