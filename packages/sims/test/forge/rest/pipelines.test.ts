import { describe, expect, it } from "vitest";
import { freshForge, post } from "../helpers.js";

// rest/pipelines.ts and rest/jobs.ts over HTTP on the default dataset.
const { f } = freshForge();

describe("pipelines and jobs", () => {
  it("lists and gets the seeded pipelines with their jobs and traces", async () => {
    const list = (await f.api("/projects/1/pipelines")).body;
    expect(list.map((p: any) => [p.ref, p.status])).toEqual([
      ["feature/layout-cache", "failed"],
      ["main", "success"],
    ]);
    const failed = (await f.api(`/projects/1/pipelines/${list[0].id}`)).body;
    expect(failed).toMatchObject({ status: "failed", user: { username: "alice" } });
    const jobs = (await f.api(`/projects/1/pipelines/${list[0].id}/jobs?scope[]=failed`)).body;
    expect(jobs.map((j: any) => j.name)).toEqual(["test"]);
    const trace = await f.api(`/projects/1/jobs/${jobs[0].id}/trace`);
    expect(trace.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(trace.body).toContain("ERROR: Job failed: exit code 1");
  });

  it("runs a created pipeline on the simulated clock: pending → running → success", async () => {
    const created = await f.api("/projects/1/pipeline", post({ ref: "main" }));
    expect(created.status).toBe(201);
    expect(created.body.status).toBe("pending");
    const id = created.body.id;
    await f.advance(2);
    expect((await f.api(`/projects/1/pipelines/${id}`)).body.status).toBe("running");
    const build = (await f.api(`/projects/1/pipelines/${id}/jobs`)).body.find((j: any) => j.name === "build");
    expect(build.status).toBe("running");
    expect((await f.api(`/projects/1/jobs/${build.id}/trace`)).body).toContain("$ make build");
    await f.advance(120);
    const done = (await f.api(`/projects/1/pipelines/${id}`)).body;
    expect(done.status).toBe("success");
    expect(done.duration).toBe(75);
  });

  it("fails the job named by SIM_FAIL_JOB, skips later stages, then retries and cancels", async () => {
    const created = await f.api(
      "/projects/1/pipeline",
      post({ ref: "main", variables: [{ key: "SIM_FAIL_JOB", value: "build" }] }),
    );
    const id = created.body.id;
    await f.advance(60);
    const jobs = (await f.api(`/projects/1/pipelines/${id}/jobs`)).body;
    expect(Object.fromEntries(jobs.map((j: any) => [j.name, j.status]))).toEqual({
      build: "failed",
      test: "skipped",
      lint: "skipped",
    });
    expect((await f.api(`/projects/1/pipelines/${id}`)).body.status).toBe("failed");
    const retried = await f.api(`/projects/1/pipelines/${id}/retry`, { method: "POST" });
    expect(retried.status).toBe(201);
    expect(retried.body.status).toBe("pending");
    const again = (await f.api(`/projects/1/pipelines/${id}/jobs`)).body;
    expect(Object.fromEntries(again.map((j: any) => [j.name, j.status]))).toEqual({
      build: "pending",
      test: "created",
      lint: "created",
    });
    const canceled = await f.api(`/projects/1/pipelines/${id}/cancel`, { method: "POST" });
    expect(canceled.body.status).toBe("canceled");
    const all = (await f.api(`/projects/1/pipelines/${id}/jobs?include_retried=true`)).body;
    expect(all).toHaveLength(6);
  });

  it("answers 404 'Not found' for an unknown pipeline, job or merge request", async () => {
    for (const path of [
      "/projects/1/pipelines/999",
      "/projects/1/jobs/999",
      "/projects/1/merge_requests/99",
    ]) {
      const res = await f.api(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: "404 Not found" });
    }
  });

  it("answers 400 for an unknown ref and 400 without a ref", async () => {
    const bad = await f.api("/projects/1/pipeline", post({ ref: "nope" }));
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: { base: ["Reference not found"] } });
    expect((await f.api("/projects/1/pipeline", post({}))).body).toEqual({ error: "ref is missing" });
  });

  it("lists project jobs and gets one", async () => {
    const jobs = (await f.api("/projects/1/jobs?per_page=2")).body;
    expect(jobs).toHaveLength(2);
    const one = (await f.api(`/projects/1/jobs/${jobs[0].id}`)).body;
    expect(one).toMatchObject({ id: jobs[0].id, pipeline: { project_id: 1 } });
  });

  it("names a pipeline through its metadata (developer), and refuses a missing name", async () => {
    const renamed = await f.api("/projects/1/pipelines/1/metadata", {
      ...post({ name: "Nightly" }),
      method: "PUT",
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: 1, name: "Nightly" });
    expect((await f.api("/projects/1/pipelines")).body.find((p: any) => p.id === 1).name).toBe("Nightly");
    const none = await f.api("/projects/1/pipelines/1/metadata", { ...post({}), method: "PUT" });
    expect(none.body).toEqual({ error: "name is missing" });
    const carol = await f.api("/projects/1/pipelines/1/metadata", {
      ...post({ name: "x" }),
      method: "PUT",
      token: "sim-forge-pat-carol",
    });
    expect(carol.status).toBe(403);
  });

  it("answers a unit test report per test-stage job, a failed job's last case failing, and its summary", async () => {
    const [failed] = (await f.api("/projects/1/pipelines?ref=feature/layout-cache")).body;
    const report = (await f.api(`/projects/1/pipelines/${failed.id}/test_report`)).body;
    expect(report).toMatchObject({ total_count: 6, success_count: 5, failed_count: 1, skipped_count: 0 });
    expect(report.test_suites.map((s: any) => [s.name, s.failed_count])).toEqual([
      ["test", 1],
      ["lint", 0],
    ]);
    const bad = report.test_suites
      .flatMap((s: any) => s.test_cases)
      .filter((c: any) => c.status === "failed");
    expect(bad).toMatchObject([
      { name: "test handles errors", system_output: expect.stringMatching(/failure/) },
    ]);
    const summary = (await f.api(`/projects/1/pipelines/${failed.id}/test_report_summary`)).body;
    expect(summary.total).toEqual({
      time: 3,
      count: 6,
      success: 5,
      failed: 1,
      skipped: 0,
      error: 0,
      suite_error: null,
    });
    expect(summary.test_suites[0]).not.toHaveProperty("test_cases");
    expect(summary.test_suites[0]).toMatchObject({
      name: "test",
      failed_count: 1,
      build_ids: [expect.any(Number)],
    });
    // a pipeline still running has no finished test job yet: an empty report
    const fresh = (await f.api("/projects/1/pipeline", post({ ref: "main" }))).body;
    expect((await f.api(`/projects/1/pipelines/${fresh.id}/test_report`)).body).toMatchObject({
      total_count: 0,
      test_suites: [],
    });
  });
});
