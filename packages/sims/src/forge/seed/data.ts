import { findGroup, findProject, groupFullPath } from "../model/access.js";
import { addNote } from "../model/notes.js";
import { addCommit, emptyRepository } from "../model/repo.js";
import type { ForgeState, Group, Member, Project, Visibility } from "../model/state.js";
import { nextId, userById, userByName } from "../model/state.js";
import { check, list, seededId } from "./records.js";

/**
 * Seeding of the REST world (groups, projects with repositories, issues, merge requests, pipelines)
 * in the same shape `/_sim/state` dumps, so a dump can be replayed into a fresh simulator.
 */
const VISIBILITIES = new Set(["public", "internal", "private"]);

function visibility(v: unknown, where: string): Visibility {
  if (v === undefined) return "public";
  check(
    typeof v === "string" && VISIBILITIES.has(v),
    `${where}: visibility must be public, internal or private`,
  );
  return v as Visibility;
}

export function user(state: ForgeState, v: unknown, where: string, fallback?: string): number {
  const name = v ?? fallback;
  const u = typeof name === "number" ? userById(state, name) : userByName(state, String(name));
  check(u, `${where}: unknown user ${String(name)}`);
  return u.id;
}

export function users(state: ForgeState, v: unknown, where: string): number[] {
  if (v === undefined) return [];
  check(Array.isArray(v), `${where} must be an array of usernames`);
  return v.map((x) => user(state, x, where));
}

function members(state: ForgeState, v: unknown, where: string): Member[] {
  if (v === undefined) return [];
  check(Array.isArray(v), `${where}.members must be an array`);
  return v.map((m: any) => {
    check([10, 20, 30, 40, 50].includes(m?.access_level), `${where}.members[].access_level must be 10-50`);
    return { user_id: user(state, m.user, `${where}.members[]`), access_level: m.access_level };
  });
}

function files(v: unknown, where: string): Record<string, string> {
  check(
    typeof v === "object" && v !== null && Object.values(v).every((c) => typeof c === "string" || c === null),
    `${where} must map paths to contents`,
  );
  return v as Record<string, string>;
}

export function seedGroup(state: ForgeState, g: Record<string, any>): void {
  check(typeof g.path === "string" && /^[\w.-]+$/.test(g.path), "groups[].path is required");
  const parent = g.parent === undefined || g.parent === null ? null : findGroup(state, String(g.parent));
  check(parent !== undefined, `group ${g.path}: unknown parent ${g.parent}`);
  const full = parent ? `${groupFullPath(state, parent)}/${g.path}` : g.path;
  check(!findGroup(state, full), `group ${full} already exists`);
  const group: Group = {
    id: typeof g.id === "number" ? g.id : nextId(state, "group"),
    name: typeof g.name === "string" ? g.name : g.path,
    path: g.path,
    parent_id: parent ? parent.id : null,
    description: typeof g.description === "string" ? g.description : "",
    visibility: visibility(g.visibility, `group ${full}`),
    members: members(state, g.members, `group ${full}`),
    created_at: typeof g.created_at === "string" ? g.created_at : state.clock.iso(),
  };
  state.seq.group = Math.max(state.seq.group, group.id);
  state.groups.push(group);
}

function seedRepository(state: ForgeState, project: Project, p: Record<string, any>, author: number): void {
  const repo = project.repository;
  const who = userById(state, author)!;
  if (p.repository) {
    // The dump's full form: every commit with its snapshot, and the branch heads.
    for (const c of list(p.repository, "commits")) {
      addCommit(repo, {
        parents: Array.isArray(c.parent_ids) ? c.parent_ids : [],
        message: String(c.message ?? "commit"),
        author_name: String(c.author_name ?? who.name),
        author_email: String(c.author_email ?? who.email),
        files: files(c.files ?? {}, `project ${p.path} commit files`),
        created_at: String(c.created_at ?? state.clock.iso()),
      });
    }
    for (const [name, sha] of Object.entries(p.repository.branches ?? {})) {
      check(repo.commits.has(String(sha)), `project ${p.path}: branch ${name} points at an unknown commit`);
      repo.branches.set(name, String(sha));
    }
    for (const name of p.repository.protected ?? []) repo.protected.add(String(name));
    for (const t of list(p.repository, "tags")) {
      check(
        repo.commits.has(String(t.target)),
        `project ${p.path}: tag ${t.name} points at an unknown commit`,
      );
      repo.tags.set(String(t.name), {
        name: String(t.name),
        target: String(t.target),
        message: typeof t.message === "string" ? t.message : null,
        created_at: String(t.created_at ?? state.clock.iso()),
      });
    }
    return;
  }
  if (p.files === undefined) return;
  const when = typeof p.created_at === "string" ? p.created_at : state.clock.iso();
  const root = addCommit(repo, {
    parents: [],
    message: "Initial commit",
    author_name: who.name,
    author_email: who.email,
    files: files(p.files, `project ${p.path} files`),
    created_at: when,
  });
  repo.branches.set(project.default_branch, root.id);
  repo.protected.add(project.default_branch);
  for (const [name, message] of Object.entries((p.tags ?? {}) as Record<string, unknown>)) {
    repo.tags.set(name, {
      name,
      target: root.id,
      message: typeof message === "string" ? message : null,
      created_at: when,
    });
  }
  for (const [name, spec] of Object.entries((p.branches ?? {}) as Record<string, any>)) {
    const changes = files(spec?.files ?? {}, `project ${p.path} branch ${name} files`);
    const snapshot = { ...root.files };
    for (const [path, content] of Object.entries(changes)) {
      if (content === null) delete snapshot[path];
      else snapshot[path] = content;
    }
    const c = addCommit(repo, {
      parents: [root.id],
      message: String(spec?.message ?? `Update ${name}`),
      author_name: who.name,
      author_email: who.email,
      files: snapshot,
      created_at: typeof spec?.created_at === "string" ? spec.created_at : when,
    });
    repo.branches.set(name, c.id);
  }
}

export function seedProject(state: ForgeState, p: Record<string, any>): void {
  check(typeof p.path === "string" && /^[\w.-]+$/.test(p.path), "projects[].path is required");
  check(typeof p.namespace === "string", `project ${p.path}: namespace (group path or username) is required`);
  const group = findGroup(state, p.namespace);
  const owner = group ? undefined : userByName(state, p.namespace);
  check(group || owner, `project ${p.path}: unknown namespace ${p.namespace}`);
  check(!findProject(state, `${p.namespace}/${p.path}`), `project ${p.namespace}/${p.path} already exists`);
  const creator = user(state, p.creator, `project ${p.path}`, owner?.username ?? "root");
  const created = typeof p.created_at === "string" ? p.created_at : state.clock.iso();
  const project: Project = {
    id: typeof p.id === "number" ? p.id : nextId(state, "project"),
    name: typeof p.name === "string" ? p.name : p.path,
    path: p.path,
    description: typeof p.description === "string" ? p.description : "",
    namespace: group ? { kind: "group", id: group.id } : { kind: "user", id: owner!.id },
    visibility: visibility(p.visibility, `project ${p.path}`),
    default_branch: typeof p.default_branch === "string" ? p.default_branch : "main",
    archived: p.archived === true,
    members: members(state, p.members, `project ${p.path}`),
    creator_id: creator,
    created_at: created,
    last_activity_at: typeof p.last_activity_at === "string" ? p.last_activity_at : created,
    repository: emptyRepository(),
  };
  state.seq.project = Math.max(state.seq.project, project.id);
  seedRepository(state, project, p, creator);
  state.projects.push(project);
}

export function projectOf(state: ForgeState, v: unknown, where: string): Project {
  const p = findProject(state, String(v));
  check(p, `${where}: unknown project ${String(v)}`);
  return p;
}

/**
 * An issue's or merge request's notes: `notes` (each its own discussion) and `discussions`
 * (threads; as dumped, every discussion in order, `individual_note: true` for a lone note). A
 * dumped note keeps its id, times and resolution.
 */
export function seedNotes(
  state: ForgeState,
  on: Parameters<typeof addNote>[1],
  v: Record<string, any>,
  where: string,
) {
  const at = (n: Record<string, any>) => (typeof n.created_at === "string" ? n.created_at : on.created_at);
  const add = (n: Record<string, any>, opts: { individual?: boolean; resolvable?: boolean }) => {
    const made = addNote(state, on, user(state, n.author, where), String(n.body ?? ""), {
      ...opts,
      ...(typeof n.resolvable === "boolean" ? { resolvable: n.resolvable } : {}),
      system: n.system === true,
      at: at(n),
      ...(typeof n.id === "number" ? { id: n.id } : {}),
    });
    if (typeof n.updated_at === "string") made.note.updated_at = n.updated_at;
    if (typeof n.resolved === "boolean") made.note.resolved = n.resolved;
    if (n.position && typeof n.position === "object") made.note.position = n.position;
    return made;
  };
  for (const n of list(v, "notes")) add(n, {});
  for (const thread of list(v, "discussions")) {
    const notes = list(thread, "notes");
    check(notes.length > 0, `${where}: a discussion needs notes`);
    if (thread.individual_note === true) {
      add(notes[0]!, {});
      continue;
    }
    const first = add(notes[0]!, { individual: false, resolvable: "source_branch" in on });
    for (const n of notes.slice(1)) {
      const reply = add(n, { resolvable: "source_branch" in on });
      on.discussions = on.discussions.filter((d) => d !== reply.discussion);
      first.discussion.notes.push(reply.note);
    }
    if (thread.resolved === true) for (const n of first.discussion.notes) n.resolved = true;
  }
}

export function seedIssue(state: ForgeState, i: Record<string, any>): void {
  const project = projectOf(state, i.project, "issues[]");
  check(typeof i.title === "string" && i.title, "issues[].title is required");
  const created = typeof i.created_at === "string" ? i.created_at : state.clock.iso();
  const iid =
    typeof i.iid === "number"
      ? i.iid
      : Math.max(0, ...state.issues.filter((x) => x.project_id === project.id).map((x) => x.iid)) + 1;
  const closed = i.state === "closed";
  const issue = {
    id: seededId(state, "issue", i.id),
    iid,
    project_id: project.id,
    title: i.title,
    description: typeof i.description === "string" ? i.description : "",
    state: closed ? ("closed" as const) : ("opened" as const),
    labels: Array.isArray(i.labels) ? i.labels.map(String) : [],
    author_id: user(state, i.author, "issues[]", "alice"),
    assignee_ids: users(state, i.assignees, "issues[].assignees"),
    created_at: created,
    updated_at: typeof i.updated_at === "string" ? i.updated_at : created,
    closed_at: closed ? (typeof i.closed_at === "string" ? i.closed_at : created) : null,
    closed_by_id: closed ? user(state, i.closed_by, "issues[]", "alice") : null,
    confidential: i.confidential === true,
    due_date: typeof i.due_date === "string" ? i.due_date : null,
    discussions: [],
  };
  state.issues.push(issue);
  seedNotes(state, issue, i, `issue ${i.title}`);
  issue.updated_at = typeof i.updated_at === "string" ? i.updated_at : created;
}
