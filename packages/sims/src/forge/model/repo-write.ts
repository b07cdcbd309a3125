import { addCommit, resolveRef } from "./repo.js";
import type { Commit, ForgeState, ForgeUser, Project } from "./state.js";

export interface CommitAction {
  action: string;
  file_path?: unknown;
  previous_path?: unknown;
  content?: unknown;
  encoding?: unknown;
  last_commit_id?: unknown;
}

interface CommitRequest {
  branch: string;
  message: string;
  startBranch?: string;
  startSha?: string;
  actions: CommitAction[];
  authorName?: string;
  authorEmail?: string;
}

/** Git ref-format rules that matter for names clients send. */
export function validBranchName(name: string): boolean {
  return (
    name.length > 0 &&
    !/[\s~^:?*[\\\x00-\x1f\x7f]/.test(name) &&
    !name.includes("..") &&
    !name.includes("@{") &&
    !name.startsWith("/") &&
    !name.endsWith("/") &&
    !name.endsWith(".") &&
    !name.endsWith(".lock") &&
    !name.startsWith("-")
  );
}

function decode(content: unknown, encoding: unknown): string {
  const text = typeof content === "string" ? content : "";
  return encoding === "base64" ? Buffer.from(text, "base64").toString("utf8") : text;
}

/** The newest commit on `head`'s history that changed `path`. */
export function lastCommitFor(project: Project, head: Commit, path: string): Commit {
  let cur: Commit | undefined = head;
  while (cur) {
    const parent: Commit | undefined = cur.parent_ids[0]
      ? project.repository.commits.get(cur.parent_ids[0])
      : undefined;
    if (!parent || parent.files[path] !== cur.files[path]) return cur;
    cur = parent;
  }
  return head;
}

/**
 * Applies commit actions (create, update, delete, move, chmod) on top of the branch (or the start
 * branch/sha for a new branch) and moves the branch. Answers the commit, or GitLab's error message.
 */
export function commitActions(
  state: ForgeState,
  project: Project,
  user: ForgeUser,
  req: CommitRequest,
): Commit | { error: string } {
  const repo = project.repository;
  if (!validBranchName(req.branch)) return { error: "Branch name is invalid" };
  const existing = repo.branches.get(req.branch);
  let parent: Commit | undefined;
  if (existing) parent = repo.commits.get(existing);
  else if (req.startBranch || req.startSha) {
    parent = resolveRef(repo, req.startSha ?? req.startBranch);
    if (!parent) return { error: `Invalid start ref: ${req.startSha ?? req.startBranch}` };
  } else if (repo.branches.size > 0) {
    return { error: "You can only create or edit files when you are on a branch" };
  }
  const files: Record<string, string> = { ...(parent?.files ?? {}) };
  for (const a of req.actions) {
    const path = typeof a.file_path === "string" ? a.file_path.replace(/^\/+/, "") : "";
    if (!path) return { error: "You must provide a file path" };
    switch (a.action) {
      case "create":
        if (files[path] !== undefined) return { error: "A file with this name already exists" };
        files[path] = decode(a.content, a.encoding);
        break;
      case "update":
        if (files[path] === undefined) return { error: "A file with this name doesn't exist" };
        if (
          typeof a.last_commit_id === "string" &&
          parent &&
          lastCommitFor(project, parent, path).id !== a.last_commit_id
        ) {
          return {
            error: "You are attempting to update a file that has changed since you started editing it.",
          };
        }
        files[path] = decode(a.content, a.encoding);
        break;
      case "delete":
        if (files[path] === undefined) return { error: "A file with this name doesn't exist" };
        delete files[path];
        break;
      case "move": {
        const from = typeof a.previous_path === "string" ? a.previous_path : "";
        if (files[from] === undefined) return { error: "A file with this name doesn't exist" };
        if (files[path] !== undefined) return { error: "A file with this name already exists" };
        files[path] = a.content === undefined ? files[from]! : decode(a.content, a.encoding);
        delete files[from];
        break;
      }
      case "chmod":
        if (files[path] === undefined) return { error: "A file with this name doesn't exist" };
        break;
      default:
        return { error: "actions[action] does not have a valid value" };
    }
  }
  const commit = addCommit(repo, {
    parents: parent ? [parent.id] : [],
    message: req.message,
    author_name: req.authorName ?? user.name,
    author_email: req.authorEmail ?? user.email,
    files,
    created_at: state.clock.iso(),
  });
  repo.branches.set(req.branch, commit.id);
  project.last_activity_at = commit.created_at;
  return commit;
}
