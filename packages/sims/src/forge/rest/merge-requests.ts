import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import {
  caller,
  groupById,
  groupChain,
  loadGroup,
  loadProject,
  projectFullPath,
  requireUser,
} from "../model/access.js";
import { pipelineJson } from "../model/ci.js";
import {
  approvalsLeft,
  createMr,
  DRAFT_TITLE,
  findMr,
  loadMr,
  mergeBase,
  mergeMr,
  mrChanges,
  mrCommits,
  mrJson,
  setMrMilestone,
  syncMr,
} from "../model/merge-requests.js";
import { commitJson, resolveRef } from "../model/repo.js";
import type { ForgeState, ForgeUser, MergeRequest } from "../model/state.js";
import { ACCESS, userByName } from "../model/state.js";
import { missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, idsParam, labelsParam, params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";
import { filterListables } from "./issues.js";

function filterMrs(
  state: ForgeState,
  rows: MergeRequest[],
  req: Request,
  user: ForgeUser | null,
  scope: "all" | "created_by_me",
) {
  const q = req.query as Record<string, unknown>;
  let out = filterListables(state, rows, req, user, scope);
  if (typeof q.source_branch === "string") out = out.filter((m) => m.source_branch === q.source_branch);
  if (typeof q.target_branch === "string") out = out.filter((m) => m.target_branch === q.target_branch);
  const reviewer =
    str(q.reviewer_id) ??
    (typeof q.reviewer_username === "string"
      ? String(userByName(state, q.reviewer_username)?.id ?? -1)
      : undefined);
  if (reviewer !== undefined) {
    if (reviewer.toLowerCase() === "none") out = out.filter((m) => m.reviewer_ids.length === 0);
    else if (reviewer.toLowerCase() === "any") out = out.filter((m) => m.reviewer_ids.length > 0);
    else out = out.filter((m) => m.reviewer_ids.includes(Number(reviewer)));
  }
  const draft = boolParam(q.draft) ?? (q.wip === "yes" ? true : q.wip === "no" ? false : undefined);
  if (draft !== undefined) out = out.filter((m) => m.draft === draft);
  return out;
}

function userIds(state: ForgeState, p: Record<string, unknown>, many: string, one?: string) {
  const ids = idsParam(p[many] ?? p[`${many}[]`]) ?? (one ? idsParam(p[one]) : undefined);
  return ids?.filter((id) => state.users.some((u) => u.id === id));
}

export function mrRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const render = (req: Request, res: Response, rows: MergeRequest[]) => {
    const page = paginate(req, res, ctx.origin, rows);
    res.json(
      page.map((m) =>
        mrJson(ctx.state, ctx.state.projects.find((p) => p.id === m.project_id)!, m, ctx.origin),
      ),
    );
  };

  r.get("/merge_requests", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    render(req, res, filterMrs(ctx.state, ctx.state.mergeRequests, req, me, "created_by_me"));
  });

  r.get("/groups/:id/merge_requests", (req, res) => {
    const g = loadGroup(ctx.state, req, res);
    if (!g) return;
    const rows = ctx.state.mergeRequests.filter((m) => {
      const p = ctx.state.projects.find((x) => x.id === m.project_id);
      if (p?.namespace.kind !== "group") return false;
      const ns = groupById(ctx.state, p.namespace.id);
      return ns !== undefined && groupChain(ctx.state, ns).includes(g);
    });
    render(req, res, filterMrs(ctx.state, rows, req, caller(res)?.user ?? null, "all"));
  });

  r.get("/projects/:id/merge_requests", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const own = ctx.state.mergeRequests.filter((m) => m.project_id === p.id);
    render(req, res, filterMrs(ctx.state, own, req, caller(res)?.user ?? null, "all"));
  });

  const load = (req: Request, res: Response, minLevel = 0) => loadMr(ctx.state, req, res, minLevel);

  r.get("/projects/:id/merge_requests/:iid", (req, res) => {
    const l = load(req, res);
    if (l) res.json(mrJson(ctx.state, l.project, l.mr, ctx.origin, true));
  });

  r.post("/projects/:id/merge_requests", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const project = loadProject(ctx.state, req, res, ACCESS.developer);
    if (!project) return;
    const p = params(req);
    const absent = ["source_branch", "target_branch", "title"].filter(
      (k) => typeof p[k] !== "string" || !p[k],
    );
    if (absent.length) return missing(res, ...absent);
    const repo = project.repository;
    const errors: string[] = [];
    if (p.source_branch === p.target_branch)
      errors.push("You can't use same project/branch for source and target");
    if (!repo.branches.has(String(p.source_branch)))
      errors.push(`Source branch "${p.source_branch}" does not exist`);
    if (!repo.branches.has(String(p.target_branch)))
      errors.push(`Target branch "${p.target_branch}" does not exist`);
    if (errors.length) return void res.status(400).json({ message: errors });
    const open = ctx.state.mergeRequests.find(
      (m) =>
        m.project_id === project.id &&
        m.state === "opened" &&
        m.source_branch === p.source_branch &&
        m.target_branch === p.target_branch,
    );
    if (open) {
      return void res.status(409).json({
        message: [`Another open merge request already exists for this source branch: !${open.iid}`],
      });
    }
    const mr = createMr(ctx.state, project, me, p, {
      assignees: userIds(ctx.state, p, "assignee_ids", "assignee_id"),
      reviewers: userIds(ctx.state, p, "reviewer_ids"),
    });
    setMrMilestone(ctx.state, mr, p.milestone_id);
    res.status(201).json(mrJson(ctx.state, project, mr, ctx.origin, true));
  });

  r.put("/projects/:id/merge_requests/:iid", (req, res) => {
    const l = load(req, res, ACCESS.developer);
    if (!l) return;
    const { mr } = l;
    const p = params(req);
    const now = ctx.state.clock.iso();
    if (typeof p.title === "string") mr.title = p.title;
    if (typeof p.description === "string") mr.description = p.description;
    if (typeof p.target_branch === "string") {
      if (!l.project.repository.branches.has(p.target_branch)) {
        return void res.status(400).json({ message: [`Target branch "${p.target_branch}" does not exist`] });
      }
      mr.target_branch = p.target_branch;
    }
    const labels = labelsParam(p.labels);
    if (labels) mr.labels = labels;
    const add = labelsParam(p.add_labels);
    if (add) mr.labels = [...new Set([...mr.labels, ...add])];
    const remove = labelsParam(p.remove_labels);
    if (remove) mr.labels = mr.labels.filter((x) => !remove.includes(x));
    const assignees = userIds(ctx.state, p, "assignee_ids", "assignee_id");
    if (assignees) mr.assignee_ids = assignees;
    const reviewers = userIds(ctx.state, p, "reviewer_ids");
    if (reviewers) mr.reviewer_ids = reviewers;
    // GitLab reads draft status from the title: a new title without the prefix marks it ready.
    const draft = boolParam(p.draft) ?? (typeof p.title === "string" ? DRAFT_TITLE.test(p.title) : undefined);
    if (draft !== undefined) mr.draft = draft;
    const squash = boolParam(p.squash);
    if (squash !== undefined) mr.squash = squash;
    const remove_source = boolParam(p.remove_source_branch);
    if (remove_source !== undefined) mr.should_remove_source_branch = remove_source;
    if (p.state_event === "close" && mr.state === "opened") {
      mr.state = "closed";
      mr.closed_at = now;
    } else if (p.state_event === "reopen" && mr.state === "closed") {
      mr.state = "opened";
      mr.closed_at = null;
    }
    const bad = setMrMilestone(ctx.state, mr, p.milestone_id);
    if (bad) return void res.status(400).json({ message: bad });
    mr.updated_at = now;
    res.json(mrJson(ctx.state, l.project, mr, ctx.origin, true));
  });

  r.put("/projects/:id/merge_requests/:iid/merge", (req, res) => {
    const l = load(req, res, ACCESS.developer);
    if (!l) return;
    const { mr, project } = l;
    const p = params(req);
    if (
      mr.state !== "opened" ||
      mr.draft ||
      approvalsLeft(mr) > 0 ||
      !project.repository.commits.has(mr.head_sha)
    ) {
      return void res.status(405).json({ message: "405 Method Not Allowed" });
    }
    if (typeof p.sha === "string" && p.sha !== mr.head_sha) {
      return void res
        .status(409)
        .json({ message: `SHA does not match HEAD of source branch: ${mr.head_sha}` });
    }
    const remove = boolParam(p.should_remove_source_branch);
    if (remove !== undefined) mr.should_remove_source_branch = remove;
    mergeMr(ctx.state, project, mr, caller(res)!.user, str(p.merge_commit_message));
    res.json(mrJson(ctx.state, project, mr, ctx.origin, true));
  });

  r.get("/projects/:id/merge_requests/:iid/changes", (req, res) => {
    const l = load(req, res);
    if (!l) return;
    res.json({
      ...mrJson(ctx.state, l.project, l.mr, ctx.origin, true),
      changes: mrChanges(l.project, l.mr).entries,
      overflow: false,
    });
  });

  r.get("/projects/:id/merge_requests/:iid/diffs", (req, res) => {
    const l = load(req, res);
    if (l) res.json(paginate(req, res, ctx.origin, mrChanges(l.project, l.mr).entries));
  });

  r.get("/projects/:id/merge_requests/:iid/commits", (req, res) => {
    const l = load(req, res);
    if (!l) return;
    const web = projectFullPath(ctx.state, l.project);
    const rows = mrCommits(l.project, l.mr).map((c) => commitJson(c, ctx.origin, web));
    res.json(paginate(req, res, ctx.origin, rows));
  });

  r.get("/projects/:id/merge_requests/:iid/pipelines", (req, res) => {
    const l = load(req, res);
    if (!l) return;
    const shas = new Set(mrCommits(l.project, l.mr).map((c) => c.id));
    const rows = ctx.state.pipelines
      .filter((p) => p.project_id === l.project.id && shas.has(p.sha))
      .sort((a, b) => b.id - a.id)
      .map((p) => pipelineJson(ctx.state, p, ctx.origin));
    res.json(paginate(req, res, ctx.origin, rows));
  });

  r.get("/projects/:id/merge_requests/:iid/conflicts", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const mr = findMr(ctx.state, p, Number(req.params.iid));
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
        blob_path: `/${projectFullPath(ctx.state, p)}/-/blob/${source.id}/${f}`,
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
}
