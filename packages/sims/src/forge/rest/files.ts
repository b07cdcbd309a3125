import { createHash } from "node:crypto";
import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { caller, loadProject } from "../model/access.js";
import { blobId, history, resolveRef } from "../model/repo.js";
import { type CommitAction, commitActions, lastCommitFor } from "../model/repo-write.js";
import type { Commit, ForgeState, Project } from "../model/state.js";
import { missing, notFound } from "../wire/answers.js";
import { params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";
import { writableBranch } from "./branches.js";

/** Repository files (GitLab's files.rb): read, raw, and create, update, delete as commits. */
/** Blame ranges: each line belongs to the oldest commit since which the file has kept that line. */
function blame(repo: Project["repository"], head: Commit, path: string) {
  const content = head.files[path];
  if (content === undefined) return undefined;
  const lines = content.replace(/\n$/, "").split("\n");
  const chain = history(repo, head);
  const owner = lines.map((line) => {
    let who = chain[0]!;
    for (const c of chain) {
      const f = c.files[path];
      if (f === undefined || !f.split("\n").includes(line)) break;
      who = c;
    }
    return who;
  });
  const ranges: Array<{ commit: Commit; lines: string[] }> = [];
  owner.forEach((c, i) => {
    const last = ranges.at(-1);
    if (last && last.commit.id === c.id) last.lines.push(lines[i]!);
    else ranges.push({ commit: c, lines: [lines[i]!] });
  });
  return ranges;
}

export function fileRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
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
    const project = writableBranch(ctx.state, req, res, branch);
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

  r.get("/projects/:id/repository/files/:file_path/blame", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    const ref = str(q.ref);
    if (!ref) return void res.status(400).json({ error: "ref is missing" });
    const commit = resolveRef(p.repository, ref);
    if (!commit) return notFound(res, "Commit");
    const ranges = blame(p.repository, commit, String(req.params.file_path));
    if (!ranges) return notFound(res, "File");
    const range = (q.range ?? {}) as Record<string, unknown>;
    const start = Number(range.start ?? q["range[start]"] ?? 1);
    const end = Number(range.end ?? q["range[end]"] ?? Number.MAX_SAFE_INTEGER);
    let line = 0;
    const out = [];
    for (const r of ranges) {
      const kept = r.lines.filter((_, i) => line + i + 1 >= start && line + i + 1 <= end);
      line += r.lines.length;
      if (!kept.length) continue;
      out.push({
        commit: {
          id: r.commit.id,
          parent_ids: r.commit.parent_ids,
          message: r.commit.message,
          authored_date: r.commit.created_at,
          author_name: r.commit.author_name,
          author_email: r.commit.author_email,
          committed_date: r.commit.created_at,
          committer_name: r.commit.author_name,
          committer_email: r.commit.author_email,
        },
        lines: kept,
      });
    }
    res.json(out);
  });
}
