import { Gitlab } from "@gitbeaker/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, startForge } from "./forge-sim.js";
import { logged } from "./gitbeaker-rows.js";

/**
 * The forge simulator's endpoints of issue 25 that no forge-mcp tool calls yet, driven by a GitLab
 * client written by others (@gitbeaker/rest), one row per endpoint, in order, on the default
 * dataset as alice (docs/sims.md lists them). Each row's requests must all succeed, the last must
 * be that endpoint, and the answer must be what gitbeaker's types promise with the dataset's
 * values. Two endpoints gitbeaker 43 has no method for (a single issue link, the artifacts tree)
 * and one whose method it breaks (GET /job) go through gitbeaker's own requester, so they still
 * carry its URL building and authentication.
 */

type Gl = InstanceType<typeof Gitlab>;
type Ctx = Record<string, any>;
interface Row {
  endpoint: string;
  run: (gl: Gl, c: Ctx) => Promise<unknown>;
  check: (out: any, c: Ctx) => void | Promise<void>;
}

const W = "acme/widgets";
const WE = encodeURIComponent(W);
const row = (endpoint: string, run: Row["run"], check: Row["check"]): Row => ({ endpoint, run, check });
const names = (out: Array<{ username: string }>) => out.map((u) => u.username);
const JOB_TOKEN = "sim-job-token-gitbeaker";
/** gitbeaker answers raw bodies as a Blob or a string, depending on the content type. */
const text = async (raw: unknown) => (typeof raw === "string" ? raw : await (raw as Blob).text());

const rows: Row[] = [
  // issue 1 "Widgets render slowly": bob wrote it, alice is assigned, both commented; MR 1 says "Closes #1"
  row(
    "GET /projects/:id/issues/:iid/participants",
    (gl) => gl.Issues.allParticipants(W, 1),
    (out) => expect(names(out)).toEqual(["bob", "alice"]),
  ),
  row(
    "GET /projects/:id/issues/:iid/time_stats",
    (gl) => gl.Issues.showTimeStats(W, 1),
    (out) =>
      expect(out).toEqual({
        time_estimate: 0,
        total_time_spent: 0,
        human_time_estimate: null,
        human_total_time_spent: null,
      }),
  ),
  row(
    "GET /projects/:id/issues/:iid/related_merge_requests",
    (gl) => gl.Issues.allRelatedMergeRequests(W, 1),
    (out) => expect(out.map((m: { iid: number }) => m.iid)).toEqual([1]),
  ),
  row(
    "GET /projects/:id/issues/:iid/closed_by",
    (gl) => gl.Issues.allClosedByMergeRequestst(W, 1),
    (out) => expect(out.map((m: { title: string }) => m.title)).toEqual(["Cache widget layouts"]),
  ),
  row(
    "GET /projects/:id/issues/:iid/links/:issue_link_id",
    async (gl, c) => (await gl.IssueLinks.requester.get(`projects/${WE}/issues/1/links/${c.link}`)).body,
    (out) =>
      expect([out.source_issue.iid, out.target_issue.iid, out.link_type, typeof out.link_created_at]).toEqual(
        [1, 2, "relates_to", "string"],
      ),
  ),
  // MR 1 "Cache widget layouts": alice wrote it, bob reviews and commented
  row(
    "GET /projects/:id/merge_requests/:iid/participants",
    (gl) => gl.MergeRequests.allParticipants(W, 1),
    (out) => expect(names(out)).toEqual(["alice", "bob"]),
  ),
  row(
    "GET /projects/:id/merge_requests/:iid/closes_issues",
    (gl) => gl.MergeRequests.allIssuesClosed(W, 1),
    (out) =>
      expect(out.map((i: { iid: number; title: string }) => [i.iid, i.title])).toEqual([
        [1, "Widgets render slowly on large dashboards"],
      ]),
  ),
  // the repository
  row(
    "GET /projects/:id/repository/blobs/:sha",
    (gl, c) => gl.Repositories.showBlob(W, c.readme.id),
    (out, c) => {
      expect(out.sha).toBe(c.readme.id);
      expect(Buffer.from(out.content, "base64").toString("utf8")).toBe(c.readmeText);
    },
  ),
  row(
    "GET /projects/:id/repository/blobs/:sha/raw",
    (gl, c) => gl.Repositories.showBlobRaw(W, c.readme.id),
    async (out, c) => expect(await text(out)).toBe(c.readmeText),
  ),
  row(
    "GET /projects/:id/repository/contributors",
    (gl) => gl.Repositories.allContributors(W, { orderBy: "commits", sort: "desc" }),
    (out) => {
      expect(out.length).toBeGreaterThan(0);
      expect(out[0]).toEqual({
        name: expect.any(String),
        email: expect.stringContaining("@"),
        commits: expect.any(Number),
        additions: 0,
        deletions: 0,
      });
      const commits = out.map((x: { commits: number }) => x.commits);
      expect(commits).toEqual([...commits].sort((a, b) => b - a));
    },
  ),
  row(
    "GET /projects/:id/repository/commits/:sha/refs",
    (gl, c) => gl.Commits.allReferences(W, c.mainSha),
    (out) =>
      expect(out).toEqual(
        expect.arrayContaining([
          { type: "branch", name: "main" },
          { type: "branch", name: "feature/layout-cache" },
          { type: "tag", name: "v1.4.0" },
        ]),
      ),
  ),
  row(
    "GET /projects/:id/repository/commits/:sha/merge_requests",
    (gl, c) => gl.Commits.allMergeRequests(W, c.layoutSha),
    (out) => expect(out.map((m: { iid: number }) => m.iid)).toEqual([1]),
  ),
  row(
    "GET /projects/:id/languages",
    (gl) => gl.Projects.showLanguages(W),
    (out) => expect(out).toEqual({ TypeScript: 100 }),
  ),
  // groups, namespaces, members
  row(
    "GET /groups/:id/descendant_groups",
    (gl) => gl.Groups.allDescendantGroups("acme", {}),
    (out) => expect(out.map((g: { full_path: string }) => g.full_path)).toEqual(["acme/platform"]),
  ),
  row(
    "GET /namespaces/:id/exists",
    (gl) => gl.Namespaces.exists("acme"),
    (out) => expect(out.exists).toBe(true),
  ),
  row(
    "GET /projects/:id/members/all",
    (gl) => gl.ProjectMembers.all(W, { includeInherited: true }),
    (out) =>
      expect(
        out.map((m: { username: string; access_level: number }) => [m.username, m.access_level]),
      ).toEqual([
        ["alice", 50],
        ["bob", 30],
      ]),
  ),
  row(
    "POST /projects/:id/members",
    (gl, c) => gl.ProjectMembers.add(W, 20, { userId: c.carol }),
    (out) => expect([out.username, out.access_level]).toEqual(["carol", 20]),
  ),
  row(
    "GET /projects/:id/members",
    (gl) => gl.ProjectMembers.all(W),
    (out) => expect(names(out)).toEqual(["carol"]),
  ),
  row(
    "GET /projects/:id/members/:user_id",
    (gl, c) => gl.ProjectMembers.show(W, c.carol),
    (out) => expect([out.username, out.access_level]).toEqual(["carol", 20]),
  ),
  row(
    "GET /projects/:id/members/all/:user_id",
    (gl, c) => gl.ProjectMembers.show(W, c.bob, { includeInherited: true }),
    (out) => expect([out.username, out.access_level]).toEqual(["bob", 30]),
  ),
  // CI
  row(
    "GET /projects/:id/jobs/:job_id/artifacts/tree",
    async (gl, c) =>
      (
        await gl.Jobs.requester.get(`projects/${WE}/jobs/${c.buildJob}/artifacts/tree`, {
          searchParams: { recursive: true },
        })
      ).body,
    (out) =>
      expect(out).toEqual([
        { name: "build", path: "build", type: "directory", size: null, mode: "040755" },
        {
          name: "summary.txt",
          path: "build/summary.txt",
          type: "file",
          size: expect.any(Number),
          mode: "100644",
        },
      ]),
  ),
  row(
    "GET /projects/:id/protected_branches",
    (gl) => gl.ProtectedBranches.all(W),
    (out) => expect(out.map((b: { name: string }) => b.name)).toEqual(["main"]),
  ),
  row(
    "GET /job (JOB-TOKEN)",
    // gitbeaker 43's Jobs.showConnectedJob looks for the job token among its plain headers, not
    // its auth headers, and throws before sending; its requester sends the token as JOB-TOKEN
    async (_gl, c) => (await c.jobClient.Jobs.requester.get("job")).body,
    (out, c) => expect([out.id, out.status, out.user.username]).toEqual([c.runningJob, "running", "alice"]),
  ),
];

/** `GET /projects/:id/members/:user_id` → a pattern for the request log's paths. */
function pattern(endpoint: string): RegExp {
  const [method, path] = endpoint.split(" (")[0]!.split(" ") as [string, string];
  const p = path
    .split("/")
    .map((seg) => (seg.startsWith(":") ? "[^/]+" : seg))
    .join("/");
  return new RegExp(`^${method} /api/v4${p}(\\?.*)?$`);
}

describe("@gitbeaker/rest drives the forge simulator's other documented endpoints", () => {
  let forge: Forge;
  let gl: Gl;
  const c: Ctx = {};

  beforeAll(async () => {
    forge = await startForge();
    await forge.seed({
      pipelines: [
        {
          project: W,
          ref: "main",
          jobs: [{ name: "release", stage: "deploy", status: "running", token: JOB_TOKEN }],
        },
      ],
    });
    gl = new Gitlab({ host: forge.origin, token: "sim-forge-pat" });
    c.jobClient = new Gitlab({ host: forge.origin, jobToken: JOB_TOKEN });
    const tree = await gl.Repositories.allRepositoryTrees(W);
    c.readme = tree.find((e) => e.path === "README.md");
    c.readmeText = await text(await gl.RepositoryFiles.showRaw(W, "README.md", "main"));
    c.mainSha = (await gl.Branches.show(W, "main")).commit.id;
    c.layoutSha = (await gl.Branches.show(W, "feature/layout-cache")).commit.id;
    const jobs = await gl.Jobs.all(W);
    c.buildJob = jobs.find((j) => j.name === "build" && j.status === "success")!.id;
    c.runningJob = jobs.find((j) => j.name === "release")!.id;
    c.carol = (await gl.Users.all({ username: "carol" }))[0]!.id;
    c.bob = (await gl.Users.all({ username: "bob" }))[0]!.id;
    c.link = (await gl.IssueLinks.create(W, 1, W, 2)) && (await gl.IssueLinks.all(W, 1))[0]!.issue_link_id;
  });
  afterAll(async () => {
    await forge?.close();
  });

  it.each(rows.map((r, i) => [i + 1, r.endpoint, r] as const))("%i %s", async (_n, _endpoint, r) => {
    const { out, log } = await logged(forge.origin, () => r.run(gl, c));
    expect(`${log.at(-1)!.method} ${log.at(-1)!.path}`).toMatch(pattern(r.endpoint));
    expect(
      log.every((e) => e.status < 300),
      JSON.stringify(log),
    ).toBe(true);
    await r.check(out, c);
  });
});
