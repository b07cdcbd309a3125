import { describe, expect, it } from "vitest";
import { type forge, forgeForEachTest, send } from "../helpers.js";

// CI/CD job tokens (rest/auth.ts): a seeded running job in the private acme/platform/infra (id 2),
// triggered by alice, carries JOB_TOKEN. The token reaches only GitLab's job-token endpoints, only
// its own project, and only while the job runs; elsewhere the request is anonymous.
let f: ReturnType<typeof forge>;
let jobId: number;
forgeForEachTest((client) => {
  f = client;
});

const JOB_TOKEN = "sim-job-token-infra";
const job = { "job-token": JOB_TOKEN };

/** A request with exactly the given credentials (forge(sim).api adds alice's token when none is set). */
async function call(path: string, method = "GET", body?: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(`${f.url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: r.status, body: (await r.json()) as any };
}

async function seedRunningJob(): Promise<number> {
  const r = await f.control("POST", "/seed", {
    pipelines: [
      {
        project: "acme/platform/infra",
        ref: "main",
        jobs: [{ name: "release", stage: "deploy", status: "running", token: JOB_TOKEN }],
      },
    ],
  });
  expect(r.status).toBe(200);
  const jobs = (await f.api("/projects/2/jobs?scope=running")).body as Array<{ id: number; name: string }>;
  return jobs.find((j) => j.name === "release")!.id;
}

describe("CI/CD job tokens", () => {
  it.each([
    ["GET /job names the token's job and its user", "GET", "/job", undefined, job, 200],
    ["the job_token parameter works as the header", "GET", `/job?job_token=${JOB_TOKEN}`, undefined, {}, 200],
    ["releases of its own project", "GET", "/projects/2/releases", undefined, job, 200],
    [
      "a release written with the job token",
      "POST",
      "/projects/2/releases",
      { tag_name: "v0.1.0", ref: "main" },
      job,
      201,
    ],
    [
      "an artifact of its own project's job (none yet: 404)",
      "GET",
      "/projects/2/jobs/{job}/artifacts/out.txt",
      undefined,
      job,
      404,
    ],
    ["releases of another project: not on its allowlist", "GET", "/projects/1/releases", undefined, job, 403],
    ["GET /user is not a job-token endpoint: anonymous, 401", "GET", "/user", undefined, job, 401],
    [
      "its project outside the job-token endpoints: anonymous, the private project is hidden",
      "GET",
      "/projects/2",
      undefined,
      job,
      404,
    ],
    ["issues of its project: anonymous as well", "GET", "/projects/2/issues", undefined, job, 404],
    ["an unknown job token on a job-token endpoint", "GET", "/job", undefined, { "job-token": "nope" }, 401],
    [
      "GET /job with a personal access token",
      "GET",
      "/job",
      undefined,
      { "private-token": "sim-forge-pat" },
      401,
    ],
    [
      "a personal access token wins over a job token sent with it",
      "GET",
      "/user",
      undefined,
      { ...job, "private-token": "sim-forge-pat" },
      200,
    ],
  ])("%s → %i", async (_name, method, path, body, headers, status) => {
    jobId = await seedRunningJob();
    const r = await call(path.replace("{job}", String(jobId)), method, body, headers);
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    if (status === 200 && path.startsWith("/job"))
      expect(r.body).toMatchObject({ id: jobId, status: "running", user: { username: "alice" } });
    if (status === 403)
      expect(r.body).toEqual({
        message: "Authentication by CI/CD job token not allowed from acme/platform/infra to acme/widgets.",
      });
    if (status === 401) expect(r.body).toEqual({ message: "401 Unauthorized" });
  });

  it("the token dies when its job finishes", async () => {
    jobId = await seedRunningJob();
    expect((await call("/job", "GET", undefined, job)).status).toBe(200);
    expect((await f.api(`/projects/2/jobs/${jobId}/cancel`, send("POST"))).status).toBe(201);
    for (const path of ["/job", "/projects/2/releases"]) {
      const r = await call(path, "GET", undefined, job);
      expect(r.status, path).toBe(401);
      expect(r.body).toEqual({ message: "401 Unauthorized" });
    }
  });
});
