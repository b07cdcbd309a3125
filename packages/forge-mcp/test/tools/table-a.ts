import { unzipSync } from "fflate";
import { expect } from "vitest";
import { type Ctx, type Row, r } from "./table-b.js";

/**
 * Rows of the tools table (tools/table.test.ts) for emoji reactions, CI/CD variables, milestone
 * items and group milestones, and CI (lint, environments, deployments, trigger jobs, artifacts).
 * In the whole table they use what earlier rows left (issue 1's note `c.note`, the build job
 * `c.build`, the award a create row made); a row run alone (`vitest -t`) has no such leftovers, so
 * each value a row `needs` has a set-up here that makes it through the forge's REST API when it is
 * missing. `prepareA` adds what no tool creates: a deployment and a pipeline with a trigger job.
 */

const A = "/api/v4";
const P = `${A}/projects/1`;
const MR1 = `${P}/merge_requests/1`;
const G = `${A}/groups/acme`;
const WI = `${P}/issues/1`;

const headers = { "private-token": "sim-forge-pat", "content-type": "application/json" };
type Rest = (method: string, path: string, body?: unknown) => Promise<any>;
const restOn =
  (origin: string): Rest =>
  async (method, path, body) => {
    const res = await fetch(`${origin}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return res.json();
  };

const award = (on: string, name: string) => async (rest: Rest) =>
  (await rest("POST", `${on}/award_emoji`, { name })).id;

const deployToken = { key: "DEPLOY_TOKEN", value: "s3cr3t-value", masked: true };

/** Each value a row may need, made through the REST API (never the tool under test), after its own needs. */
const SETUPS: Record<string, { needs?: string[]; make: (rest: Rest, c: Ctx) => Promise<unknown> }> = {
  note: { make: async (rest) => (await rest("POST", `${P}/issues/1/notes`, { body: "Seen on 3.2 too" })).id },
  build: {
    make: async (rest) =>
      ((await rest("GET", `${P}/pipelines/1/jobs`)) as Array<{ id: number; name: string }>).find(
        (j) => j.name === "build",
      )!.id,
  },
  issueAward: { make: award(`${P}/issues/1`, "thumbsup") },
  issueNoteAward: {
    needs: ["note"],
    make: (rest, c) => award(`${P}/issues/1/notes/${c.note}`, "eyes")(rest),
  },
  emojiMrNote: { make: async (rest) => (await rest("POST", `${MR1}/notes`, { body: "React to me" })).id },
  merge_requestAward: { make: award(MR1, "thumbsup") },
  merge_requestNoteAward: {
    needs: ["emojiMrNote"],
    make: (rest, c) => award(`${MR1}/notes/${c.emojiMrNote}`, "eyes")(rest),
  },
  wiAward: { make: award(WI, "rocket") },
  wiNoteAward: { needs: ["note"], make: (rest, c) => award(`${WI}/notes/${c.note}`, "tada")(rest) },
  projectVariable: { make: (rest) => rest("POST", `${P}/variables`, deployToken) },
  groupVariable: { make: (rest) => rest("POST", `${G}/variables`, deployToken) },
  ms: { make: async (rest) => (await rest("POST", `${P}/milestones`, { title: "v3.0" })).id },
  msIssue: { needs: ["ms"], make: (rest, c) => rest("PUT", `${P}/issues/1`, { milestone_id: c.ms }) },
  msMr: { needs: ["ms"], make: (rest, c) => rest("PUT", MR1, { milestone_id: c.ms }) },
  gms: {
    needs: ["msIssue", "msMr"],
    make: async (rest, c) => (await rest("POST", `${P}/milestones/${c.ms}/promote`)).id,
  },
  gms2: {
    make: async (rest) => (await rest("POST", `${G}/milestones`, { title: "Q1", due_date: "2027-03-31" })).id,
  },
  env: { make: async (rest) => ((await rest("GET", `${P}/environments`)) as Array<{ id: number }>)[0]!.id },
  deployment: {
    make: async (rest) =>
      ((await rest("GET", `${P}/deployments?environment=production`)) as Array<{ id: number }>)[0]!.id,
  },
};

/** Makes what `needs` names and the context lacks (nothing, when earlier rows left it). */
export async function ensure(needs: readonly string[] | undefined, origin: string, c: Ctx): Promise<void> {
  for (const key of needs ?? []) {
    if (c[key] !== undefined) continue;
    const setup = SETUPS[key];
    if (!setup) throw new Error(`no set-up makes ${key}`);
    await ensure(setup.needs, origin, c);
    c[key] = (await setup.make(restOn(origin), c)) ?? true;
  }
}

/** A deployment to production and a pipeline whose `downstream` job triggers another project. */
export async function prepareA(origin: string, seed: (b: Record<string, unknown>) => Promise<void>, c: Ctx) {
  const d = await fetch(`${origin}${P}/deployments`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      environment: "production",
      sha: "main",
      ref: "main",
      tag: false,
      status: "success",
    }),
  });
  expect(d.status).toBe(201);
  await seed({
    pipelines: [
      {
        project: "acme/widgets",
        ref: "main",
        jobs: [
          { name: "build", stage: "build", status: "success" },
          { name: "downstream", stage: "deploy", status: "success", trigger: "acme/platform/infra" },
        ],
      },
    ],
  });
  // a CI/CD catalog resource: components under templates/, published by a release
  await seed({
    projects: [
      {
        namespace: "acme",
        path: "components",
        name: "Components",
        description: "Shared CI components",
        visibility: "public",
        creator: "alice",
        files: {
          "README.md": "# Components\n",
          "templates/lint.yml":
            "spec:\n  inputs:\n    stage:\n      default: test\n---\nlint:\n  stage: $[[ inputs.stage ]]\n  script: make lint\n",
          "templates/deploy/template.yml":
            "spec:\n  inputs:\n    target:\n      description: Where to\n---\ndeploy:\n  script: make deploy\n",
        },
      },
    ],
    releases: [{ project: "acme/components", tag_name: "v1.2.0", ref: "main" }],
  });
  const pipelines = (await (await fetch(`${origin}${P}/pipelines?per_page=1`, { headers })).json()) as Array<{
    id: number;
  }>;
  c.bridgePipeline = pipelines[0]!.id;
}

const emoji = (kind: "issue" | "merge_request", on: string, noteKey: string): Row[] => {
  const noteOf = (c: Ctx) => c[noteKey];
  const made = `${kind}Award`;
  const noteMade = `${kind}NoteAward`;
  const key = kind === "issue" ? "issue_iid" : "merge_request_iid";
  const t = { project_id: 1, [key]: 1 };
  return [
    r(`create_${kind}_emoji_reaction`, { ...t, name: "thumbsup" }, "POST", `${on}/award_emoji`, {
      expect: /"name":"thumbsup"[\s\S]*"username":"alice"/,
      save: (b, c) => {
        c[`${kind}Award`] = b.id;
      },
    }),
    r(`list_${kind}_emoji_reactions`, t, "GET", `${on}/award_emoji`, {
      needs: [made],
      expect: /"name":"thumbsup"/,
    }),
    r(
      `delete_${kind}_emoji_reaction`,
      (c) => ({ ...t, award_id: c[`${kind}Award`] }),
      "DELETE",
      (c) => `${on}/award_emoji/${c[`${kind}Award`]}`,
      { needs: [made], expect: /^Done\.$/ },
    ),
    r(
      `create_${kind}_note_emoji_reaction`,
      (c) => ({ ...t, note_id: noteOf(c), name: "eyes" }),
      "POST",
      (c) => `${on}/notes/${noteOf(c)}/award_emoji`,
      {
        needs: [noteKey],
        expect: /"name":"eyes"[\s\S]*"awardable_type":"Note"/,
        save: (b, c) => {
          c[`${kind}NoteAward`] = b.id;
        },
      },
    ),
    r(
      `list_${kind}_note_emoji_reactions`,
      (c) => ({ ...t, note_id: noteOf(c) }),
      "GET",
      (c) => `${on}/notes/${noteOf(c)}/award_emoji`,
      { needs: [noteMade], expect: /"name":"eyes"/ },
    ),
    r(
      `delete_${kind}_note_emoji_reaction`,
      (c) => ({ ...t, note_id: noteOf(c), award_id: c[`${kind}NoteAward`] }),
      "DELETE",
      (c) => `${on}/notes/${noteOf(c)}/award_emoji/${c[`${kind}NoteAward`]}`,
      { needs: [noteMade], expect: /^Done\.$/ },
    ),
  ];
};

const variables = (owner: "project" | "group", base: string, id: unknown): Row[] => {
  const o = { [`${owner}_id`]: id };
  const needs = [`${owner}Variable`];
  return [
    r(
      `create_${owner}_variable`,
      { ...o, key: "DEPLOY_TOKEN", value: "s3cr3t-value", masked: true },
      "POST",
      `${base}/variables`,
      {
        expect: /^(?!.*s3cr3t)[\s\S]*"key":"DEPLOY_TOKEN","value":"\[masked\]"/,
        save: (_b, c) => {
          c[`${owner}Variable`] = true;
        },
      },
    ),
    r(`list_${owner}_variables`, o, "GET", `${base}/variables`, {
      needs,
      expect: /^(?!.*s3cr3t)[\s\S]*"value":"\[masked\]"/,
    }),
    r(
      `get_${owner}_variable`,
      { ...o, key: "DEPLOY_TOKEN", show_values: true },
      "GET",
      `${base}/variables/DEPLOY_TOKEN`,
      {
        needs,
        expect: /"value":"s3cr3t-value"/,
      },
    ),
    r(
      `update_${owner}_variable`,
      { ...o, key: "DEPLOY_TOKEN", value: "n3w-s3cr3t-value", protected: true },
      "PUT",
      `${base}/variables/DEPLOY_TOKEN`,
      { needs, expect: /^(?!.*s3cr3t)[\s\S]*"value":"\[masked\]","hidden":false,"protected":true/ },
    ),
    r(`delete_${owner}_variable`, { ...o, key: "DEPLOY_TOKEN" }, "DELETE", `${base}/variables/DEPLOY_TOKEN`, {
      needs,
      expect: /^Done\.$/,
    }),
  ];
};

const gidNote = (c: Ctx) => `gid://gitlab/Note/${c.note}`;

export const rowsA: Row[] = [
  // emoji reactions: issues, merge requests (on a note of its own), work items (issue 1)
  ...emoji("issue", `${P}/issues/1`, "note"),
  r(
    "create_merge_request_note",
    { project_id: 1, merge_request_iid: 1, body: "React to me" },
    "POST",
    `${MR1}/notes`,
    {
      save: (b, c) => {
        c.emojiMrNote = b.id;
      },
    },
  ),
  ...emoji("merge_request", MR1, "emojiMrNote"),
  r(
    "create_work_item_emoji_reaction",
    { project_id: 1, iid: 1, name: "rocket" },
    "POST",
    `${WI}/award_emoji`,
    {
      expect: /"name":"rocket"/,
      save: (b, c) => {
        c.wiAward = b.id;
      },
    },
  ),
  r("list_work_item_emoji_reactions", { project_id: 1, iid: 1 }, "GET", `${WI}/award_emoji`, {
    needs: ["wiAward"],
    expect: /"name":"rocket"/,
  }),
  r(
    "delete_work_item_emoji_reaction",
    { project_id: 1, iid: 1, name: "rocket" },
    "DELETE",
    (c) => `${WI}/award_emoji/${c.wiAward}`,
    { needs: ["wiAward"], before: [`GET ${WI}/award_emoji`], expect: /^Done\.$/ },
  ),
  r(
    "create_work_item_note_emoji_reaction",
    (c) => ({ project_id: 1, iid: 1, note_id: gidNote(c), name: "tada" }),
    "POST",
    (c) => `${WI}/notes/${c.note}/award_emoji`,
    {
      needs: ["note"],
      expect: /"name":"tada"/,
      save: (b, c) => {
        c.wiNoteAward = b.id;
      },
    },
  ),
  r(
    "list_work_item_note_emoji_reactions",
    (c) => ({ project_id: 1, iid: 1, note_id: gidNote(c) }),
    "GET",
    (c) => `${WI}/notes/${c.note}/award_emoji`,
    { needs: ["wiNoteAward"], expect: /"name":"tada"/ },
  ),
  r(
    "delete_work_item_note_emoji_reaction",
    (c) => ({ project_id: 1, iid: 1, note_id: c.note, name: "tada" }),
    "DELETE",
    (c) => `${WI}/notes/${c.note}/award_emoji/${c.wiNoteAward}`,
    { needs: ["wiNoteAward"], before: (c) => [`GET ${WI}/notes/${c.note}/award_emoji`], expect: /^Done\.$/ },
  ),
  // CI/CD variables: values masked unless show_values
  ...variables("project", P, 1),
  ...variables("group", G, "acme"),
  // a milestone's issues, merge requests and burndown, promotion, group milestones
  r("create_milestone", { project_id: 1, title: "v3.0" }, "POST", `${P}/milestones`, {
    save: (b, c) => {
      c.ms = b.id;
    },
  }),
  r("update_issue", (c) => ({ project_id: 1, issue_iid: 1, milestone_id: c.ms }), "PUT", `${P}/issues/1`, {
    needs: ["ms"],
    expect: /"title":"v3\.0"/,
    save: (_b, c) => {
      c.msIssue = true;
    },
  }),
  r(
    "update_merge_request",
    (c) => ({ project_id: 1, merge_request_iid: 1, milestone_id: c.ms }),
    "PUT",
    MR1,
    {
      needs: ["ms"],
      expect: /"milestone":\{[^}]*"title":"v3\.0"/,
      save: (_b, c) => {
        c.msMr = true;
      },
    },
  ),
  r(
    "get_milestone_issue",
    (c) => ({ project_id: 1, milestone_id: c.ms }),
    "GET",
    (c) => `${P}/milestones/${c.ms}/issues`,
    { needs: ["msIssue"], expect: /render slowly/ },
  ),
  r(
    "get_milestone_merge_requests",
    (c) => ({ project_id: 1, milestone_id: c.ms }),
    "GET",
    (c) => `${P}/milestones/${c.ms}/merge_requests`,
    { needs: ["msMr"], expect: /"iid":1,/ },
  ),
  r(
    "get_milestone_burndown_events",
    (c) => ({ project_id: 1, milestone_id: c.ms }),
    "GET",
    (c) => `${P}/milestones/${c.ms}/burndown_events`,
    { needs: ["msIssue", "msMr"], expect: /"action":"created"/ },
  ),
  r(
    "promote_milestone",
    (c) => ({ project_id: 1, milestone_id: c.ms }),
    "POST",
    (c) => `${P}/milestones/${c.ms}/promote`,
    {
      needs: ["msIssue", "msMr"],
      expect: /"title":"v3\.0"[\s\S]*"group_id":\d+/,
      save: (b, c) => {
        c.gms = b.id;
      },
    },
  ),
  r("list_group_milestones", { group_id: "acme", state: "active" }, "GET", `${G}/milestones`, {
    needs: ["gms"],
    expect: /"title":"v3\.0"/,
  }),
  r(
    "get_group_milestone",
    (c) => ({ group_id: "acme", milestone_id: c.gms }),
    "GET",
    (c) => `${G}/milestones/${c.gms}`,
    {
      needs: ["gms"],
      expect: /groups\/acme\/-\/milestones/,
    },
  ),
  r(
    "get_group_milestone_issue",
    (c) => ({ group_id: "acme", milestone_id: c.gms }),
    "GET",
    (c) => `${G}/milestones/${c.gms}/issues`,
    { needs: ["gms"], expect: /render slowly/ },
  ),
  r(
    "get_group_milestone_merge_requests",
    (c) => ({ group_id: "acme", milestone_id: c.gms }),
    "GET",
    (c) => `${G}/milestones/${c.gms}/merge_requests`,
    { needs: ["gms"], expect: /"iid":1,/ },
  ),
  r(
    "get_group_milestone_burndown_events",
    (c) => ({ group_id: "acme", milestone_id: c.gms }),
    "GET",
    (c) => `${G}/milestones/${c.gms}/burndown_events`,
    { needs: ["gms"], expect: /"action":"created"/ },
  ),
  r(
    "create_group_milestone",
    { group_id: "acme", title: "Q1", due_date: "2027-03-31" },
    "POST",
    `${G}/milestones`,
    {
      save: (b, c) => {
        c.gms2 = b.id;
      },
    },
  ),
  r(
    "edit_group_milestone",
    (c) => ({ group_id: "acme", milestone_id: c.gms2, state_event: "close" }),
    "PUT",
    (c) => `${G}/milestones/${c.gms2}`,
    { needs: ["gms2"], expect: /"state":"closed"/ },
  ),
  r(
    "delete_group_milestone",
    (c) => ({ group_id: "acme", milestone_id: c.gms2 }),
    "DELETE",
    (c) => `${G}/milestones/${c.gms2}`,
    { needs: ["gms2"], expect: /^Done\.$/ },
  ),
  // CI: lint, environments and deployments, trigger jobs, the artifacts archive
  r(
    "validate_ci_lint",
    { project_id: 1, content: "build:\n  script: make\n", include_jobs: true },
    "POST",
    `${P}/ci/lint`,
    { expect: /"valid":true[\s\S]*"jobs":\[\{"name":"build"/ },
  ),
  r("validate_project_ci_lint", { project_id: 1, content_ref: "main" }, "GET", `${P}/ci/lint`, {
    expect: /"valid":true,"errors":\[\]/,
  }),
  r("list_environments", { project_id: 1 }, "GET", `${P}/environments`, {
    expect: /"name":"production"/,
    save: (b, c) => {
      c.env = b.items[0].id;
    },
  }),
  r(
    "get_environment",
    (c) => ({ project_id: 1, environment_id: c.env }),
    "GET",
    (c) => `${P}/environments/${c.env}`,
    {
      needs: ["env"],
      expect: /"last_deployment":\{[^}]*"status":"success"/,
    },
  ),
  r("list_deployments", { project_id: 1, environment: "production" }, "GET", `${P}/deployments`, {
    expect: /"status":"success"/,
    save: (b, c) => {
      c.deployment = b.items[0].id;
    },
  }),
  r(
    "get_deployment",
    (c) => ({ project_id: 1, deployment_id: c.deployment }),
    "GET",
    (c) => `${P}/deployments/${c.deployment}`,
    { needs: ["deployment"], expect: /"environment":\{[^}]*"name":"production"/ },
  ),
  r(
    "list_pipeline_trigger_jobs",
    (c) => ({ project_id: 1, pipeline_id: c.bridgePipeline }),
    "GET",
    (c) => `${P}/pipelines/${c.bridgePipeline}/bridges`,
    { expect: /^(?![\s\S]*"name":"build")[\s\S]*"name":"downstream"(?![\s\S]*"downstream_pipeline")/ },
  ),
  r("list_ci_catalog_resources", { search: "shared" }, "POST", "/api/graphql", {
    expect: /"fullPath":"acme\/components"[\s\S]*"latestReleasedAt":"/,
  }),
  r(
    "get_ci_catalog_resource",
    { full_path: "acme/components", component_name: "deploy" },
    "POST",
    "/api/graphql",
    {
      expect:
        /^(?![\s\S]*"name":"lint")[\s\S]*"name":"v1\.2\.0"[\s\S]*"name":"deploy"[\s\S]*"includePath":"[^"]+\/acme\/components\/deploy@1\.2\.0"[\s\S]*"name":"target","description":"Where to","type":"STRING","required":true/,
    },
  ),
  r(
    "download_job_artifacts",
    (c) => ({ project_id: 1, job_id: c.build }),
    "GET",
    (c) => `${P}/jobs/${c.build}/artifacts`,
    {
      needs: ["build"],
      expect: /"filename":"artifacts\.zip"[\s\S]*"encoding":"base64"/,
      save: (b) => {
        // the archive arrives whole: a zip holding the job's files
        const files = unzipSync(Buffer.from(b.content_base64, "base64"));
        expect(Buffer.from(files["build/summary.txt"]!).toString()).toMatch(
          /job build \(\d+\) at [0-9a-f]+: success/,
        );
        expect(b.size_bytes).toBe(Buffer.from(b.content_base64, "base64").length);
      },
    },
  ),
];
