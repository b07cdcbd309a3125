import { createHash } from "node:crypto";
import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { caller, loadProject, projectAccessLevel, projectFullPath, requireUser } from "../model/access.js";
import { blobId, commitDetailJson, commitJson, diffCommits, history, resolveRef } from "../model/repo.js";
import { type CommitAction, commitActions, lastCommitFor, validBranchName } from "../model/repo-write.js";
import type { Commit, ForgeState, Project } from "../model/state.js";
import { ACCESS } from "../model/state.js";
import { forbidden, missing, notFound } from "../wire/answers.js";
import { keysetPaginate, paginate, wantsKeyset } from "../wire/paginate.js";
import { boolParam, params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

function branchJson(state: ForgeState, project: Project, name: string, origin: string, res: Response) {
  const repo = project.repository;
  const head = repo.commits.get(repo.branches.get(name)!)!;
  const full = projectFullPath(state, project);
  const level = projectAccessLevel(state, caller(res)?.user ?? null, project);
  const isProtected = repo.protected.has(name);
  const defaultHead = resolveRef(repo, project.default_branch);
  const merged =
    name !== project.default_branch &&
    defaultHead !== undefined &&
    history(repo, defaultHead).some((c) => c.id === head.id);
  return {
    name,
    commit: commitJson(head, origin, full),
    merged,
    protected: isProtected,
    developers_can_push: false,
    developers_can_merge: false,
    can_push: level >= (isProtected ? ACCESS.maintainer : ACCESS.developer),
    default: name === project.default_branch,
    web_url: `${origin}/${full}/-/tree/${name}`,
  };
}

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

export function repoRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  /** Write access to a branch: developers push, protected branches need maintainers. */
  const writable = (req: Request, res: Response, branch: string | undefined) => {
    if (!requireUser(res)) return null;
    const project = loadProject(ctx.state, req, res, ACCESS.developer);
    if (!project) return null;
    if (branch && project.repository.protected.has(branch)) {
      if (projectAccessLevel(ctx.state, caller(res)!.user, project) < ACCESS.maintainer) {
        forbidden(res, "You are not allowed to push into this branch");
        return null;
      }
    }
    return project;
  };

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

  const fileLookup = (req: Request, res: Response, ref: string | undefined) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return null;
    const commit = resolveRef(p.repository, ref, p.default_branch);
    if (!commit) {
      notFound(res, "Commit");
      return null;
    }
    const path = String(req.params.file_path);
    const content = commit.files[path];
    if (content === undefined) {
      notFound(res, "File");
      return null;
    }
    const last = lastCommitFor(p, commit, path);
    const bytes = Buffer.from(content, "utf8");
    const meta = {
      file_name: path.slice(path.lastIndexOf("/") + 1),
      file_path: path,
      size: bytes.length,
      encoding: "base64",
      content_sha256: createHash("sha256").update(bytes).digest("hex"),
      ref: ref ?? p.default_branch,
      blob_id: blobId(content),
      commit_id: commit.id,
      last_commit_id: last.id,
      execute_filemode: false,
    };
    res.setHeader("X-Gitlab-Blob-Id", meta.blob_id);
    res.setHeader("X-Gitlab-Commit-Id", meta.commit_id);
    res.setHeader("X-Gitlab-Content-Sha256", meta.content_sha256);
    res.setHeader("X-Gitlab-Encoding", "base64");
    res.setHeader("X-Gitlab-File-Name", meta.file_name);
    res.setHeader("X-Gitlab-File-Path", encodeURIComponent(path));
    res.setHeader("X-Gitlab-Last-Commit-Id", meta.last_commit_id);
    res.setHeader("X-Gitlab-Ref", meta.ref);
    res.setHeader("X-Gitlab-Size", String(meta.size));
    res.setHeader("X-Gitlab-Execute-Filemode", "false");
    return { meta, bytes };
  };

  r.get("/projects/:id/repository/files/:file_path/raw", (req, res) => {
    const hit = fileLookup(req, res, str((req.query as Record<string, unknown>).ref));
    if (hit) res.status(200).type("text/plain; charset=utf-8").send(hit.bytes);
  });

  r.get("/projects/:id/repository/files/:file_path", (req, res) => {
    const ref = str((req.query as Record<string, unknown>).ref);
    if (!ref) return missing(res, "ref");
    const hit = fileLookup(req, res, ref);
    if (hit) res.json({ ...hit.meta, content: hit.bytes.toString("base64") });
  });

  const fileWrite = (action: "create" | "update" | "delete") => (req: Request, res: Response) => {
    const p = params(req);
    const absent = ["branch", "commit_message", ...(action === "delete" ? [] : ["content"])].filter(
      (k) => typeof p[k] !== "string",
    );
    if (absent.length) return missing(res, ...absent);
    const branch = String(p.branch);
    const project = writable(req, res, branch);
    if (!project) return;
    const path = String(req.params.file_path);
    const act: CommitAction = {
      action,
      file_path: path,
      content: p.content,
      encoding: p.encoding,
      last_commit_id: p.last_commit_id,
    };
    const result = commitActions(ctx.state, project, caller(res)!.user, {
      branch,
      message: String(p.commit_message),
      startBranch: str(p.start_branch),
      actions: [act],
      authorName: str(p.author_name),
      authorEmail: str(p.author_email),
    });
    if ("error" in result) return void res.status(400).json({ message: result.error });
    if (action === "delete") return void res.status(204).end();
    res.status(action === "create" ? 201 : 200).json({ file_path: path, branch });
  };
  r.post("/projects/:id/repository/files/:file_path", fileWrite("create"));
  r.put("/projects/:id/repository/files/:file_path", fileWrite("update"));
  r.delete("/projects/:id/repository/files/:file_path", fileWrite("delete"));

  r.get("/projects/:id/repository/branches", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    let names = [...p.repository.branches.keys()].sort();
    const search = str(q.search);
    if (search) {
      const term = search.replace(/^\^/, "").replace(/\$$/, "").toLowerCase();
      names = names.filter((n) => {
        const l = n.toLowerCase();
        if (search.startsWith("^")) return l.startsWith(term);
        if (search.endsWith("$")) return l.endsWith(term);
        return l.includes(term);
      });
    }
    res.json(paginate(req, res, ctx.origin, names).map((n) => branchJson(ctx.state, p, n, ctx.origin, res)));
  });

  r.get("/projects/:id/repository/branches/:branch", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const name = String(req.params.branch);
    if (!p.repository.branches.has(name)) return notFound(res, "Branch");
    res.json(branchJson(ctx.state, p, name, ctx.origin, res));
  });

  r.post("/projects/:id/repository/branches", (req, res) => {
    const p = params(req);
    const absent = ["branch", "ref"].filter((k) => typeof p[k] !== "string" || !p[k]);
    if (absent.length) return missing(res, ...absent);
    const project = writable(req, res, undefined);
    if (!project) return;
    const name = String(p.branch);
    if (!validBranchName(name)) return void res.status(400).json({ message: "Branch name is invalid" });
    if (project.repository.branches.has(name))
      return void res.status(400).json({ message: "Branch already exists" });
    const from = resolveRef(project.repository, String(p.ref));
    if (!from) return void res.status(400).json({ message: `Invalid reference name: ${p.ref}` });
    project.repository.branches.set(name, from.id);
    res.status(201).json(branchJson(ctx.state, project, name, ctx.origin, res));
  });

  r.delete("/projects/:id/repository/branches/:branch", (req, res) => {
    const name = String(req.params.branch);
    const project = writable(req, res, name);
    if (!project) return;
    if (!project.repository.branches.has(name)) return notFound(res, "Branch");
    if (name === project.default_branch) {
      return void res.status(405).json({ message: "The default branch of a project cannot be deleted." });
    }
    project.repository.branches.delete(name);
    res.status(204).end();
  });

  r.get("/projects/:id/repository/commits", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    const head = resolveRef(p.repository, str(q.ref_name), p.default_branch);
    if (!head) return notFound(res, "Reference");
    let rows: Commit[] = history(p.repository, head);
    const path = str(q.path);
    if (path) {
      rows = rows.filter((c) => {
        const parent = c.parent_ids[0] ? p.repository.commits.get(c.parent_ids[0]) : undefined;
        return parent?.files[path] !== c.files[path];
      });
    }
    const since = str(q.since);
    if (since) rows = rows.filter((c) => c.created_at >= since);
    const until = str(q.until);
    if (until) rows = rows.filter((c) => c.created_at <= until);
    const author = str(q.author);
    if (author) rows = rows.filter((c) => c.author_name.includes(author) || c.author_email.includes(author));
    const full = projectFullPath(ctx.state, p);
    res.json(paginate(req, res, ctx.origin, rows).map((c) => commitJson(c, ctx.origin, full)));
  });

  r.get("/projects/:id/repository/commits/:sha", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const c = resolveRef(p.repository, String(req.params.sha));
    if (!c) return notFound(res, "Commit");
    res.json(commitDetailJson(ctx.state, p, c, ctx.origin, projectFullPath(ctx.state, p)));
  });

  r.get("/projects/:id/repository/commits/:sha/diff", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const c = resolveRef(p.repository, String(req.params.sha));
    if (!c) return notFound(res, "Commit");
    const parent = c.parent_ids[0] ? p.repository.commits.get(c.parent_ids[0]) : undefined;
    res.json(paginate(req, res, ctx.origin, diffCommits(parent, c).entries));
  });

  r.post("/projects/:id/repository/commits", (req, res) => {
    const p = params(req);
    const absent = ["branch", "commit_message"].filter((k) => typeof p[k] !== "string" || !p[k]);
    if (!Array.isArray(p.actions)) absent.push("actions");
    if (absent.length) return missing(res, ...absent);
    const branch = String(p.branch);
    const project = writable(req, res, branch);
    if (!project) return;
    const result = commitActions(ctx.state, project, caller(res)!.user, {
      branch,
      message: String(p.commit_message),
      startBranch: str(p.start_branch),
      startSha: str(p.start_sha),
      actions: (p.actions as unknown[]).filter((a): a is CommitAction => typeof a === "object" && a !== null),
      authorName: str(p.author_name),
      authorEmail: str(p.author_email),
    });
    if ("error" in result) return void res.status(400).json({ message: result.error });
    res
      .status(201)
      .json(commitDetailJson(ctx.state, project, result, ctx.origin, projectFullPath(ctx.state, project)));
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
