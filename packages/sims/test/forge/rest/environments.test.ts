import { describe, expect, it } from "vitest";
import { BOB, del, freshForge, post, put, send } from "../helpers.js";

// rest/environments.ts, deployments.ts, jobs.ts (bridges) and job-artifacts.ts over HTTP on the
// default dataset: alice owns acme/widgets (project 1) and the acme group; bob is a Developer in
// both.
const { f } = freshForge();

const P = "/projects/1";

describe("environments, deployments, bridges, artifact archives", () => {
  it("a deployment creates its environment, which shows it as the last one", async () => {
    const d = await f.api(
      `${P}/deployments`,
      send("POST", { environment: "staging", sha: "main", ref: "main", tag: false, status: "success" }),
    );
    expect(d.status).toBe(201);
    const envs = (await f.api(`${P}/environments?name=staging`)).body;
    expect(envs).toHaveLength(1);
    const env = (await f.api(`${P}/environments/${envs[0].id}`)).body;
    expect(env.last_deployment).toMatchObject({ id: d.body.id, status: "success" });
    expect((await f.api(`${P}/deployments?environment=staging&status=failed`)).body).toEqual([]);
    expect((await f.api(`${P}/deployments?order_by=nope`)).status).toBe(400);
  });

  it("a trigger job is a bridge, not a job; the archive is a zip of the job's files", async () => {
    await f.control("POST", "/seed", {
      pipelines: [
        {
          project: "acme/widgets",
          jobs: [
            { name: "build", stage: "build", status: "success" },
            { name: "child", stage: "deploy", status: "success", trigger: "acme/platform/infra" },
          ],
        },
      ],
    });
    const pl = (await f.api(`${P}/pipelines?per_page=1`)).body[0];
    const jobs = (await f.api(`${P}/pipelines/${pl.id}/jobs`)).body.map((j: { name: string }) => j.name);
    expect(jobs).toEqual(["build"]);
    const bridges = (await f.api(`${P}/pipelines/${pl.id}/bridges`)).body;
    expect(bridges.map((j: { name: string }) => j.name)).toEqual(["child"]);
    const build = (await f.api(`${P}/pipelines/${pl.id}/jobs`)).body[0];
    // the bytes are checked unpacked by forge-mcp's download_job_artifacts row
    const zip = await f.api(`${P}/jobs/${build.id}/artifacts`);
    expect(zip.status).toBe(200);
    expect(zip.headers.get("content-type")).toBe("application/zip");
    expect(zip.headers.get("content-disposition")).toBe('attachment; filename="artifacts.zip"');
    // a job that kept nothing (failed, no seeded files) has no archive
    await f.control("POST", "/seed", {
      pipelines: [{ project: "acme/widgets", jobs: [{ name: "broken", stage: "build", status: "failed" }] }],
    });
    const failed = (await f.api(`${P}/jobs?scope=failed`)).body.find(
      (j: { name: string }) => j.name === "broken",
    );
    expect((await f.api(`${P}/jobs/${failed.id}/artifacts`)).status).toBe(404);
  });
});

const OLD = "2020-01-01T00:00:00.000Z";
const DAY = 86_400_000;

describe("changing environments and deployments", () => {
  it("edits, stops and deletes environments; stale ones and old review apps in bulk", async () => {
    const E = `${P}/environments`;
    // made now, then aged 400 days on the simulated clock; live is changed after that
    const made: Record<string, number> = {};
    for (const name of ["old-prod", "review/a", "live"])
      made[name] = (await f.api(E, post({ name }))).body.id;
    await f.api(`${E}/${made["review/a"]}/stop`, post({}));
    await f.advance(400 * 86_400);
    const [old, review, live] = [made["old-prod"], made["review/a"], made.live];
    expect(
      (await f.api(`${E}/${live}`, put({ tier: "production", external_url: "https://x.test" }))).body,
    ).toMatchObject({ tier: "production", external_url: "https://x.test" });
    expect((await f.api(`${E}/${live}`, put({ tier: "moon" }))).status).toBe(400);
    // an available environment is not deleted
    expect((await f.api(`${E}/${live}`, del)).status).toBe(403);
    // stale: last changed before `before`, which is at least a week ago
    const before = new Date(Date.now() + DAY).toISOString();
    const tooRecent = new Date(Date.now() + 399 * DAY).toISOString();
    expect((await f.api(`${E}/stop_stale`, post({ before: tooRecent }))).status).toBe(400);
    expect((await f.api(`${E}/stop_stale`, post({ before }, BOB))).status).toBe(403);
    expect((await f.api(`${E}/stop_stale`, post({ before }))).status).toBe(200);
    expect((await f.api(`${E}/${old}`)).body.state).toBe("stopped");
    expect((await f.api(`${E}/${live}`)).body.state).toBe("available");
    // review apps: a dry run lists, a real one schedules the deletion a week out
    const dry = await f.api(`${E}/review_apps`, del);
    expect(dry.body).toEqual({
      scheduled_entries: [{ id: review, name: "review/a", slug: "review-a", external_url: null }],
      unprocessable_entries: [],
    });
    expect((await f.api(`${E}/${review}`)).body.auto_delete_at).toBeUndefined();
    await f.api(`${E}/review_apps?dry_run=false`, del);
    const deleteAt = Date.parse((await f.api(`${E}/${review}`)).body.auto_delete_at);
    expect(deleteAt).toBeGreaterThan(Date.now() + 406 * DAY);
    expect((await f.api(`${E}/${live}/stop`, post({}))).body.state).toBe("stopped");
    expect((await f.api(`${E}/${live}`, del)).status).toBe(204);
    expect((await f.api(`${E}/${live}`)).body).toEqual({ message: "404 Environment Not Found" });
  });

  it("updates only API-made deployments, keeps running and current ones, approves blocked ones", async () => {
    const make = async (status: string) =>
      (
        await f.api(
          `${P}/deployments`,
          post({ environment: "qa", sha: "main", ref: "main", tag: false, status }),
        )
      ).body.id as number;
    const first = await make("running");
    expect((await f.api(`${P}/deployments/${first}`, { ...del })).body).toEqual({
      message: "Cannot destroy running deployment",
    });
    expect((await f.api(`${P}/deployments/${first}`, put({ status: "success" }))).body.status).toBe(
      "success",
    );
    expect((await f.api(`${P}/deployments/${first}`, put({ status: "blocked" }))).status).toBe(400);
    expect((await f.api(`${P}/deployments/${first}`, del)).body).toEqual({
      message: "Deployment currently deployed to environment",
    });
    await make("success");
    expect((await f.api(`${P}/deployments/${first}`, { ...del, headers: BOB })).status).toBe(403);
    expect((await f.api(`${P}/deployments/${first}`, del)).status).toBe(204);
    // approvals: only of a blocked deployment, never of one's own
    const guarded = (await f.api(`${P}/environments`, post({ name: "guarded" }))).body.id;
    const job = (await f.api(`${P}/jobs`)).body[0].id;
    const row = { iid: 9, project_id: 1, environment_id: guarded, ref: "main", sha: "abc", user_id: 1 };
    const times = { created_at: OLD, updated_at: OLD, finished_at: null };
    await f.control("POST", "/seed", {
      deployments: [
        { id: 905, ...row, ...times, status: "blocked", job_id: null },
        { id: 906, ...row, ...times, status: "success", job_id: job },
      ],
    });
    // a deployment a CI job made is the job's to change
    expect((await f.api(`${P}/deployments/906`, put({ status: "failed" }))).body).toEqual({
      message: "Deployments created using GitLab CI can not be updated using the API",
    });
    const approve = (body: unknown, headers = {}) =>
      f.api(`${P}/deployments/905/approval`, post(body, headers));
    expect((await approve({ status: "approved" })).body).toEqual({
      message: "You cannot approve your own deployment.",
    });
    const rejected = await approve({ status: "rejected", comment: "not today" }, BOB);
    expect(rejected.status).toBe(201);
    expect(rejected.body).toMatchObject({
      status: "rejected",
      comment: "not today",
      user: { username: "bob" },
    });
    const d = (await f.api(`${P}/deployments/905`)).body;
    expect(d.status).toBe("canceled");
    expect(d.approvals).toEqual([expect.objectContaining({ status: "rejected" })]);
    expect((await approve({ status: "approved" }, BOB)).body).toEqual({
      message: "This deployment is not waiting for approvals.",
    });
  });

  it("lists the merge requests merged into the deployed ref before the deployment", async () => {
    const merged = await f.api(`${P}/merge_requests/2/merge`, send("PUT", {}));
    expect(merged.status).toBe(200);
    const d = (
      await f.api(
        `${P}/deployments`,
        post({ environment: "qa", sha: "main", ref: "main", tag: false, status: "success" }),
      )
    ).body;
    const mrs = (await f.api(`${P}/deployments/${d.id}/merge_requests`)).body;
    expect(mrs.map((m: { iid: number }) => m.iid)).toEqual([2]);
    const other = (
      await f.api(
        `${P}/deployments`,
        post({ environment: "qa", sha: "main", ref: "stable", tag: false, status: "success" }),
      )
    ).body;
    expect((await f.api(`${P}/deployments/${other.id}/merge_requests`)).body).toEqual([]);
  });
});
