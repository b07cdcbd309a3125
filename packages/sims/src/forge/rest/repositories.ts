import { createHash } from "node:crypto";
import type { SimContext } from "../../core/sim.js";
import { loadProject, projectFullPath } from "../model/access.js";
import { blobId, commitJson, diffCommits, history, resolveRef } from "../model/repo.js";
import type { ForgeState, Project } from "../model/state.js";
import { missing, notFound } from "../wire/answers.js";
import { keysetPaginate, paginate, wantsKeyset } from "../wire/paginate.js";
import { boolParam, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

/** A repository's tree and compare (GitLab's repositories.rb). */
function treeEntries(files: Record<string, string>, dir: string, recursive: boolean) {
  const prefix = dir ? `${dir}/` : "";
  const trees = new Map<string, string[]>();
  const blobs: { path: string; content: string }[] = [];
  for (const [path, content] of Object.entries(files)) {
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length).split("/");
    if (rest.length === 1) blobs.push({ path, content });
    for (let depth = 1; depth < rest.length && (recursive || depth === 1); depth++) {
      const treePath = prefix + rest.slice(0, depth).join("/");
      trees.set(treePath, [...(trees.get(treePath) ?? []), path]);
    }
    if (recursive && rest.length > 1) blobs.push({ path, content });
  }
  const name = (p: string) => p.slice(p.lastIndexOf("/") + 1);
  const out = [
    ...[...trees.entries()].map(([path, inside]) => ({
      id: createHash("sha1")
        .update(`tree ${path} ${inside.sort().join(",")}`)
        .digest("hex"),
      name: name(path),
      type: "tree" as const,
      path,
      mode: "040000",
    })),
    ...blobs.map((b) => ({
      id: blobId(b.content),
      name: name(b.path),
      type: "blob" as const,
      path: b.path,
      mode: "100644",
    })),
  ];
  // Trees before blobs, each by path, as GitLab lists a tree.
  return out.sort((a, b) => (a.type !== b.type ? (a.type === "tree" ? -1 : 1) : a.path < b.path ? -1 : 1));
}

/** Every blob of every commit, by its git blob id. */
function findBlob(p: Project, sha: string): string | undefined {
  for (const c of p.repository.commits.values())
    for (const content of Object.values(c.files)) if (blobId(content) === sha) return content;
  return undefined;
}

export function repositoryRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  r.get("/projects/:id/repository/tree", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    const commit = resolveRef(p.repository, str(q.ref), p.default_branch);
    const dir = (str(q.path) ?? "").replace(/^\/+|\/+$/g, "");
    if (!commit) return notFound(res, "Tree");
    const entries = treeEntries(commit.files, dir, boolParam(q.recursive) === true);
    if (dir && entries.length === 0) return notFound(res, "Tree");
    // Keyset: page_token names the last entry of the previous page (its path here).
    if (wantsKeyset(req))
      return void res.json(keysetPaginate(req, res, ctx.origin, entries, "page_token", (e) => e.path));
    res.json(paginate(req, res, ctx.origin, entries));
  });

  r.get("/projects/:id/repository/compare", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    const absent = ["from", "to"].filter((k) => typeof q[k] !== "string");
    if (absent.length) return missing(res, ...absent);
    const from = resolveRef(p.repository, String(q.from));
    const to = resolveRef(p.repository, String(q.to));
    if (!from || !to) return notFound(res, "Ref");
    const full = projectFullPath(ctx.state, p);
    const excluded = new Set(history(p.repository, from).map((c) => c.id));
    const commits = history(p.repository, to).filter((c) => !excluded.has(c.id));
    res.json({
      commit: commits[0] ? commitJson(commits[0], ctx.origin, full) : null,
      commits: commits.reverse().map((c) => commitJson(c, ctx.origin, full)),
      diffs: diffCommits(from, to).entries,
      compare_timeout: false,
      compare_same_ref: from.id === to.id,
      web_url: `${ctx.origin}/${full}/-/compare/${q.from}...${q.to}`,
    });
  });

  r.get("/projects/:id/repository/blobs/:sha", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const content = findBlob(p, String(req.params.sha));
    if (content === undefined) return notFound(res, "Blob");
    const bytes = Buffer.from(content, "utf8");
    res.json({
      size: bytes.length,
      encoding: "base64",
      content: bytes.toString("base64"),
      sha: req.params.sha,
    });
  });

  r.get("/projects/:id/repository/blobs/:sha/raw", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const content = findBlob(p, String(req.params.sha));
    if (content === undefined) return notFound(res, "Blob");
    res.status(200).type("text/plain; charset=utf-8").send(Buffer.from(content, "utf8"));
  });

  // Contributors of the default branch, by author email; the simulator counts no line changes.
  r.get("/projects/:id/repository/contributors", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    const head = resolveRef(p.repository, str(q.ref), p.default_branch);
    const by = new Map<
      string,
      { name: string; email: string; commits: number; additions: 0; deletions: 0 }
    >();
    for (const c of head ? history(p.repository, head) : []) {
      const row = by.get(c.author_email) ?? {
        name: c.author_name,
        email: c.author_email,
        commits: 0,
        additions: 0 as const,
        deletions: 0 as const,
      };
      row.commits += 1;
      by.set(c.author_email, row);
    }
    const key = ["name", "email", "commits"].includes(String(q.order_by)) ? String(q.order_by) : "commits";
    const dir = q.sort === "desc" ? -1 : 1;
    const rows = [...by.values()].sort((a, b) => {
      const x = a[key as "name"];
      const y = b[key as "name"];
      return (x < y ? -1 : x > y ? 1 : a.email < b.email ? -1 : 1) * dir;
    });
    res.json(paginate(req, res, ctx.origin, rows));
  });
}
