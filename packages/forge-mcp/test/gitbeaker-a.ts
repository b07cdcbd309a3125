import { expect } from "vitest";
import { type Ctx, done, type Gl, has, type Row, row, W } from "./gitbeaker-rows.js";

/**
 * gitbeaker.test.ts rows for the endpoints of the emoji reaction, CI/CD variable, milestone and CI
 * tools. A row may make other (successful) requests first; its last one is its endpoint.
 */

/** A pipeline on feature/layout-cache whose `child` job triggers another project (a bridge). */
export const BEAKER_A_SEED = {
  pipelines: [
    {
      project: W,
      ref: "feature/layout-cache",
      jobs: [
        { name: "build", stage: "build", status: "success" },
        { name: "child", stage: "deploy", status: "success", trigger: "acme/platform/infra" },
      ],
    },
  ],
};

export const NOT_IN_GITBEAKER_A: Record<string, string> = {
  "POST /api/graphql (ciCatalogResources)": "gitbeaker is a REST client (the CI catalog is GraphQL only)",
  "POST /api/graphql (ciCatalogResource)": "gitbeaker is a REST client (the CI catalog is GraphQL only)",
};

const emojiRows = (kind: "issues" | "merge_requests"): Row[] => {
  const E = kind === "issues" ? "IssueAwardEmojis" : "MergeRequestAwardEmojis";
  const N = kind === "issues" ? "IssueNoteAwardEmojis" : "MergeRequestNoteAwardEmojis";
  const base = `/projects/:id/${kind}/:iid`;
  const note = (gl: Gl) =>
    kind === "issues"
      ? gl.IssueNotes.create(W, 1, "React to me")
      : gl.MergeRequestNotes.create(W, 1, "React to me");
  return [
    row(
      `POST ${base}/award_emoji`,
      (gl) => gl[E].award(W, 1, "thumbsup"),
      (a, c) => {
        expect(a.name).toBe("thumbsup");
        c[`${kind}Award`] = a.id;
      },
    ),
    row(`GET ${base}/award_emoji`, (gl) => gl[E].all(W, 1), has("name", "thumbsup")),
    row(`DELETE ${base}/award_emoji/:award_id`, (gl, c) => gl[E].remove(W, 1, c[`${kind}Award`]), done),
    row(
      `POST ${base}/notes/:note_id/award_emoji`,
      async (gl, c) => {
        c[`${kind}Note`] = (await note(gl)).id;
        return gl[N].award(W, 1, c[`${kind}Note`], "eyes");
      },
      (a, c) => {
        expect(a.awardable_type).toBe("Note");
        c[`${kind}NoteAward`] = a.id;
      },
    ),
    row(
      `GET ${base}/notes/:note_id/award_emoji`,
      (gl, c) => gl[N].all(W, 1, c[`${kind}Note`]),
      has("name", "eyes"),
    ),
    row(
      `DELETE ${base}/notes/:note_id/award_emoji/:award_id`,
      (gl, c) => gl[N].remove(W, 1, c[`${kind}Note`], c[`${kind}NoteAward`]),
      done,
    ),
  ];
};

const variableRows = (owner: "projects" | "groups", id: string): Row[] => {
  const V = owner === "projects" ? "ProjectVariables" : "GroupVariables";
  const base = `/${owner}/:id/variables`;
  return [
    row(
      `POST ${base}`,
      (gl) => gl[V].create(id, "BEAKER", "beaker-value", { masked: true }),
      (v) => expect(v).toMatchObject({ key: "BEAKER", masked: true }),
    ),
    row(`GET ${base}`, (gl) => gl[V].all(id), has("key", "BEAKER")),
    row(
      `GET ${base}/:key`,
      (gl) => gl[V].show(id, "BEAKER"),
      (v) => expect(v.value).toBe("beaker-value"),
    ),
    row(
      `PUT ${base}/:key`,
      (gl) => gl[V].edit(id, "BEAKER", "beaker-value-2"),
      (v) => expect(v.value).toBe("beaker-value-2"),
    ),
    row(`DELETE ${base}/:key`, (gl) => gl[V].remove(id, "BEAKER"), done),
  ];
};

const milestoneItems = (owner: "projects" | "groups"): Row[] => {
  const M = owner === "projects" ? "ProjectMilestones" : "GroupMilestones";
  const id = owner === "projects" ? W : "acme";
  const ms = (c: Ctx) => (owner === "projects" ? c.pm : c.gm);
  const base = `/${owner}/:id/milestones/:milestone_id`;
  return [
    row(`GET ${base}/issues`, (gl, c) => gl[M].allAssignedIssues(id, ms(c)), has("iid", 1)),
    row(`GET ${base}/merge_requests`, (gl, c) => gl[M].allAssignedMergeRequests(id, ms(c)), has("iid", 1)),
    row(
      `GET ${base}/burndown_events`,
      (gl, c) => gl[M].allBurndownChartEvents(id, ms(c)),
      has("action", "created"),
    ),
  ];
};

export const beakerRowsA: Row[] = [
  ...emojiRows("issues"),
  ...emojiRows("merge_requests"),
  ...variableRows("projects", W),
  ...variableRows("groups", "acme"),
  // a project milestone with issue 1 and MR 1, its items, promoted; then group milestones
  row(
    "POST /projects/:id/milestones/:milestone_id/promote",
    async (gl, c) => {
      c.pm = (await gl.ProjectMilestones.create(W, "beaker-ms")).id;
      await gl.Issues.edit(W, 1, { milestoneId: c.pm });
      await gl.MergeRequests.edit(W, 1, { milestoneId: c.pm });
      c.items = await Promise.all([
        gl.ProjectMilestones.allAssignedIssues(W, c.pm),
        gl.ProjectMilestones.allAssignedMergeRequests(W, c.pm),
        gl.ProjectMilestones.allBurndownChartEvents(W, c.pm),
      ]);
      return gl.ProjectMilestones.promote(W, c.pm);
    },
    (m, c) => {
      expect(c.items.map((x: unknown[]) => x.length)).toEqual([1, 1, 1]);
      expect(m.title).toBe("beaker-ms");
      c.gm = m.id;
    },
  ),
  ...milestoneItems("groups"),
  row(
    "GET /groups/:id/milestones",
    (gl) => gl.GroupMilestones.all("acme", { title: "beaker-ms" }),
    has("title", "beaker-ms"),
  ),
  row(
    "GET /groups/:id/milestones/:milestone_id",
    (gl, c) => gl.GroupMilestones.show("acme", c.gm),
    (m) => expect(m.group_id).toBeDefined(),
  ),
  row(
    "POST /groups/:id/milestones",
    (gl) => gl.GroupMilestones.create("acme", "beaker-q1", { dueDate: "2027-03-31" }),
    (m, c) => {
      expect(m.due_date).toBe("2027-03-31");
      c.gm2 = m.id;
    },
  ),
  row(
    "PUT /groups/:id/milestones/:milestone_id",
    (gl, c) => gl.GroupMilestones.edit("acme", c.gm2, { stateEvent: "close" }),
    (m) => expect(m.state).toBe("closed"),
  ),
  row(
    "DELETE /groups/:id/milestones/:milestone_id",
    (gl, c) => gl.GroupMilestones.remove("acme", c.gm2),
    done,
  ),
  // project milestone items: a fresh milestone, as the first one was promoted
  row(
    "GET /projects/:id/milestones/:milestone_id/issues",
    async (gl, c) => {
      c.pm = (await gl.ProjectMilestones.create(W, "beaker-ms-2")).id;
      await gl.Issues.edit(W, 1, { milestoneId: c.pm });
      await gl.MergeRequests.edit(W, 1, { milestoneId: c.pm });
      return gl.ProjectMilestones.allAssignedIssues(W, c.pm);
    },
    has("iid", 1),
  ),
  ...milestoneItems("projects").slice(1),
  // CI: lint, deployments and environments, bridges, the artifacts archive
  row(
    "POST /projects/:id/ci/lint",
    (gl) => gl.Lint.lint(W, "build:\n  script: make\n", { includeJobs: true }),
    (l) => expect(l).toMatchObject({ valid: true, errors: [] }),
  ),
  row(
    "GET /projects/:id/ci/lint",
    (gl) => gl.Lint.check(W, { includeJobs: true }),
    (l) => expect(l.valid).toBe(true),
  ),
  row(
    "GET /projects/:id/deployments",
    async (gl) => {
      await gl.Deployments.create(W, "production", "main", "main", false, { status: "success" } as never);
      return gl.Deployments.all(W, { environment: "production" });
    },
    (d, c) => {
      expect(d[0].environment.name).toBe("production");
      c.deployment = d[0].id;
      c.environment = d[0].environment.id;
    },
  ),
  row(
    "GET /projects/:id/deployments/:deployment_id",
    (gl, c) => gl.Deployments.show(W, c.deployment),
    (d) => expect(d.status).toBe("success"),
  ),
  row("GET /projects/:id/environments", (gl) => gl.Environments.all(W), has("name", "production")),
  row(
    "GET /projects/:id/environments/:environment_id",
    (gl, c) => gl.Environments.show(W, c.environment),
    (e) => expect(e.last_deployment.id).toBeDefined(),
  ),
  row(
    "GET /projects/:id/pipelines/:pipeline_id/bridges",
    async (gl) => {
      const [p] = await gl.Pipelines.all(W, { ref: "feature/layout-cache", perPage: 1, maxPages: 1 });
      return gl.Jobs.allPipelineBridges(W, p!.id);
    },
    has("name", "child"),
  ),
  row(
    "GET /projects/:id/jobs/:job_id/artifacts",
    async (gl) => {
      const jobs = await gl.Jobs.all(W, { scope: "success" as never, perPage: 100, maxPages: 1 });
      return gl.JobArtifacts.downloadArchive(W, { jobId: jobs.find((j) => j.name === "build")!.id });
    },
    async (blob: Blob) => {
      const bytes = Buffer.from(await blob.arrayBuffer());
      expect(bytes.subarray(0, 2).toString()).toBe("PK");
    },
  ),
];
