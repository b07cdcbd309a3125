import { createHash } from "node:crypto";
import { structuredPatch } from "diff";
import type { Commit, ForgeState, Project, Repository } from "./state.js";

/** Git's own blob id, so `blob_id` values look and compare like GitLab's. */
export function blobId(content: string): string {
  const bytes = Buffer.from(content, "utf8");
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

export function emptyRepository(): Repository {
  return { commits: new Map(), branches: new Map(), protected: new Set(), tags: new Map() };
}

interface CommitInput {
  parents: string[];
  message: string;
  author_name: string;
  author_email: string;
  files: Record<string, string>;
  created_at: string;
}

export function addCommit(repo: Repository, input: CommitInput): Commit {
  const id = createHash("sha1")
    .update(JSON.stringify([input.parents, input.message, input.author_email, input.created_at, input.files]))
    .digest("hex");
  const commit: Commit = {
    id,
    title: input.message.split("\n")[0] ?? "",
    message: input.message,
    author_name: input.author_name,
    author_email: input.author_email,
    created_at: input.created_at,
    parent_ids: input.parents,
    files: input.files,
  };
  repo.commits.set(id, commit);
  return commit;
}

/** A branch name, a full sha or an unambiguous sha prefix (7+ characters). */
export function resolveRef(repo: Repository, ref: string | undefined, fallback?: string): Commit | undefined {
  const name = ref ?? fallback;
  if (!name) return undefined;
  const branchHead = repo.branches.get(name) ?? repo.tags.get(name)?.target;
  if (branchHead) return repo.commits.get(branchHead);
  const exact = repo.commits.get(name);
  if (exact) return exact;
  if (/^[0-9a-f]{7,39}$/.test(name)) {
    const matches = [...repo.commits.keys()].filter((k) => k.startsWith(name));
    if (matches.length === 1) return repo.commits.get(matches[0]!);
  }
  return undefined;
}

/** Ancestors of `head` (itself included), newest first. */
export function history(repo: Repository, head: Commit): Commit[] {
  const seen = new Set<string>();
  const out: Commit[] = [];
  const stack = [head.id];
  while (stack.length) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const c = repo.commits.get(id);
    if (!c) continue;
    out.push(c);
    stack.push(...c.parent_ids);
  }
  return out.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
}

export interface DiffEntry {
  old_path: string;
  new_path: string;
  a_mode: string;
  b_mode: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
  generated_file: boolean;
  diff: string;
}

function hunks(
  path: string,
  before: string,
  after: string,
): { text: string; added: number; removed: number } {
  const patch = structuredPatch(path, path, before, after, undefined, undefined, { context: 3 });
  let added = 0;
  let removed = 0;
  const text = patch.hunks
    .map((h) => {
      for (const l of h.lines) {
        if (l.startsWith("+")) added += 1;
        else if (l.startsWith("-")) removed += 1;
      }
      const oldStart = h.oldLines === 0 ? 0 : h.oldStart;
      const newStart = h.newLines === 0 ? 0 : h.newStart;
      return `@@ -${oldStart},${h.oldLines} +${newStart},${h.newLines} @@\n${h.lines.join("\n")}\n`;
    })
    .join("");
  return { text, added, removed };
}

/** File-level diff between two snapshots, in GitLab's diff-entry shape, sorted by path. */
function diffSnapshots(
  before: Record<string, string>,
  after: Record<string, string>,
): { entries: DiffEntry[]; additions: number; deletions: number } {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const entries: DiffEntry[] = [];
  let additions = 0;
  let deletions = 0;
  for (const path of paths) {
    const a = before[path];
    const b = after[path];
    if (a === b) continue;
    const h = hunks(path, a ?? "", b ?? "");
    additions += h.added;
    deletions += h.removed;
    entries.push({
      old_path: path,
      new_path: path,
      a_mode: a === undefined ? "0" : "100644",
      b_mode: b === undefined ? "0" : "100644",
      new_file: a === undefined,
      renamed_file: false,
      deleted_file: b === undefined,
      generated_file: false,
      diff: h.text,
    });
  }
  return { entries, additions, deletions };
}

type SnapshotDiff = ReturnType<typeof diffSnapshots>;
const EMPTY_TREE: Record<string, string> = {};
/** Commits never change, so a diff between two of them is computed once (MR pages re-read it often). */
const diffCache = new WeakMap<Commit, Map<string, SnapshotDiff>>();

/** Diff from `before` (or the empty tree) to `after` (or the empty tree), cached per commit pair. */
export function diffCommits(before: Commit | undefined, after: Commit | undefined): SnapshotDiff {
  if (!after) return diffSnapshots(before?.files ?? EMPTY_TREE, EMPTY_TREE);
  let byBase = diffCache.get(after);
  if (!byBase) {
    byBase = new Map();
    diffCache.set(after, byBase);
  }
  const key = before?.id ?? "";
  let hit = byBase.get(key);
  if (!hit) {
    hit = diffSnapshots(before?.files ?? EMPTY_TREE, after.files);
    byBase.set(key, hit);
  }
  return hit;
}

export function commitJson(c: Commit, origin: string, webBase: string) {
  return {
    id: c.id,
    short_id: c.id.slice(0, 8),
    created_at: c.created_at,
    parent_ids: c.parent_ids,
    title: c.title,
    message: c.message,
    author_name: c.author_name,
    author_email: c.author_email,
    authored_date: c.created_at,
    committer_name: c.author_name,
    committer_email: c.author_email,
    committed_date: c.created_at,
    trailers: {},
    extended_trailers: {},
    web_url: `${origin}/${webBase}/-/commit/${c.id}`,
  };
}

/** Commit detail (`GET .../commits/:sha`): adds stats against the first parent. */
export function commitDetailJson(
  state: ForgeState,
  project: Project,
  c: Commit,
  origin: string,
  webBase: string,
) {
  const parent = c.parent_ids[0] ? project.repository.commits.get(c.parent_ids[0]) : undefined;
  const d = diffCommits(parent, c);
  const last = state.pipelines
    .filter((p) => p.project_id === project.id && p.sha === c.id)
    .sort((a, b) => b.id - a.id)[0];
  return {
    ...commitJson(c, origin, webBase),
    stats: { additions: d.additions, deletions: d.deletions, total: d.additions + d.deletions },
    status: last?.status ?? null,
    project_id: project.id,
    last_pipeline: last
      ? {
          id: last.id,
          iid: last.iid,
          project_id: project.id,
          sha: last.sha,
          ref: last.ref,
          status: last.status,
        }
      : null,
  };
}
