import { expect } from "vitest";
import { done, has, type Row, row, W } from "./gitbeaker-rows.js";

/**
 * gitbeaker.test.ts rows for the endpoints of gitlab-mcp 2.1.64's jobs and pipelines tools
 * (variables, unit test reports, erase, delete), webhook writes, one merge request thread and a
 * group's merge requests. A row may make other (successful) requests first; its last one is its
 * endpoint.
 */

/** A pipeline on main run with a variable (its id fixed: other rows run pipelines on main too). */
const PIPELINE = 900;
export const BEAKER_D_SEED = {
  pipelines: [
    {
      id: PIPELINE,
      project: W,
      ref: "main",
      variables: [{ key: "DEPLOY_TARGET", value: "staging" }],
      jobs: [
        { name: "unit", stage: "test", status: "failed" },
        { name: "package", stage: "build", status: "success" },
      ],
    },
  ],
};

export const NOT_IN_GITBEAKER_D: Record<string, string> = {
  "PUT /projects/:id/pipelines/:pipeline_id/metadata": "gitbeaker 43 has no method for a pipeline's metadata",
  "POST /orbit/query": "gitbeaker 43 has no Orbit (knowledge graph) resource",
  "GET /orbit/schema": "gitbeaker 43 has no Orbit (knowledge graph) resource",
  "GET /orbit/status": "gitbeaker 43 has no Orbit (knowledge graph) resource",
  "GET /orbit/tools": "gitbeaker 43 has no Orbit (knowledge graph) resource",
};

export const beakerRowsD: Row[] = [
  row(
    "GET /projects/:id/pipelines/:pipeline_id/variables",
    (gl) => gl.Pipelines.allVariables(W, PIPELINE),
    has("key", "DEPLOY_TARGET"),
  ),
  row(
    "GET /projects/:id/pipelines/:pipeline_id/test_report",
    (gl) => gl.Pipelines.showTestReport(W, PIPELINE),
    (t) => {
      expect(t).toMatchObject({ total_count: 3, failed_count: 1 });
      expect(t.test_suites[0].test_cases[2]).toMatchObject({ status: "failed", name: "unit handles errors" });
    },
  ),
  row(
    "GET /projects/:id/pipelines/:pipeline_id/test_report_summary",
    (gl) => gl.Pipelines.showTestReportSummary(W, PIPELINE),
    (s) => expect(s.total).toMatchObject({ count: 3, failed: 1 }),
  ),
  row(
    "POST /projects/:id/jobs/:job_id/erase",
    async (gl) => {
      const jobs = await gl.Jobs.all(W, { pipelineId: PIPELINE });
      return gl.Jobs.erase(W, jobs.find((j) => j.name === "package")!.id);
    },
    (j) => expect(j.erased_at).toEqual(expect.any(String)),
  ),
  row("DELETE /projects/:id/pipelines/:pipeline_id", (gl) => gl.Pipelines.remove(W, PIPELINE), done),
  row(
    "POST /projects/:id/hooks (/groups/:id/hooks)",
    (gl) =>
      gl.ProjectHooks.add(W, "https://beaker.example/hook", { token: "beaker-secret", issuesEvents: true }),
    (h, c) => {
      expect(h).toMatchObject({ url: "https://beaker.example/hook", issues_events: true });
      expect(JSON.stringify(h)).not.toContain("beaker-secret");
      c.dHook = h.id;
    },
  ),
  row(
    "PUT /projects/:id/hooks/:hook_id (/groups/:id/…)",
    (gl, c) => gl.ProjectHooks.edit(W, c.dHook, "https://beaker.example/hook2", { pushEvents: false }),
    (h) =>
      expect(h).toMatchObject({
        url: "https://beaker.example/hook2",
        push_events: false,
        issues_events: true,
      }),
  ),
  row(
    "DELETE /projects/:id/hooks/:hook_id (/groups/:id/…)",
    (gl, c) => gl.ProjectHooks.remove(W, c.dHook),
    done,
  ),
  row(
    "GET /projects/:id/merge_requests/:iid/discussions/:discussion_id",
    async (gl) => {
      const [thread] = await gl.MergeRequestDiscussions.all(W, 1);
      return gl.MergeRequestDiscussions.show(W, 1, thread!.id);
    },
    (d) => expect(d.notes[0].body).toMatch(/bounded/),
  ),
  row(
    "GET /groups/:id/merge_requests",
    (gl) => gl.MergeRequests.all({ groupId: "acme" }),
    has("source_branch", "feature/layout-cache"),
  ),
];
