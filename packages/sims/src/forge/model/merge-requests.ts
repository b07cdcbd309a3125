import type { Request, Response } from "express";
import { notFound } from "../wire/answers.js";
import { boolParam, labelsParam, str } from "../wire/params.js";

/** The title prefixes that make a merge request a draft. */
export const DRAFT_TITLE = /^(draft:|\[draft\]|\(draft\))/i;

import { loadProject, projectFullPath, requireUser } from "./access.js";
import { votes } from "./award-emoji.js";
import { anyMilestoneJson, setMilestone } from "./milestones.js";
import { userNotesCount } from "./notes.js";
import { addCommit, diffCommits, history, resolveRef } from "./repo.js";
import type { Commit, ForgeState, ForgeUser, MergeRequest, Project } from "./state.js";
import { nextId } from "./state.js";
import { userRef } from "./users.js";

export function findMr(state: ForgeState, project: Project, iid: number): MergeRequest | undefined {
  return state.mergeRequests.find((m) => m.project_id === project.id && m.iid === iid);
}

export function mergeBase(project: Project, a: Commit, b: Commit): Commit {
  const ancestors = new Set(history(project.repository, a).map((c) => c.id));
  return history(project.repository, b).find((c) => ancestors.has(c.id)) ?? a;
}

/** While open, an MR follows its source branch; once merged or closed its shas are frozen. */
export function syncMr(project: Project, mr: MergeRequest): void {
  if (mr.state !== "opened") return;
  const repo = project.repository;
  const source = repo.branches.get(mr.source_branch);
  const target = resolveRef(repo, mr.target_branch);
  if (source) mr.head_sha = source;
  const head = repo.commits.get(mr.head_sha);
  if (head && target) mr.diff_base_sha = mergeBase(project, target, head).id;
}

export function mrChanges(project: Project, mr: MergeRequest) {
  const repo = project.repository;
  const base = repo.commits.get(mr.diff_base_sha);
  const head = repo.commits.get(mr.head_sha);
  return diffCommits(base, head);
}

export function mrCommits(project: Project, mr: MergeRequest): Commit[] {
  const repo = project.repository;
  const head = repo.commits.get(mr.head_sha);
  const base = repo.commits.get(mr.diff_base_sha);
  if (!head) return [];
  const excluded = new Set(base ? history(repo, base).map((c) => c.id) : []);
  return history(repo, head).filter((c) => !excluded.has(c.id));
}

export function approvalsLeft(mr: MergeRequest): number {
  return Math.max(0, mr.approvals_required - mr.approved_by_ids.length);
}

function detailedStatus(mr: MergeRequest): string {
  if (mr.state !== "opened") return "not_open";
  if (mr.draft) return "draft_status";
  if (approvalsLeft(mr) > 0) return "not_approved";
  return "mergeable";
}

export function mrJson(
  state: ForgeState,
  project: Project,
  mr: MergeRequest,
  origin: string,
  detail = false,
) {
  syncMr(project, mr);
  const full = projectFullPath(state, project);
  const assignees = mr.assignee_ids.map((id) => userRef(state, id, origin)).filter((u) => u !== null);
  const reviewers = mr.reviewer_ids.map((id) => userRef(state, id, origin)).filter((u) => u !== null);
  const base = {
    id: mr.id,
    iid: mr.iid,
    project_id: mr.project_id,
    title: mr.draft && !DRAFT_TITLE.test(mr.title) ? `Draft: ${mr.title}` : mr.title,
    description: mr.description,
    state: mr.state,
    created_at: mr.created_at,
    updated_at: mr.updated_at,
    merged_by: userRef(state, mr.merged_by_id, origin),
    merge_user: userRef(state, mr.merged_by_id, origin),
    merged_at: mr.merged_at,
    closed_by: null,
    closed_at: mr.closed_at,
    target_branch: mr.target_branch,
    source_branch: mr.source_branch,
    user_notes_count: userNotesCount(mr),
    ...votes(state, "MergeRequest", mr.id),
    author: userRef(state, mr.author_id, origin),
    assignees,
    assignee: assignees[0] ?? null,
    reviewers,
    source_project_id: project.id,
    target_project_id: project.id,
    labels: mr.labels,
    draft: mr.draft,
    work_in_progress: mr.draft,
    milestone:
      state.mrMilestones?.[mr.id] === undefined
        ? null
        : anyMilestoneJson(state, state.mrMilestones[mr.id]!, origin),
    merge_when_pipeline_succeeds: false,
    merge_status: mr.state === "opened" ? "can_be_merged" : "cannot_be_merged",
    detailed_merge_status: detailedStatus(mr),
    sha: mr.head_sha,
    merge_commit_sha: mr.merge_commit_sha,
    squash_commit_sha: null,
    discussion_locked: null,
    should_remove_source_branch: mr.should_remove_source_branch,
    force_remove_source_branch: false,
    prepared_at: mr.created_at,
    reference: `!${mr.iid}`,
    references: { short: `!${mr.iid}`, relative: `!${mr.iid}`, full: `${full}!${mr.iid}` },
    web_url: `${origin}/${full}/-/merge_requests/${mr.iid}`,
    time_stats: {
      time_estimate: 0,
      total_time_spent: 0,
      human_time_estimate: null,
      human_total_time_spent: null,
    },
    squash: mr.squash,
    squash_on_merge: mr.squash,
    task_completion_status: { count: 0, completed_count: 0 },
    has_conflicts: false,
    blocking_discussions_resolved: !mr.discussions.some((d) =>
      d.notes.some((n) => n.resolvable && !n.resolved),
    ),
    approvals_before_merge: null,
  };
  if (!detail) return base;
  const pipeline = state.pipelines
    .filter((p) => p.project_id === project.id && p.sha === mr.head_sha)
    .sort((a, b) => b.id - a.id)[0];
  return {
    ...base,
    subscribed: false,
    changes_count: String(mrChanges(project, mr).entries.length),
    latest_build_started_at: pipeline?.started_at ?? null,
    latest_build_finished_at: pipeline?.finished_at ?? null,
    first_deployed_to_production_at: null,
    pipeline: pipeline
      ? {
          id: pipeline.id,
          iid: pipeline.iid,
          project_id: project.id,
          sha: pipeline.sha,
          ref: pipeline.ref,
          status: pipeline.status,
        }
      : null,
    head_pipeline: pipeline
      ? { id: pipeline.id, iid: pipeline.iid, status: pipeline.status, sha: pipeline.sha }
      : null,
    diff_refs: { base_sha: mr.diff_base_sha, head_sha: mr.head_sha, start_sha: mr.diff_base_sha },
    merge_error: null,
    first_contribution: false,
    user: { can_merge: true },
  };
}

export function approvalsJson(
  state: ForgeState,
  project: Project,
  mr: MergeRequest,
  origin: string,
  me: ForgeUser | null,
) {
  const left = approvalsLeft(mr);
  return {
    id: mr.id,
    iid: mr.iid,
    project_id: project.id,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: mr.created_at,
    updated_at: mr.updated_at,
    merge_status: mr.state === "opened" ? "can_be_merged" : "cannot_be_merged",
    approved: left === 0,
    approvals_required: mr.approvals_required,
    approvals_left: left,
    require_password_to_approve: false,
    approved_by: mr.approved_by_ids.map((id) => ({ user: userRef(state, id, origin) })),
    suggested_approvers: [],
    approvers: [],
    approver_groups: [],
    user_has_approved: me ? mr.approved_by_ids.includes(me.id) : false,
    user_can_approve: me ? !mr.approved_by_ids.includes(me.id) : false,
    approval_rules_left: [],
    has_approval_rules: mr.approvals_required > 0,
    merge_request_approvers_available: false,
    multiple_approval_rules_available: false,
    invalid_approvers_rules: [],
  };
}

export function createMr(
  state: ForgeState,
  project: Project,
  author: ForgeUser,
  p: Record<string, unknown>,
  ids: { assignees?: number[]; reviewers?: number[]; id?: number },
): MergeRequest {
  if (ids.id !== undefined) state.seq.mr = Math.max(state.seq.mr, ids.id);
  const now = state.clock.iso();
  const iid =
    Math.max(0, ...state.mergeRequests.filter((m) => m.project_id === project.id).map((m) => m.iid)) + 1;
  const title = String(p.title);
  const draft = boolParam(p.draft) === true || DRAFT_TITLE.test(title);
  const mr: MergeRequest = {
    id: ids.id ?? nextId(state, "mr"),
    iid,
    project_id: project.id,
    title,
    description: str(p.description) ?? "",
    state: "opened",
    source_branch: String(p.source_branch),
    target_branch: String(p.target_branch),
    labels: labelsParam(p.labels) ?? [],
    author_id: author.id,
    assignee_ids: ids.assignees ?? [],
    reviewer_ids: ids.reviewers ?? [],
    draft,
    created_at: now,
    updated_at: now,
    merged_at: null,
    merged_by_id: null,
    closed_at: null,
    merge_commit_sha: null,
    diff_base_sha: "",
    head_sha: "",
    should_remove_source_branch: boolParam(p.remove_source_branch) === true ? true : null,
    squash: boolParam(p.squash) === true,
    approvals_required: typeof p.approvals_required === "number" ? p.approvals_required : 0,
    approved_by_ids: [],
    discussions: [],
  };
  syncMr(project, mr);
  state.mergeRequests.push(mr);
  project.last_activity_at = now;
  return mr;
}

/** Brings the source's changes (since the merge base) onto the target with a merge commit. */
export function mergeMr(
  state: ForgeState,
  project: Project,
  mr: MergeRequest,
  user: ForgeUser,
  message?: string,
) {
  const repo = project.repository;
  syncMr(project, mr);
  const target = resolveRef(repo, mr.target_branch)!;
  const head = repo.commits.get(mr.head_sha)!;
  const base = repo.commits.get(mr.diff_base_sha);
  const files = { ...target.files };
  for (const path of new Set([...Object.keys(base?.files ?? {}), ...Object.keys(head.files)])) {
    if (base?.files[path] === head.files[path]) continue;
    const content = head.files[path];
    if (content === undefined) delete files[path];
    else files[path] = content;
  }
  const full = projectFullPath(state, project);
  const now = state.clock.iso();
  const merge = addCommit(repo, {
    parents: [target.id, head.id],
    message:
      message ??
      `Merge branch '${mr.source_branch}' into '${mr.target_branch}'\n\n${mr.title}\n\nSee merge request ${full}!${mr.iid}`,
    author_name: user.name,
    author_email: user.email,
    files,
    created_at: now,
  });
  repo.branches.set(mr.target_branch, merge.id);
  mr.state = "merged";
  mr.merged_at = now;
  mr.merged_by_id = user.id;
  mr.merge_commit_sha = merge.id;
  mr.updated_at = now;
  project.last_activity_at = now;
  if (mr.should_remove_source_branch) repo.branches.delete(mr.source_branch);
}

/** `milestone_id` on a merge request: a milestone of its project (or its groups), or 0/null to remove it. */
export function setMrMilestone(state: ForgeState, mr: MergeRequest, raw: unknown): string | undefined {
  return setMilestone(state, "mrMilestones", mr, raw);
}

/**
 * The merge request `:iid` of the readable project `:id`, brought up to date with its branches
 * (syncMr); null after answering 401/403/404. `minLevel` guards writes (and needs a signed-in user).
 */
export function loadMr(
  state: ForgeState,
  req: Request,
  res: Response,
  minLevel = 0,
): { project: Project; mr: MergeRequest } | null {
  if (minLevel && !requireUser(res)) return null;
  const project = loadProject(state, req, res, minLevel);
  if (!project) return null;
  const mr = findMr(state, project, Number(req.params.iid));
  if (!mr) {
    notFound(res);
    return null;
  }
  syncMr(project, mr);
  return { project, mr };
}
