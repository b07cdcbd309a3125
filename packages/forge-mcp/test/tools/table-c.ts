import { type Row, r } from "./table-b.js";

/**
 * Rows of tools/table.test.ts for gitlab-mcp 2.1.64's pipeline schedule, pipeline trigger,
 * environment and deployment tools, with the records they need (`tableSeedC`): a stale available
 * environment, an old stopped review app, a running review app, and a deployment of bob's waiting
 * for approval.
 */

const P = "/api/v4/projects/1";
const S = (c: Record<string, any>) => `${P}/pipeline_schedules/${c.schedule}`;
const OLD = "2020-01-01T00:00:00.000Z";
const env = (id: number, name: string, state: string) => ({
  id,
  project_id: 1,
  name,
  slug: name.replace(/\W+/g, "-"),
  external_url: null,
  state,
  tier: "other",
  created_at: OLD,
  updated_at: OLD,
});

export const tableSeedC = {
  environments: [
    env(9001, "prod-eu", "available"),
    env(9002, "review/old-login", "stopped"),
    env(9003, "review/new-login", "available"),
  ],
  deployments: [
    {
      id: 9004,
      iid: 90,
      project_id: 1,
      environment_id: 9001,
      ref: "main",
      sha: "0123456789abcdef0123456789abcdef01234567",
      status: "blocked",
      user_id: 2,
      job_id: null,
      created_at: OLD,
      updated_at: OLD,
      finished_at: null,
    },
  ],
};

/** A regex for an answer holding `text` and no trigger token. */
const withoutToken = (text: string) => new RegExp(`^(?![\\s\\S]*glptt-)[\\s\\S]*${text}`);

export const rowsC: Row[] = [
  // pipeline schedules
  r(
    "create_pipeline_schedule",
    { project_id: 1, description: "Nightly", ref: "main", cron: "0 1 * * *" },
    "POST",
    `${P}/pipeline_schedules`,
    {
      expect: /"cron_timezone":"UTC","next_run_at":"[^"]+T01:00:00\.000Z","active":true/,
      save: (b, c) => {
        c.schedule = b.id;
      },
    },
  ),
  r("list_pipeline_schedules", { project_id: 1, scope: "active" }, "GET", `${P}/pipeline_schedules`, {
    expect: /"description":"Nightly"/,
  }),
  r(
    "update_pipeline_schedule",
    (c) => ({ project_id: 1, pipeline_schedule_id: c.schedule, cron: "30 2 * * 1" }),
    "PUT",
    S,
    { expect: /"cron":"30 2 \* \* 1"/ },
  ),
  r(
    "create_pipeline_schedule_variable",
    (c) => ({ project_id: 1, pipeline_schedule_id: c.schedule, key: "TARGET", value: "staging" }),
    "POST",
    (c) => `${S(c)}/variables`,
    { expect: /"key":"TARGET","value":"staging","variable_type":"env_var"/ },
  ),
  r(
    "get_pipeline_schedule_variable",
    (c) => ({ project_id: 1, pipeline_schedule_id: c.schedule, key: "TARGET" }),
    "GET",
    (c) => `${S(c)}/variables/TARGET`,
    { expect: /"value":"staging"/ },
  ),
  r(
    "update_pipeline_schedule_variable",
    (c) => ({
      project_id: 1,
      pipeline_schedule_id: c.schedule,
      key: "TARGET",
      value: "production",
      variable_type: "file",
    }),
    "PUT",
    (c) => `${S(c)}/variables/TARGET`,
    { expect: /"value":"production","variable_type":"file"/ },
  ),
  r(
    "play_pipeline_schedule",
    (c) => ({ project_id: 1, pipeline_schedule_id: c.schedule }),
    "POST",
    (c) => `${S(c)}/play`,
    { expect: /"message":"201 Created"/ },
  ),
  r(
    "list_pipeline_schedule_pipelines",
    (c) => ({ project_id: 1, pipeline_schedule_id: c.schedule }),
    "GET",
    (c) => `${S(c)}/pipelines`,
    { expect: /"ref":"main","status":"[a-z]+","source":"schedule"/ },
  ),
  r("get_pipeline_schedule", (c) => ({ project_id: 1, pipeline_schedule_id: c.schedule }), "GET", S, {
    expect: /"last_pipeline":\{[^}]*"source":"schedule"[\s\S]*"variables":\[\{"key":"TARGET"/,
  }),
  r(
    "take_ownership_pipeline_schedule",
    (c) => ({ project_id: 1, pipeline_schedule_id: c.schedule }),
    "POST",
    (c) => `${S(c)}/take_ownership`,
    { expect: /"owner":\{[^}]*"username":"alice"/ },
  ),
  r(
    "delete_pipeline_schedule_variable",
    (c) => ({ project_id: 1, pipeline_schedule_id: c.schedule, key: "TARGET" }),
    "DELETE",
    (c) => `${S(c)}/variables/TARGET`,
    { expect: /"key":"TARGET"/ },
  ),
  r("delete_pipeline_schedule", (c) => ({ project_id: 1, pipeline_schedule_id: c.schedule }), "DELETE", S, {
    expect: /^Done\.$/,
  }),
  // pipeline triggers: the token reaches the model once, when the trigger is made
  r("create_pipeline_trigger", { project_id: 1, description: "deploy bot" }, "POST", `${P}/triggers`, {
    expect: /"token":"glptt-[0-9a-zA-Z]{40}"/,
    save: (b, c) => {
      c.trigger = b.id;
      c.triggerToken = b.token;
    },
  }),
  r("list_pipeline_triggers", { project_id: 1 }, "GET", `${P}/triggers`, {
    expect: withoutToken('"description":"deploy bot"'),
  }),
  r(
    "get_pipeline_trigger",
    (c) => ({ project_id: 1, trigger_id: c.trigger }),
    "GET",
    (c) => `${P}/triggers/${c.trigger}`,
    { expect: withoutToken('"owner":\\{"id":1,"username":"alice"') },
  ),
  r(
    "update_pipeline_trigger",
    (c) => ({ project_id: 1, trigger_id: c.trigger, description: "release bot" }),
    "PUT",
    (c) => `${P}/triggers/${c.trigger}`,
    { expect: withoutToken('"description":"release bot"') },
  ),
  r(
    "trigger_pipeline",
    (c) => ({ project_id: 1, token: c.triggerToken, ref: "main", variables: { DEPLOY: "yes" } }),
    "POST",
    `${P}/trigger/pipeline`,
    { expect: /"ref":"main","status":"[a-z]+","source":"trigger"/ },
  ),
  r(
    "delete_pipeline_trigger",
    (c) => ({ project_id: 1, trigger_id: c.trigger }),
    "DELETE",
    (c) => `${P}/triggers/${c.trigger}`,
    { expect: /^Done\.$/ },
  ),
  // environments
  r(
    "update_environment",
    { project_id: 1, environment_id: 9001, external_url: "https://eu.example.test", tier: "production" },
    "PUT",
    `${P}/environments/9001`,
    { expect: /"external_url":"https:\/\/eu\.example\.test"[\s\S]*"tier":"production","state":"available"/ },
  ),
  r(
    "stop_stale_environments",
    { project_id: 1, before: "2021-01-01T00:00:00Z" },
    "POST",
    `${P}/environments/stop_stale`,
    { expect: /Successfully requested stop/ },
  ),
  r("stop_environment", { project_id: 1, environment_id: 9003 }, "POST", `${P}/environments/9003/stop`, {
    expect: /"name":"review\/new-login"[\s\S]*"state":"stopped"/,
  }),
  r(
    "delete_review_app_environments",
    { project_id: 1, dry_run: false },
    "DELETE",
    `${P}/environments/review_apps`,
    { expect: /"scheduled_entries":\[\{"id":9002,"name":"review\/old-login"/ },
  ),
  r("delete_environment", { project_id: 1, environment_id: 9003 }, "DELETE", `${P}/environments/9003`, {
    expect: /^Done\.$/,
  }),
  // deployments
  r(
    "create_deployment",
    { project_id: 1, environment: "canary", sha: "main", ref: "main", tag: false, status: "running" },
    "POST",
    `${P}/deployments`,
    {
      expect: /"status":"running"/,
      save: (b, c) => {
        c.canary = b.id;
      },
    },
  ),
  r(
    "update_deployment",
    (c) => ({ project_id: 1, deployment_id: c.canary, status: "success" }),
    "PUT",
    (c) => `${P}/deployments/${c.canary}`,
    { expect: /"status":"success"/ },
  ),
  r(
    "create_deployment",
    { project_id: 1, environment: "canary", sha: "main", ref: "main", tag: false, status: "success" },
    "POST",
    `${P}/deployments`,
    {
      save: (b, c) => {
        c.canary2 = b.id;
      },
    },
  ),
  r(
    "delete_deployment",
    (c) => ({ project_id: 1, deployment_id: c.canary }),
    "DELETE",
    (c) => `${P}/deployments/${c.canary}`,
    { expect: /^Done\.$/ },
  ),
  r(
    "list_deployment_merge_requests",
    (c) => ({ project_id: 1, deployment_id: c.canary2 }),
    "GET",
    (c) => `${P}/deployments/${c.canary2}/merge_requests`,
    { expect: /^\{"items":\[/ },
  ),
  r(
    "approve_deployment",
    { project_id: 1, deployment_id: 9004, status: "approved", comment: "ship it" },
    "POST",
    `${P}/deployments/9004/approval`,
    { expect: /"user":\{"id":1,"username":"alice"[^}]*\},"status":"approved"[\s\S]*"comment":"ship it"/ },
  ),
];
