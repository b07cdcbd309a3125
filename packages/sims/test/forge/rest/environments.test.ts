import { describe, expect, it } from "vitest";
import { freshForge, send } from "../helpers.js";

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
