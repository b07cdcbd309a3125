import { type Ctx, type Row, r } from "./table-b.js";

/**
 * Rows of tools/table.test.ts for the jobs and pipelines tools of gitlab-mcp 2.1.64 (waiting,
 * batches of manual jobs, erase, delete, names, variables, unit test reports), webhook writes, a
 * merge request's thread by id, a group's merge requests, and Orbit. They run after the main table
 * and use what its rows left: `c.pipeline` (created with a variable, then canceled), `c.retried`
 * (a canceled job), `c.build` (a finished job), `c.thread` (a merge request thread).
 * `prepareD` seeds a manual job that finishes a second after it is played (`c.quick`).
 */

const A = "/api/v4";
const P = `${A}/projects/1`;

export async function prepareD(origin: string, seed: (b: Record<string, unknown>) => Promise<void>, c: Ctx) {
  await seed({
    pipelines: [
      {
        project: "acme/widgets",
        ref: "main",
        jobs: [{ name: "smoke", stage: "deploy", status: "manual", seconds: 0 }],
      },
    ],
  });
  const jobs = (await (
    await fetch(`${origin}${P}/jobs?scope=manual`, { headers: { "private-token": "sim-forge-pat" } })
  ).json()) as Array<{ id: number; name: string }>;
  c.quick = jobs.find((j) => j.name === "smoke")!.id;
}

const graphQuery = {
  query_type: "traversal",
  node: { id: "p", entity: "Project", filters: { full_path: "acme/widgets" }, columns: ["full_path"] },
};

export const rowsD: Row[] = [
  r(
    "get_pipeline_variables",
    (c) => ({ project_id: 1, pipeline_id: c.pipeline }),
    "GET",
    (c) => `${P}/pipelines/${c.pipeline}/variables`,
    { expect: /"key":"SIM_FAIL_JOB","value":"lint"/ },
  ),
  r("get_pipeline_test_report", { project_id: 1, pipeline_id: 1 }, "GET", `${P}/pipelines/1/test_report`, {
    expect: /"total_count":6,"success_count":6[\s\S]*"test_cases":\[\{"status":"success"/,
  }),
  r(
    "get_pipeline_test_report_summary",
    { project_id: 1, pipeline_id: 1 },
    "GET",
    `${P}/pipelines/1/test_report_summary`,
    { expect: /^\{"total":\{"time":3,"count":6,"success":6/ },
  ),
  r(
    "update_pipeline_metadata",
    { project_id: 1, pipeline_id: 1, name: "Nightly" },
    "PUT",
    `${P}/pipelines/1/metadata`,
    { expect: /"name":"Nightly"/ },
  ),
  r(
    "wait_for_pipeline",
    (c) => ({ project_id: 1, pipeline_id: c.pipeline }),
    "GET",
    (c) => `${P}/pipelines/${c.pipeline}`,
    { expect: /"status":"canceled"/ },
  ),
  r(
    "wait_for_job",
    (c) => ({ project_id: 1, job_id: c.retried }),
    "GET",
    (c) => `${P}/jobs/${c.retried}`,
    { expect: /"status":"canceled"/ },
  ),
  r(
    "play_pipeline_jobs",
    (c) => ({ project_id: 1, job_ids: [c.quick], timeout_seconds: 10, poll_interval_seconds: 1 }),
    "POST",
    (c) => `${P}/jobs/${c.quick}/play`,
    {
      // queued a second: read pending at once, then finished a second later
      calls: (c) => [
        `POST ${P}/jobs/${c.quick}/play`,
        `GET ${P}/jobs/${c.quick}`,
        `GET ${P}/jobs/${c.quick}`,
      ],
      expect: /^\[\{"id":\d+,"status":"success"[^\]]*"name":"smoke"/,
    },
  ),
  r(
    "erase_pipeline_job",
    (c) => ({ project_id: 1, job_id: c.build }),
    "POST",
    (c) => `${P}/jobs/${c.build}/erase`,
    { needs: ["build"], expect: /"erased_at":"\d{4}-/ },
  ),
  r(
    "delete_pipeline",
    (c) => ({ project_id: 1, pipeline_id: c.pipeline }),
    "DELETE",
    (c) => `${P}/pipelines/${c.pipeline}`,
    { expect: /^Done\.$/ },
  ),
  // webhooks: the secret token goes to the forge and never comes back
  r(
    "create_webhook",
    {
      project_id: 1,
      url: "https://ci.example/hook",
      token: "s3cret-hook-token",
      issues_events: true,
      push_events: true,
    },
    "POST",
    `${P}/hooks`,
    {
      expect: /^(?![\s\S]*s3cret)[\s\S]*"url":"https:\/\/ci\.example\/hook"[\s\S]*"issues_events":true/,
      save: (b, c) => {
        c.newHook = b.id;
      },
    },
  ),
  r(
    "update_webhook",
    (c) => ({ project_id: 1, hook_id: c.newHook, push_events: false, token: "s3cret-rotated" }),
    "PUT",
    (c) => `${P}/hooks/${c.newHook}`,
    { expect: /^(?![\s\S]*s3cret)[\s\S]*"push_events":false[\s\S]*"issues_events":true/ },
  ),
  r(
    "delete_webhook",
    (c) => ({ project_id: 1, hook_id: c.newHook }),
    "DELETE",
    (c) => `${P}/hooks/${c.newHook}`,
    { expect: /^Done\.$/ },
  ),
  // merge requests: one thread by its id, a group's
  r(
    "get_merge_request_discussion",
    (c) => ({ project_id: 1, merge_request_iid: 1, discussion_id: c.thread }),
    "GET",
    (c) => `${P}/merge_requests/1/discussions/${c.thread}`,
    { expect: /"notes":\[\{/ },
  ),
  r(
    "list_group_merge_requests",
    { group_id: "acme", state: "all", per_page: 50 },
    "GET",
    `${A}/groups/acme/merge_requests`,
    { expect: /"source_branch":"feature\/layout-cache"/ },
  ),
  // Orbit, GitLab's knowledge graph
  r("orbit_get_schema", {}, "GET", `${A}/orbit/schema`, {
    expect: /"name":"HAS_MERGE_REQUEST","from":"Project","to":"MergeRequest"/,
  }),
  r("orbit_get_status", {}, "GET", `${A}/orbit/status`, { expect: /"status":"ready"/ }),
  r("orbit_list_tools", {}, "GET", `${A}/orbit/tools`, { expect: /"tools":\[\{"name":/ }),
  r("orbit_query", { query: graphQuery }, "POST", `${A}/orbit/query`, {
    expect:
      /^@header query_type=traversal rows=1 columns=p\nentity="Project" id=1 full_path="acme\/widgets"\n$/,
  }),
];
