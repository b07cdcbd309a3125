import { groupById, groupFullPath, projectFullPath } from "../model/access.js";
import { syncPipeline } from "../model/ci.js";
import { createMr, mergeMr, syncMr } from "../model/merge-requests.js";
import { resolveRef } from "../model/repo.js";
import type { Discussion, ForgeState, Job, JobStatus, Pipeline } from "../model/state.js";
import { nextId, userById } from "../model/state.js";
import { projectOf, seedGroup, seedIssue, seedNotes, seedProject, user, users } from "./data.js";
import { check, list, type RecordKind } from "./records.js";

const JOB_STATUSES = new Set([
  "created",
  "pending",
  "running",
  "success",
  "failed",
  "canceled",
  "skipped",
  "manual",
]);
const FINAL = new Set(["success", "failed", "canceled"]);

function seedMergeRequest(state: ForgeState, m: Record<string, any>): void {
  const project = projectOf(state, m.project, "merge_requests[]");
  const where = `merge request ${m.title}`;
  check(typeof m.title === "string" && m.title, "merge_requests[].title is required");
  check(typeof m.source_branch === "string", `${where}: source_branch is required`);
  const target = typeof m.target_branch === "string" ? m.target_branch : project.default_branch;
  const frozen = typeof m.head_sha === "string" && project.repository.commits.has(m.head_sha);
  check(
    frozen || project.repository.branches.has(m.source_branch),
    `${where}: unknown source branch ${m.source_branch}`,
  );
  check(project.repository.branches.has(target), `${where}: unknown target branch ${target}`);
  const author = userById(state, user(state, m.author, where, "alice"))!;
  const mr = createMr(
    state,
    project,
    author,
    { ...m, target_branch: target },
    {
      assignees: users(state, m.assignees, `${where}.assignees`),
      reviewers: users(state, m.reviewers, `${where}.reviewers`),
      ...(typeof m.id === "number" ? { id: m.id } : {}),
    },
  );
  if (typeof m.should_remove_source_branch === "boolean")
    mr.should_remove_source_branch = m.should_remove_source_branch;
  if (Array.isArray(m.draft_notes)) {
    mr.draft_notes = structuredClone(m.draft_notes);
    for (const d of mr.draft_notes) state.seq.note = Math.max(state.seq.note, d.id);
  }
  if (typeof m.iid === "number") mr.iid = m.iid;
  if (frozen) {
    mr.head_sha = m.head_sha;
    if (typeof m.diff_base_sha === "string") mr.diff_base_sha = m.diff_base_sha;
  }
  mr.approvals_required = typeof m.approvals_required === "number" ? m.approvals_required : 0;
  mr.approved_by_ids = users(state, m.approved_by, `${where}.approved_by`);
  if (typeof m.created_at === "string") mr.created_at = mr.updated_at = m.created_at;
  seedNotes(state, mr, m, where);
  if (m.state === "closed") {
    mr.state = "closed";
    mr.closed_at = typeof m.closed_at === "string" ? m.closed_at : mr.updated_at;
  } else if (m.state === "merged") {
    if (typeof m.merge_commit_sha === "string" && project.repository.commits.has(m.merge_commit_sha)) {
      mr.state = "merged";
      mr.merge_commit_sha = m.merge_commit_sha;
      mr.merged_at = typeof m.merged_at === "string" ? m.merged_at : mr.updated_at;
      mr.merged_by_id = user(state, m.merged_by, where, author.username);
    } else {
      mergeMr(state, project, mr, userById(state, user(state, m.merged_by, where, author.username))!);
    }
  }
  if (typeof m.updated_at === "string") mr.updated_at = m.updated_at;
}

function seedPipeline(state: ForgeState, pl: Record<string, any>): void {
  const project = projectOf(state, pl.project, "pipelines[]");
  const ref = typeof pl.ref === "string" ? pl.ref : project.default_branch;
  const commit = resolveRef(project.repository, typeof pl.sha === "string" ? pl.sha : ref);
  check(commit, `pipeline on ${ref}: unknown ref or sha`);
  const created = typeof pl.created_at === "string" ? pl.created_at : state.clock.iso();
  const userId = user(state, pl.user, "pipelines[]", "alice");
  const pipeline: Pipeline = {
    id: typeof pl.id === "number" ? pl.id : nextId(state, "pipeline"),
    iid:
      typeof pl.iid === "number"
        ? pl.iid
        : Math.max(0, ...state.pipelines.filter((p) => p.project_id === project.id).map((p) => p.iid)) + 1,
    project_id: project.id,
    sha: commit.id,
    ref,
    status: "created",
    source: typeof pl.source === "string" ? pl.source : "push",
    user_id: userId,
    created_at: created,
    updated_at: created,
    started_at: null,
    finished_at: null,
    variables: Array.isArray(pl.variables)
      ? pl.variables.map((v: Record<string, unknown>) => ({ key: String(v.key), value: String(v.value) }))
      : [],
    ...(typeof pl.name === "string" ? { name: pl.name } : {}),
  };
  state.seq.pipeline = Math.max(state.seq.pipeline, pipeline.id);
  const fallback = typeof pl.status === "string" ? pl.status : "success";
  const specs = pl.jobs
    ? list(pl, "jobs")
    : [
        { name: "build", stage: "build" },
        { name: "test", stage: "test" },
      ];
  let clock = Date.parse(created) + 1000;
  for (const j of specs) {
    const status = (j.status ?? fallback) as JobStatus;
    check(JOB_STATUSES.has(status), `pipeline on ${ref}: job ${j.name} has an unknown status ${status}`);
    const started = status === "running" || FINAL.has(status) ? new Date(clock).toISOString() : null;
    if (FINAL.has(status)) clock += 30_000;
    const job: Job = {
      id: typeof j.id === "number" ? j.id : nextId(state, "job"),
      project_id: project.id,
      pipeline_id: pipeline.id,
      name: String(j.name ?? "job"),
      stage: String(j.stage ?? "test"),
      status,
      ref,
      sha: commit.id,
      user_id: userId,
      created_at: created,
      started_at: typeof j.started_at === "string" ? j.started_at : started,
      finished_at:
        typeof j.finished_at === "string"
          ? j.finished_at
          : FINAL.has(status)
            ? new Date(clock).toISOString()
            : null,
      allow_failure: j.allow_failure === true,
      trace: typeof j.trace === "string" ? j.trace : null,
      retried: j.retried === true,
      ...(typeof j.trigger === "string" ? { trigger: j.trigger } : {}),
      schedule: null,
      failure_reason:
        j.failure_reason !== undefined ? j.failure_reason : status === "failed" ? "script_failure" : null,
      ...(typeof j.token === "string" && j.token ? { token: j.token } : {}),
      ...(typeof j.erased_at === "string" ? { erased_at: j.erased_at } : {}),
      ...(typeof j.seconds === "number" && j.seconds >= 0 ? { run_seconds: j.seconds } : {}),
    };
    state.seq.job = Math.max(state.seq.job, job.id);
    state.jobs.push(job);
  }
  state.pipelines.push(pipeline);
  syncPipeline(state, pipeline);
  pipeline.updated_at = typeof pl.updated_at === "string" ? pl.updated_at : (pipeline.finished_at ?? created);
}

/** Seeded work is history: it does not count as new activity on its project. */
function asHistory(state: ForgeState, seed: () => void): void {
  const activity = new Map(state.projects.map((p) => [p, p.last_activity_at]));
  seed();
  for (const [p, at] of activity) p.last_activity_at = at;
}

/** Every discussion in order, a lone note as `individual_note: true`, each note with its id. */
function dumpDiscussions(state: ForgeState, discussions: Discussion[]) {
  return {
    discussions: discussions.map((d) => ({
      individual_note: d.individual_note,
      notes: d.notes.map((n) => ({
        id: n.id,
        author: userById(state, n.author_id)?.username ?? null,
        body: n.body,
        system: n.system,
        created_at: n.created_at,
        updated_at: n.updated_at,
        resolvable: n.resolvable,
        resolved: n.resolved,
        ...(n.position ? { position: n.position } : {}),
      })),
      resolved: d.notes.some((n) => n.resolvable) && d.notes.every((n) => !n.resolvable || n.resolved),
    })),
  };
}

const username = (state: ForgeState, id: number | null) =>
  id === null ? null : (userById(state, id)?.username ?? null);
const members = (state: ForgeState, ms: { user_id: number; access_level: number }[]) =>
  ms.map((m) => ({ user: username(state, m.user_id), access_level: m.access_level }));
const pathOf = (state: ForgeState, id: number) =>
  projectFullPath(state, state.projects.find((p) => p.id === id)!);

/**
 * The REST world as record kinds (groups, projects with repositories, issues, merge requests,
 * pipelines with their jobs), each dumped in the shape its seed reads; `replace: true` empties them.
 */
export const work: RecordKind[] = [
  {
    key: "groups",
    seed(state, rows) {
      for (const g of rows) seedGroup(state, g);
    },
    dump: (state) =>
      state.groups.map((g) => ({
        id: g.id,
        path: g.path,
        name: g.name,
        parent: g.parent_id === null ? null : groupFullPath(state, groupById(state, g.parent_id)!),
        description: g.description,
        visibility: g.visibility,
        members: members(state, g.members),
        created_at: g.created_at,
      })),
    reset(state) {
      state.groups = [];
    },
  },
  {
    key: "projects",
    seed(state, rows) {
      for (const p of rows) seedProject(state, p);
    },
    dump: (state) =>
      state.projects.map((p) => ({
        id: p.id,
        namespace: projectFullPath(state, p).split("/").slice(0, -1).join("/"),
        path: p.path,
        name: p.name,
        description: p.description,
        visibility: p.visibility,
        default_branch: p.default_branch,
        archived: p.archived,
        members: members(state, p.members),
        creator: username(state, p.creator_id),
        created_at: p.created_at,
        last_activity_at: p.last_activity_at,
        repository: {
          commits: [...p.repository.commits.values()],
          branches: Object.fromEntries(p.repository.branches),
          protected: [...p.repository.protected],
          tags: [...p.repository.tags.values()],
        },
      })),
    reset(state) {
      state.projects = [];
    },
  },
  {
    key: "issues",
    seed(state, rows) {
      asHistory(state, () => {
        for (const i of rows) seedIssue(state, i);
      });
    },
    dump: (state) =>
      state.issues.map((i) => ({
        id: i.id,
        project: pathOf(state, i.project_id),
        iid: i.iid,
        title: i.title,
        description: i.description,
        state: i.state,
        labels: i.labels,
        author: username(state, i.author_id),
        assignees: i.assignee_ids.map((id) => username(state, id)),
        created_at: i.created_at,
        updated_at: i.updated_at,
        closed_at: i.closed_at,
        closed_by: username(state, i.closed_by_id),
        confidential: i.confidential,
        due_date: i.due_date,
        ...dumpDiscussions(state, i.discussions),
      })),
    reset(state) {
      state.issues = [];
    },
  },
  {
    key: "merge_requests",
    seed(state, rows) {
      asHistory(state, () => {
        for (const m of rows) seedMergeRequest(state, m);
      });
    },
    dump: (state) =>
      state.mergeRequests.map((m) => {
        syncMr(state.projects.find((p) => p.id === m.project_id)!, m);
        return {
          id: m.id,
          project: pathOf(state, m.project_id),
          iid: m.iid,
          title: m.title,
          description: m.description,
          state: m.state,
          source_branch: m.source_branch,
          target_branch: m.target_branch,
          labels: m.labels,
          author: username(state, m.author_id),
          assignees: m.assignee_ids.map((id) => username(state, id)),
          reviewers: m.reviewer_ids.map((id) => username(state, id)),
          draft: m.draft,
          squash: m.squash,
          should_remove_source_branch: m.should_remove_source_branch,
          approvals_required: m.approvals_required,
          approved_by: m.approved_by_ids.map((id) => username(state, id)),
          created_at: m.created_at,
          updated_at: m.updated_at,
          merged_at: m.merged_at,
          merged_by: username(state, m.merged_by_id),
          closed_at: m.closed_at,
          merge_commit_sha: m.merge_commit_sha,
          head_sha: m.head_sha,
          diff_base_sha: m.diff_base_sha,
          ...dumpDiscussions(state, m.discussions),
          ...(m.draft_notes?.length ? { draft_notes: m.draft_notes } : {}),
        };
      }),
    reset(state) {
      state.mergeRequests = [];
    },
  },
  {
    key: "pipelines",
    seed(state, rows) {
      asHistory(state, () => {
        for (const p of rows) seedPipeline(state, p);
      });
    },
    dump(state) {
      for (const p of state.pipelines) syncPipeline(state, p);
      return state.pipelines.map((p) => ({
        id: p.id,
        iid: p.iid,
        project: pathOf(state, p.project_id),
        ref: p.ref,
        sha: p.sha,
        status: p.status,
        source: p.source,
        user: username(state, p.user_id),
        created_at: p.created_at,
        updated_at: p.updated_at,
        ...(p.variables.length ? { variables: p.variables } : {}),
        ...(p.name ? { name: p.name } : {}),
        jobs: state.jobs
          .filter((j) => j.pipeline_id === p.id)
          .map((j) => ({
            id: j.id,
            name: j.name,
            stage: j.stage,
            status: j.status,
            started_at: j.started_at,
            finished_at: j.finished_at,
            allow_failure: j.allow_failure,
            retried: j.retried,
            failure_reason: j.failure_reason,
            ...(j.trace !== null ? { trace: j.trace } : {}),
            ...(j.trigger !== undefined ? { trigger: j.trigger } : {}),
            ...(j.erased_at ? { erased_at: j.erased_at } : {}),
            ...(j.run_seconds !== undefined ? { seconds: j.run_seconds } : {}),
          })),
      }));
    },
    reset(state) {
      state.pipelines = [];
      state.jobs = [];
    },
  },
];
