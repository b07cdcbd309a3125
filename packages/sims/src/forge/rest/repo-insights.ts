import type { Express, Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { loadProject } from "../model/access.js";
import { isFinal, syncPipeline } from "../model/ci.js";
import { jobArtifactFiles } from "../model/job-artifacts.js";
import { mrCommits, mrJson, syncMr } from "../model/merge-requests.js";
import { blobId, history, resolveRef } from "../model/repo.js";
import type { Commit, ForgeState, Project } from "../model/state.js";
import { API, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, str } from "../wire/params.js";

/**
 * Reads over a project's repository that GitLab computes rather than stores: blobs by id,
 * contributors, the refs and merge requests that contain a commit, the language shares, and the
 * file tree of a job's artifacts.
 */

/**
 * Linguist's language of a file, for the languages GitLab counts (programming and markup; prose
 * such as Markdown and data such as JSON or YAML are left out of the shares, as Linguist does).
 */
const LANGUAGE_BY_EXT: Record<string, string> = {
  ts: "TypeScript",
  tsx: "TypeScript",
  mts: "TypeScript",
  js: "JavaScript",
  mjs: "JavaScript",
  cjs: "JavaScript",
  jsx: "JavaScript",
  py: "Python",
  go: "Go",
  rb: "Ruby",
  rs: "Rust",
  java: "Java",
  kt: "Kotlin",
  c: "C",
  h: "C",
  cpp: "C++",
  cs: "C#",
  sh: "Shell",
  bash: "Shell",
  tf: "HCL",
  hcl: "HCL",
  html: "HTML",
  css: "CSS",
  vue: "Vue",
};
const LANGUAGE_BY_NAME: Record<string, string> = {
  ".bashrc": "Shell",
  ".zshrc": "Shell",
  ".profile": "Shell",
  Dockerfile: "Dockerfile",
  Makefile: "Makefile",
};

export function languageOf(path: string): string | undefined {
  const name = path.split("/").pop() ?? path;
  if (LANGUAGE_BY_NAME[name]) return LANGUAGE_BY_NAME[name];
  const dot = name.lastIndexOf(".");
  return dot > 0 ? LANGUAGE_BY_EXT[name.slice(dot + 1).toLowerCase()] : undefined;
}

/** Every blob of every commit, by its git blob id. */
function findBlob(p: Project, sha: string): string | undefined {
  for (const c of p.repository.commits.values())
    for (const content of Object.values(c.files)) if (blobId(content) === sha) return content;
  return undefined;
}

/** Branches and tags whose history contains the commit. */
function refsContaining(p: Project, sha: string, type: string) {
  const repo = p.repository;
  const contains = (head: string | undefined) => {
    const c = head ? repo.commits.get(head) : undefined;
    return c !== undefined && history(repo, c).some((x) => x.id === sha);
  };
  const out: Array<{ type: "branch" | "tag"; name: string }> = [];
  if (type !== "tag")
    for (const [name, head] of [...repo.branches].sort(([a], [b]) => (a < b ? -1 : 1)))
      if (contains(head)) out.push({ type: "branch", name });
  if (type !== "branch")
    for (const [name, tag] of [...repo.tags].sort(([a], [b]) => (a < b ? -1 : 1)))
      if (contains(tag.target)) out.push({ type: "tag", name });
  return out;
}

/** The entries of an artifacts archive under `dir`: directories first, then files, by name. */
function artifactEntries(files: Record<string, string>, dir: string, recursive: boolean) {
  const prefix = dir ? `${dir}/` : "";
  const dirs = new Map<string, string>();
  const out: Array<{
    name: string;
    path: string;
    type: "file" | "directory";
    size: number | null;
    mode: string;
  }> = [];
  for (const [path, content] of Object.entries(files)) {
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length).split("/");
    // every directory on the way (only the first level unless recursive)
    for (let i = 1; i < rest.length && (recursive || i === 1); i++) {
      const d = prefix + rest.slice(0, i).join("/");
      dirs.set(d, rest[i - 1]!);
    }
    if (rest.length === 1 || recursive)
      out.push({ name: rest.at(-1)!, path, type: "file", size: Buffer.byteLength(content), mode: "100644" });
  }
  const dirRows = [...dirs].map(([path, name]) => ({
    name,
    path,
    type: "directory" as const,
    size: null,
    mode: "040755",
  }));
  const byPath = (a: { path: string }, b: { path: string }) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
  return [...dirRows.sort(byPath), ...out.sort(byPath)];
}

export function repoInsightRoutes(app: Express, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;
  const R = `${API}/projects/:id/repository`;

  const loadCommit = (req: Request, res: Response): { p: Project; commit: Commit } | null => {
    const p = loadProject(s(), req, res);
    if (!p) return null;
    const commit = resolveRef(p.repository, String(req.params.sha));
    if (!commit) {
      notFound(res, "Commit");
      return null;
    }
    return { p, commit };
  };

  app.get(`${R}/blobs/:sha`, (req, res) => {
    const p = loadProject(s(), req, res);
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

  app.get(`${R}/blobs/:sha/raw`, (req, res) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const content = findBlob(p, String(req.params.sha));
    if (content === undefined) return notFound(res, "Blob");
    res.status(200).type("text/plain; charset=utf-8").send(Buffer.from(content, "utf8"));
  });

  // Contributors of the default branch, by author email; the simulator counts no line changes.
  app.get(`${R}/contributors`, (req, res) => {
    const p = loadProject(s(), req, res);
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

  app.get(`${R}/commits/:sha/refs`, (req, res) => {
    const l = loadCommit(req, res);
    if (!l) return;
    const type = String((req.query as Record<string, unknown>).type ?? "all");
    if (!["branch", "tag", "all"].includes(type))
      return void res.status(400).json({ error: "type does not have a valid value" });
    res.json(paginate(req, res, ctx.origin, refsContaining(l.p, l.commit.id, type)));
  });

  app.get(`${R}/commits/:sha/merge_requests`, (req, res) => {
    const l = loadCommit(req, res);
    if (!l) return;
    const rows = s().mergeRequests.filter((m) => {
      if (m.project_id !== l.p.id) return false;
      syncMr(l.p, m);
      return m.merge_commit_sha === l.commit.id || mrCommits(l.p, m).some((c) => c.id === l.commit.id);
    });
    res.json(paginate(req, res, ctx.origin, rows).map((m) => mrJson(s(), l.p, m, ctx.origin)));
  });

  app.get(`${API}/projects/:id/languages`, (req, res) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const head = resolveRef(p.repository, p.default_branch);
    const bytes = new Map<string, number>();
    for (const [path, content] of Object.entries(head?.files ?? {})) {
      const lang = languageOf(path);
      if (lang) bytes.set(lang, (bytes.get(lang) ?? 0) + Buffer.byteLength(content));
    }
    const total = [...bytes.values()].reduce((a, b) => a + b, 0);
    const shares = [...bytes]
      .map(([lang, n]) => [lang, Math.round((n / total) * 10_000) / 100] as const)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    res.json(Object.fromEntries(shares));
  });

  // The files of a job's artifacts archive (GET /projects/:id/jobs/:job_id/artifacts/tree, GitLab
  // 18.x): `path` names a directory, `recursive` lists everything below it.
  app.get(`${API}/projects/:id/jobs/:job_id/artifacts/tree`, (req, res) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const job = s().jobs.find((j) => j.project_id === p.id && j.id === Number(req.params.job_id));
    if (!job) return notFound(res);
    const pipeline = s().pipelines.find((x) => x.id === job.pipeline_id);
    if (pipeline) syncPipeline(s(), pipeline);
    const files = isFinal(job.status) ? jobArtifactFiles(s(), job) : {};
    if (Object.keys(files).length === 0) return notFound(res);
    const q = req.query as Record<string, unknown>;
    const dir = (str(q.path) ?? "").replace(/^\/+|\/+$/g, "");
    const rows = artifactEntries(files, dir, boolParam(q.recursive) === true);
    if (dir && rows.length === 0) return notFound(res);
    res.json(paginate(req, res, ctx.origin, rows));
  });
}
