import { createHash } from "node:crypto";
import type { SimContext } from "../../core/sim.js";
import { loadProject, projectFullPath } from "../model/access.js";
import { blobId, commitJson, diffCommits, history, resolveRef } from "../model/repo.js";
import type { ForgeState } from "../model/state.js";
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
}
