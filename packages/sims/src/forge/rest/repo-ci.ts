import type { Express, Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import {
  caller,
  findProject,
  groupFullPath,
  loadProject,
  projectFullPath,
  requireUser,
} from "../model/access.js";
import { isFinal, jobJson, syncPipeline } from "../model/ci.js";
import { jobArtifactFiles } from "../model/job-artifacts.js";
import { findMr, mergeBase, syncMr } from "../model/merge-requests.js";
import { history, resolveRef } from "../model/repo.js";
import { ACCESS, type Commit, type ForgeState, nextId, type Project } from "../model/state.js";
import { API, notFound } from "../wire/answers.js";
import { params, str } from "../wire/params.js";
import { findNamespace } from "./namespaces.js";
import { projectJson } from "./projects.js";

/** Merge request conflicts, file blame, forks, manual jobs and job artifact files. */

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

export function repoCiRoutes(app: Express, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;

  app.get(`${API}/projects/:id/merge_requests/:iid/conflicts`, (req, res) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const mr = findMr(s(), p, Number(req.params.iid));
    if (!mr) return notFound(res);
    syncMr(p, mr);
    const source = p.repository.commits.get(mr.head_sha);
    const target = resolveRef(p.repository, mr.target_branch);
    if (!source || !target) return notFound(res);
    const base = mergeBase(p, source, target);
    const paths = new Set([
      ...Object.keys(source.files),
      ...Object.keys(target.files),
      ...Object.keys(base.files),
    ]);
    const files = [...paths]
      .filter((f) => {
        const [b, x, y] = [base.files[f], source.files[f], target.files[f]];
        return x !== b && y !== b && x !== y;
      })
      .sort()
      .map((f) => ({
        old_path: f,
        new_path: f,
        blob_path: `/${projectFullPath(s(), p)}/-/blob/${source.id}/${f}`,
        conflict_type:
          source.files[f] === undefined || target.files[f] === undefined
            ? "deleted_on_one_side"
            : "both_modified",
        ours: target.files[f] ?? null,
        theirs: source.files[f] ?? null,
      }));
    res.json({
      target_branch: mr.target_branch,
      source_branch: mr.source_branch,
      commit_sha: source.id,
      commit_message: `Merge branch '${mr.source_branch}' into '${mr.target_branch}'`,
      files,
    });
  });

  app.get(`${API}/projects/:id/repository/files/:file_path/blame`, (req, res) => {
    const p = loadProject(s(), req, res);
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

  app.post(`${API}/projects/:id/fork`, (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const src = loadProject(s(), req, res);
    if (!src) return;
    const b = params(req);
    const ref = str(b.namespace_id) ?? str(b.namespace_path) ?? str(b.namespace);
    const ns = ref ? findNamespace(s(), ref) : { kind: "user" as const, user: me };
    if (!ns) return notFound(res, "Target Namespace");
    const nsPath = ns.kind === "user" ? ns.user.username : groupFullPath(s(), ns.group);
    const path = str(b.path) ?? src.path;
    if (findProject(s(), `${nsPath}/${path}`))
      return void res.status(409).json({
        message: [
          "Project namespace name has already been taken",
          "Name has already been taken",
          "Path has already been taken",
        ],
      });
    const now = s().clock.iso();
    const fork: Project = {
      ...structuredClone({ ...src, repository: undefined }),
      id: nextId(s(), "project"),
      name: str(b.name) ?? src.name,
      path,
      namespace: ns.kind === "user" ? { kind: "user", id: ns.user.id } : { kind: "group", id: ns.group.id },
      members: [],
      creator_id: me.id,
      created_at: now,
      last_activity_at: now,
      archived: false,
      repository: structuredClone(src.repository),
    };
    s().projects.push(fork);
    s().forks[fork.id] = src.id;
    res.status(201).json({
      ...projectJson(s(), fork, ctx.origin, me),
      forked_from_project: { id: src.id, name: src.name, path_with_namespace: projectFullPath(s(), src) },
    });
  });

  const loadJob = (req: Request, res: Response, min = 0) => {
    if (min && !requireUser(res)) return null;
    const p = loadProject(s(), req, res, min);
    if (!p) return null;
    const job = s().jobs.find((j) => j.project_id === p.id && j.id === Number(req.params.job_id));
    if (!job) {
      notFound(res);
      return null;
    }
    const pipeline = s().pipelines.find((x) => x.id === job.pipeline_id)!;
    syncPipeline(s(), pipeline);
    return { p, job, pipeline };
  };

  app.post(`${API}/projects/:id/jobs/:job_id/play`, (req, res) => {
    const l = loadJob(req, res, ACCESS.developer);
    if (!l) return;
    if (l.job.status !== "manual")
      return void res.status(400).json({ message: "400 Bad request - Unplayable Job" });
    const now = s().clock.iso();
    // A played manual job runs like any other: queued, then 30 s on the simulated clock.
    l.job.status = "pending";
    l.job.user_id = caller(res)!.user.id;
    l.job.schedule = {
      startMs: s().clock.now() + 1000,
      endMs: s().clock.now() + 31_000,
      outcome: "success",
      first: true,
    };
    l.job.created_at = now;
    syncPipeline(s(), l.pipeline);
    res.json(jobJson(s(), l.job, ctx.origin));
  });

  app.get(`${API}/projects/:id/jobs/:job_id/artifacts/*artifact_path`, (req, res) => {
    const l = loadJob(req, res);
    if (!l) return;
    const raw = (req.params as Record<string, unknown>).artifact_path;
    const path = (Array.isArray(raw) ? raw.join("/") : String(raw)).replace(/^\/+/, "");
    if (!isFinal(l.job.status)) return notFound(res);
    const content = jobArtifactFiles(s(), l.job)[path];
    if (content === undefined) return notFound(res);
    res.status(200).type("application/octet-stream").send(Buffer.from(content));
  });
}
