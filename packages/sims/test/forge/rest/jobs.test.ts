import { describe, expect, it } from "vitest";
import { freshForge, post } from "../helpers.js";

// rest/jobs.ts (play) and job-artifacts.ts, with merge-requests.ts (conflicts), files.ts (blame)
// and projects.ts (forks), over HTTP on the default dataset.
const { f } = freshForge();

const P = "/projects/1";
const bob = { "private-token": "sim-forge-pat-bob" };

describe("conflicts, blame, forks, manual jobs, artifacts", () => {
  it("reports a file changed differently on both sides as a conflict", async () => {
    await f.api(`${P}/repository/branches`, post({ branch: "b", ref: "main" }));
    const commit = (branch: string, content: string) =>
      f.api(
        `${P}/repository/commits`,
        post({
          branch,
          commit_message: "edit",
          actions: [{ action: "update", file_path: "docs/guide.md", content }],
        }),
      );
    await commit("b", "branch side\n");
    await commit("main", "main side\n");
    const mr = (
      await f.api(`${P}/merge_requests`, post({ source_branch: "b", target_branch: "main", title: "c" }))
    ).body;
    const c = (await f.api(`${P}/merge_requests/${mr.iid}/conflicts`)).body;
    expect(c.files).toMatchObject([
      {
        new_path: "docs/guide.md",
        conflict_type: "both_modified",
        ours: "main side\n",
        theirs: "branch side\n",
      },
    ]);
    expect((await f.api(`${P}/merge_requests/1/conflicts`)).body.files).toEqual([]);
  });

  it("blames lines to the commit that introduced them, with a line range", async () => {
    await f.api(
      `${P}/repository/commits`,
      post({
        branch: "main",
        commit_message: "More",
        actions: [{ action: "update", file_path: "docs/guide.md", content: "# Guide\n\nNew line\n" }],
      }),
    );
    const all = (await f.api(`${P}/repository/files/docs%2Fguide.md/blame?ref=main`)).body;
    expect(all.map((r: any) => [r.commit.message.split("\n")[0], r.lines])).toEqual([
      [expect.any(String), ["# Guide", ""]],
      ["More", ["New line"]],
    ]);
    const ranged = (
      await f.api(`${P}/repository/files/docs%2Fguide.md/blame?ref=main&range[start]=3&range[end]=3`)
    ).body;
    expect(ranged).toHaveLength(1);
    expect(ranged[0].lines).toEqual(["New line"]);
    expect((await f.api(`${P}/repository/files/docs%2Fguide.md/blame`)).status).toBe(400);
    expect((await f.api(`${P}/repository/files/nope.md/blame?ref=main`)).status).toBe(404);
  });

  it("forks into the caller's namespace with the whole repository; a second fork to the same path is 409", async () => {
    const r = await f.api(`${P}/fork`, post({}, bob));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ path_with_namespace: "bob/widgets", forked_from_project: { id: 1 } });
    expect((await f.api(`/projects/bob%2Fwidgets/repository/tags/v1.4.0`)).status).toBe(200);
    expect((await f.api(`${P}/fork`, post({}, bob))).status).toBe(409);
    expect((await f.api(`${P}/fork`, post({ namespace_path: "nowhere" }, bob))).status).toBe(404);
  });

  it("plays a manual job (it then runs on the clock); other jobs are unplayable (400)", async () => {
    await f.control("POST", "/seed", {
      pipelines: [
        {
          project: "acme/widgets",
          ref: "main",
          jobs: [
            { name: "deploy", stage: "deploy", status: "manual" },
            { name: "smoke", stage: "deploy", status: "manual", seconds: 5 },
          ],
        },
      ],
    });
    const jobs = (await f.api(`${P}/jobs?scope=manual`)).body;
    const deploy = jobs.find((j: any) => j.name === "deploy");
    expect((await f.api(`${P}/jobs/${deploy.id}/play`, post({}))).body.status).toBe("pending");
    expect((await f.api(`${P}/jobs/${deploy.id}/play`, post({}))).status).toBe(400);
    // a job seeded with `seconds` runs that long once played (queued 1 s first)
    const smoke = jobs.find((j: any) => j.name === "smoke");
    await f.api(`${P}/jobs/${smoke.id}/play`, post({}));
    await f.advance(5);
    expect((await f.api(`${P}/jobs/${smoke.id}`)).body.status).toBe("running");
    expect((await f.api(`${P}/jobs/${deploy.id}`)).body.status).toBe("running");
    await f.advance(2);
    expect((await f.api(`${P}/jobs/${smoke.id}`)).body).toMatchObject({ status: "success", duration: 5 });
    await f.advance(60);
    expect((await f.api(`${P}/jobs/${deploy.id}`)).body.status).toBe("success");
  });

  it("lists a successful job's artifacts and serves one file; unknown paths and failed jobs are 404", async () => {
    const jobs = (await f.api(`${P}/pipelines/1/jobs`)).body;
    const build = jobs.find((j: any) => j.name === "build");
    expect(build.artifacts.map((a: any) => a.file_type)).toEqual(["archive", "trace"]);
    const file = await f.api(`${P}/jobs/${build.id}/artifacts/build/summary.txt`);
    expect(file.status).toBe(200);
    expect(String(file.body)).toMatch(/success/);
    expect((await f.api(`${P}/jobs/${build.id}/artifacts/nope.txt`)).status).toBe(404);
    const failed = (await f.api(`${P}/pipelines/2/jobs`)).body.find((j: any) => j.status === "failed");
    expect(failed.artifacts.map((a: any) => a.file_type)).toEqual(["trace"]);
  });

  // the log by byte range, as GitLab's trace answers a Range: 206 with Content-Range, or 416
  it.each([
    ["no range: the whole log", undefined, 200, null, /^Running with gitlab-runner/],
    ["the first 7 bytes", "bytes=0-6", 206, /^bytes 0-6\/\d+$/, /^Running$/],
    ["from byte 8 on", "bytes=8-", 206, /^bytes 8-\d+\/\d+$/, /^with gitlab-runner[\s\S]*Job succeeded\n$/],
    ["the last 14 bytes", "bytes=-14", 206, /^bytes \d+-\d+\/\d+$/, /^Job succeeded\n$/],
    ["past the end", "bytes=100000-", 416, /^bytes \*\/\d+$/, /Range Not Satisfiable/],
  ])("trace: %s", async (_n, range, status, contentRange, body) => {
    const r = await f.api(`${P}/jobs/1/trace`, range ? { headers: { range } } : {});
    expect(r.status).toBe(status);
    expect(r.headers.get("accept-ranges")).toBe("bytes");
    if (contentRange) expect(r.headers.get("content-range")).toMatch(contentRange);
    else expect(r.headers.get("content-range")).toBeNull();
    expect(typeof r.body === "string" ? r.body : r.body.message).toMatch(body);
  });

  it("erases a finished job's log and artifacts (the job stays), once; a running job is not erasable", async () => {
    const build = (await f.api(`${P}/jobs?scope=success`)).body.find((j: any) => j.name === "build");
    expect((await f.api(`${P}/jobs/${build.id}/trace`)).body).not.toBe("");
    const erased = await f.api(`${P}/jobs/${build.id}/erase`, { method: "POST" });
    expect(erased.status).toBe(201);
    expect(erased.body).toMatchObject({ id: build.id, status: "success", erased_at: expect.any(String) });
    expect(erased.body).not.toHaveProperty("artifacts_file");
    expect((await f.api(`${P}/jobs/${build.id}/trace`)).body).toBe("");
    expect((await f.api(`${P}/jobs/${build.id}/artifacts`)).status).toBe(404);
    const again = await f.api(`${P}/jobs/${build.id}/erase`, { method: "POST" });
    expect(again.status).toBe(403);
    expect(again.body).toEqual({ message: "403 Forbidden - Job is not erasable!" });
    const running = (await f.api(`${P}/pipeline`, post({ ref: "main" }))).body;
    const job = (await f.api(`${P}/pipelines/${running.id}/jobs`)).body[0];
    expect((await f.api(`${P}/jobs/${job.id}/erase`, { method: "POST" })).status).toBe(403);
  });
});
