import { projectFullPath } from "./access.js";
import { jobArtifactsJson } from "./job-artifacts.js";
import { commitJson } from "./repo.js";
import type { ForgeState, Job, JobStatus, Pipeline, Project } from "./state.js";
import { nextId } from "./state.js";
import { userRef } from "./users.js";

/**
 * Pipelines run on the simulated clock: every job gets a schedule (start, end, outcome) when it is
 * created, and reads materialise the status the clock has reached. A test moves time with
 * `/_sim/clock` instead of waiting. The variable SIM_FAIL_JOB=<job name> makes that job fail.
 */
const PIPELINE_TEMPLATE = [
  { name: "build", stage: "build", seconds: 30 },
  { name: "test", stage: "test", seconds: 45 },
  { name: "lint", stage: "test", seconds: 20 },
] as const;
const QUEUE_MS = 1000;
const FINAL: ReadonlySet<JobStatus> = new Set(["success", "failed", "canceled", "skipped", "manual"]);

export function isFinal(status: JobStatus): boolean {
  return FINAL.has(status);
}

/** Schedules `specs` stage after stage from `startMs`; a failure skips the later stages. */
function schedule(
  state: ForgeState,
  pipeline: Pipeline,
  specs: { name: string; stage: string; seconds: number; fail: boolean }[],
  startMs: number,
): Job[] {
  const stages = [...new Set(specs.map((s) => s.stage))];
  let stageStart = startMs + QUEUE_MS;
  let failed = false;
  const jobs: Job[] = [];
  for (const stage of stages) {
    let stageEnd = stageStart;
    for (const spec of specs.filter((s) => s.stage === stage)) {
      const endMs = failed ? stageStart : stageStart + spec.seconds * 1000;
      jobs.push({
        id: nextId(state, "job"),
        project_id: pipeline.project_id,
        pipeline_id: pipeline.id,
        name: spec.name,
        stage,
        status: stage === stages[0] ? "pending" : "created",
        ref: pipeline.ref,
        sha: pipeline.sha,
        user_id: pipeline.user_id,
        created_at: new Date(startMs).toISOString(),
        started_at: null,
        finished_at: null,
        allow_failure: false,
        trace: null,
        retried: false,
        schedule: {
          startMs: stageStart,
          endMs,
          outcome: failed ? "skipped" : spec.fail ? "failed" : "success",
          first: stage === stages[0],
        },
        failure_reason: null,
      });
      stageEnd = Math.max(stageEnd, endMs);
    }
    if (specs.some((s) => s.stage === stage && s.fail)) failed = true;
    stageStart = stageEnd;
  }
  state.jobs.push(...jobs);
  return jobs;
}

export function createPipeline(
  state: ForgeState,
  project: Project,
  ref: string,
  sha: string,
  userId: number,
  source: string,
  variables: { key: string; value: string }[],
): Pipeline {
  const now = state.clock.now();
  const iso = new Date(now).toISOString();
  const pipeline: Pipeline = {
    id: nextId(state, "pipeline"),
    iid: Math.max(0, ...state.pipelines.filter((p) => p.project_id === project.id).map((p) => p.iid)) + 1,
    project_id: project.id,
    sha,
    ref,
    status: "pending",
    source,
    user_id: userId,
    created_at: iso,
    updated_at: iso,
    started_at: null,
    finished_at: null,
    variables,
  };
  state.pipelines.push(pipeline);
  const failing = variables.find((v) => v.key === "SIM_FAIL_JOB")?.value;
  schedule(
    state,
    pipeline,
    PIPELINE_TEMPLATE.map((t) => ({ ...t, fail: t.name === failing })),
    now,
  );
  project.last_activity_at = iso;
  return pipeline;
}

function materialize(job: Job, now: number): void {
  const s = job.schedule;
  if (!s) return;
  if (now < s.startMs) {
    job.status = s.first ? "pending" : "created";
    return;
  }
  if (s.outcome === "skipped") {
    job.status = "skipped";
    job.schedule = null;
    return;
  }
  job.started_at = new Date(s.startMs).toISOString();
  if (now < s.endMs) {
    job.status = "running";
    return;
  }
  job.status = s.outcome;
  job.finished_at = new Date(s.endMs).toISOString();
  if (s.outcome === "failed") job.failure_reason = "script_failure";
  job.schedule = null;
}

export function pipelineJobs(state: ForgeState, pipeline: Pipeline, includeRetried = false): Job[] {
  return state.jobs.filter(
    (j) => j.pipeline_id === pipeline.id && (includeRetried || !j.retried) && j.trigger === undefined,
  );
}

/** Brings a pipeline and its jobs to the simulated now. */
export function syncPipeline(state: ForgeState, pipeline: Pipeline): void {
  const now = state.clock.now();
  const jobs = pipelineJobs(state, pipeline);
  for (const j of jobs) materialize(j, now);
  const statuses = jobs.map((j) => j.status);
  const any = (s: JobStatus) => statuses.includes(s);
  const anyFinal = statuses.some(isFinal);
  let status: JobStatus;
  if (statuses.length === 0) status = "created";
  else if (any("running") || ((any("pending") || any("created")) && anyFinal)) status = "running";
  else if (any("pending")) status = "pending";
  else if (statuses.every((s) => s === "created")) status = "created";
  else if (jobs.some((j) => j.status === "failed" && !j.allow_failure)) status = "failed";
  else if (any("canceled")) status = "canceled";
  else if (statuses.every((s) => s === "skipped")) status = "skipped";
  else status = "success";
  const started = jobs
    .map((j) => j.started_at)
    .filter((x): x is string => x !== null)
    .sort();
  const finished = jobs
    .map((j) => j.finished_at)
    .filter((x): x is string => x !== null)
    .sort();
  if (status !== pipeline.status) pipeline.updated_at = new Date(now).toISOString();
  pipeline.status = status;
  pipeline.started_at = started[0] ?? null;
  pipeline.finished_at = isFinal(status) ? (finished.at(-1) ?? pipeline.updated_at) : null;
}

export function cancelPipeline(state: ForgeState, pipeline: Pipeline): void {
  syncPipeline(state, pipeline);
  const iso = state.clock.iso();
  for (const j of pipelineJobs(state, pipeline)) {
    if (isFinal(j.status)) continue;
    j.status = "canceled";
    j.schedule = null;
    if (j.started_at) j.finished_at = iso;
  }
  syncPipeline(state, pipeline);
}

/** Re-runs a job: the old one is kept as retried, a new one runs from now. */
export function retryJobs(state: ForgeState, pipeline: Pipeline, jobs: Job[]): Job[] {
  for (const j of jobs) j.retried = true;
  const fresh = schedule(
    state,
    pipeline,
    jobs.map((j) => ({
      name: j.name,
      stage: j.stage,
      seconds: PIPELINE_TEMPLATE.find((t) => t.name === j.name)?.seconds ?? 30,
      fail: pipeline.variables.some((v) => v.key === "SIM_FAIL_JOB" && v.value === j.name),
    })),
    state.clock.now(),
  );
  syncPipeline(state, pipeline);
  return fresh;
}

export function pipelineJson(state: ForgeState, p: Pipeline, origin: string) {
  const project = state.projects.find((x) => x.id === p.project_id)!;
  return {
    id: p.id,
    iid: p.iid,
    project_id: p.project_id,
    sha: p.sha,
    ref: p.ref,
    status: p.status,
    source: p.source,
    created_at: p.created_at,
    updated_at: p.updated_at,
    web_url: `${origin}/${projectFullPath(state, project)}/-/pipelines/${p.id}`,
    name: p.name ?? null,
  };
}

const seconds = (from: string | null, to: string | null) =>
  from && to ? (Date.parse(to) - Date.parse(from)) / 1000 : null;

export function pipelineDetailJson(state: ForgeState, p: Pipeline, origin: string) {
  const base = pipelineJson(state, p, origin);
  return {
    ...base,
    before_sha: "0000000000000000000000000000000000000000",
    tag: false,
    yaml_errors: null,
    user: userRef(state, p.user_id, origin),
    started_at: p.started_at,
    finished_at: p.finished_at,
    committed_at: null,
    duration: seconds(p.started_at, p.finished_at),
    queued_duration: seconds(p.created_at, p.started_at),
    coverage: null,
    detailed_status: {
      icon: `status_${p.status}`,
      text: p.status,
      label: p.status === "success" ? "passed" : p.status,
      group: p.status,
      tooltip: p.status === "success" ? "passed" : p.status,
      has_details: true,
      details_path: new URL(base.web_url).pathname,
      illustration: null,
      favicon: `/assets/ci_favicons/favicon_status_${p.status}.png`,
    },
  };
}

export function jobJson(state: ForgeState, j: Job, origin: string) {
  const project = state.projects.find((x) => x.id === j.project_id)!;
  const pipeline = state.pipelines.find((x) => x.id === j.pipeline_id)!;
  const full = projectFullPath(state, project);
  const commit = project.repository.commits.get(j.sha);
  const arts = jobArtifactsJson(state, j, Buffer.byteLength(renderTrace(j)));
  return {
    id: j.id,
    status: j.status,
    stage: j.stage,
    name: j.name,
    ref: j.ref,
    tag: false,
    coverage: null,
    allow_failure: j.allow_failure,
    created_at: j.created_at,
    started_at: j.started_at,
    finished_at: j.finished_at,
    erased_at: j.erased_at ?? null,
    duration: seconds(j.started_at, j.finished_at),
    queued_duration: seconds(j.created_at, j.started_at),
    user: userRef(state, j.user_id, origin),
    commit: commit ? commitJson(commit, origin, full) : null,
    pipeline: pipelineJson(state, pipeline, origin),
    web_url: `${origin}/${full}/-/jobs/${j.id}`,
    project: { ci_job_token_scope_enabled: false },
    artifacts: arts.artifacts,
    ...(arts.archive ? { artifacts_file: arts.archive } : {}),
    runner: null,
    runner_manager: null,
    artifacts_expire_at: null,
    archived: false,
    tag_list: [],
    retried: j.retried,
    ...(j.failure_reason ? { failure_reason: j.failure_reason } : {}),
  };
}

/** The job log as a runner would have written it so far. */
export function renderTrace(j: Job): string {
  if (j.trace !== null) return j.trace;
  if (j.status === "created" || j.status === "pending" || j.status === "skipped" || j.status === "manual")
    return "";
  const lines = [
    "Running with gitlab-runner 17.6.0 (simulated)",
    "  on sim-runner-1 simrunner, system ID: s_0000000000",
    'Preparing the "docker" executor',
    "Getting source from Git repository",
    "Fetching changes with git depth set to 20...",
    `Checking out ${j.sha.slice(0, 8)} as detached HEAD (ref is ${j.ref})...`,
    'Executing "step_script" stage of the job script',
    `$ make ${j.name}`,
    `${j.name}: ok`,
  ];
  if (j.status === "success")
    lines.push("Cleaning up project directory and file based variables", "Job succeeded");
  if (j.status === "failed")
    lines.push(`${j.name}: error: simulated failure`, "ERROR: Job failed: exit code 1");
  if (j.status === "canceled") lines.push("ERROR: Job failed: canceled");
  return `${lines.join("\n")}\n`;
}
