import { describe, expect, it } from "vitest";
import type { RunningSim } from "../src/index.js";
import { type forge, forgeForEachTest } from "./forge-helpers.js";

// Conformance of the endpoints added for forge-mcp's project tools (rest/labels-milestones.ts,
// releases-wiki.ts, activity.ts, repo-ci.ts, graphql.ts): labels, milestones, releases, wiki, issue
// links, to-dos, events, conflicts, blame, forks, manual jobs, artifacts and the minimal GraphQL
// endpoint. One case per rule; the default dataset throughout.
let sim: RunningSim;
let f: ReturnType<typeof forge>;
forgeForEachTest((client, running) => {
  f = client;
  sim = running;
});

const P = "/projects/1";
const bob = { "private-token": "sim-forge-pat-bob" };
const post = (body: unknown, headers: Record<string, string> = {}) => ({
  method: "POST",
  body: JSON.stringify(body),
  headers,
});
const put = (body: unknown) => ({ method: "PUT", body: JSON.stringify(body) });
const del = { method: "DELETE" };

describe("labels and milestones", () => {
  it.each([
    ["missing color → 400", { name: "x" }, 400],
    ["bad color → 400", { name: "x", color: "#12" }, 400],
    ["created → 201", { name: "x", color: "#00ff00" }, 201],
  ])("POST labels: %s", async (_n, body, status) => {
    expect((await f.api(`${P}/labels`, post(body))).status).toBe(status);
  });

  it("refuses a duplicate label (409); renaming relabels issues; deleting unlabels them", async () => {
    // "bug" exists already: issue 1 names it, and naming a label creates it
    expect((await f.api(`${P}/labels`, post({ name: "bug", color: "#ff0000" }))).status).toBe(409);
    await f.api(`${P}/labels/bug`, put({ color: "#ff0000", description: "Broken" }));
    const listed = (await f.api(`${P}/labels`)).body.find((l: { name: string }) => l.name === "bug");
    expect(listed).toMatchObject({ color: "#ff0000", description: "Broken", open_issues_count: 1 });
    expect((await f.api(`${P}/labels/bug`, put({ new_name: "defect" }))).body.name).toBe("defect");
    expect((await f.api(`${P}/issues/1`)).body.labels).toContain("defect");
    expect((await f.api(`${P}/labels/${listed.id}`, del)).status).toBe(204);
    expect((await f.api(`${P}/issues/1`)).body.labels).not.toContain("defect");
    expect((await f.api(`${P}/labels/defect`)).status).toBe(404);
  });

  it("a guest cannot create labels (403); an update with nothing to change is 400", async () => {
    await f.control("POST", "/seed", {
      users: [{ username: "gus" }],
      personal_access_tokens: [{ token: "pat-gus-guest", user: "gus", scopes: ["api"] }],
    });
    expect(
      (await f.api(`${P}/labels`, post({ name: "x", color: "red" }, { "private-token": "pat-gus-guest" })))
        .status,
    ).toBe(403);
    await f.api(`${P}/labels`, post({ name: "x", color: "red" }));
    expect((await f.api(`${P}/labels/x`, put({}))).status).toBe(400);
  });

  it("milestones: create, filter by state, close, attach to an issue, delete", async () => {
    const m = (await f.api(`${P}/milestones`, post({ title: "1.5", due_date: "2026-06-30" }))).body;
    expect(m).toMatchObject({ iid: 1, state: "active", due_date: "2026-06-30" });
    expect((await f.api(`${P}/milestones`, post({ title: "1.5" }))).status).toBe(400);
    expect((await f.api(`${P}/milestones`, post({ title: "bad", due_date: "June" }))).status).toBe(400);
    expect((await f.api(`${P}/issues/1`, put({ milestone_id: m.id }))).body.milestone.title).toBe("1.5");
    expect((await f.api(`${P}/issues/1`, put({ milestone_id: 999 }))).status).toBe(400);
    await f.api(`${P}/milestones/${m.id}`, put({ state_event: "close" }));
    expect((await f.api(`${P}/milestones?state=active`)).body).toEqual([]);
    expect((await f.api(`${P}/milestones?state=closed`)).body).toHaveLength(1);
    expect((await f.api(`${P}/issues/1`, put({ milestone_id: 0 }))).body.milestone).toBeNull();
    expect((await f.api(`${P}/milestones/${m.id}`, del)).status).toBe(204);
    expect((await f.api(`${P}/milestones/${m.id}`)).status).toBe(404);
  });
});

describe("releases and wiki", () => {
  it("creates a release on an existing tag, or creates the tag from ref; refuses without ref (422)", async () => {
    expect((await f.api(`${P}/releases`, post({ tag_name: "v1.4.0", description: "notes" }))).status).toBe(
      201,
    );
    expect((await f.api(`${P}/releases`, post({ tag_name: "v1.4.0" }))).status).toBe(409);
    expect((await f.api(`${P}/releases`, post({ tag_name: "v2.0.0" }))).status).toBe(422);
    const r = await f.api(`${P}/releases`, post({ tag_name: "v2.0.0", ref: "main", name: "Two" }));
    expect(r.status).toBe(201);
    expect(r.body.commit.id).toBe((await f.api(`${P}/repository/branches/main`)).body.commit.id);
    expect((await f.api(`${P}/repository/tags/v2.0.0`)).status).toBe(200);
    expect(
      (await f.api(`${P}/releases`, post({ tag_name: "v3", ref: "main", milestones: ["nope"] }))).status,
    ).toBe(400);
    expect(
      (await f.api(`${P}/releases?sort=asc&order_by=created_at`)).body.map((x: any) => x.tag_name),
    ).toEqual(["v1.4.0", "v2.0.0"]);
    expect((await f.api(`${P}/releases/v2.0.0`, del)).body.name).toBe("Two");
    expect((await f.api(`${P}/releases/v2.0.0`)).status).toBe(404);
    expect((await f.api(`${P}/releases`, post({ tag_name: "v9", ref: "main" }, bob))).status).toBe(201);
    expect((await f.api(`${P}/releases/v9`, { ...del, headers: bob })).status).toBe(403);
  });

  it("wiki: slug from title, duplicate refused, content only with with_content, rename moves the slug", async () => {
    const w = await f.api(`${P}/wikis`, post({ title: "How we deploy", content: "push" }));
    expect(w.body).toMatchObject({ slug: "How-we-deploy", format: "markdown", content: "push" });
    expect((await f.api(`${P}/wikis`, post({ title: "How we deploy", content: "x" }))).status).toBe(400);
    expect((await f.api(`${P}/wikis`)).body).toEqual([
      { format: "markdown", slug: "How-we-deploy", title: "How we deploy", encoding: "UTF-8" },
    ]);
    expect((await f.api(`${P}/wikis?with_content=1`)).body[0].content).toBe("push");
    expect((await f.api(`${P}/wikis/How-we-deploy`, put({ title: "Deploying" }))).body.slug).toBe(
      "Deploying",
    );
    expect((await f.api(`${P}/wikis/How-we-deploy`)).status).toBe(404);
    expect((await f.api(`${P}/wikis/Deploying`, del)).status).toBe(204);
  });
});

describe("issue links, to-dos and events", () => {
  it("links two issues both ways, refuses self and duplicate links, unlinks", async () => {
    const r = await f.api(
      `${P}/issues/1/links`,
      post({ target_project_id: "acme/widgets", target_issue_iid: 2, link_type: "blocks" }),
    );
    expect(r.status).toBe(201);
    expect(r.body.link_type).toBe("blocks");
    expect(
      (await f.api(`${P}/issues/2/links`, post({ target_project_id: 1, target_issue_iid: 1 }))).status,
    ).toBe(409);
    expect(
      (await f.api(`${P}/issues/1/links`, post({ target_project_id: 1, target_issue_iid: 1 }))).status,
    ).toBe(400);
    expect(
      (await f.api(`${P}/issues/1/links`, post({ target_project_id: "no/such", target_issue_iid: 1 })))
        .status,
    ).toBe(404);
    const back = (await f.api(`${P}/issues/2/links`)).body;
    expect(back).toMatchObject([{ iid: 1, link_type: "is_blocked_by" }]);
    expect((await f.api(`${P}/issues/2/links/${back[0].issue_link_id}`, del)).status).toBe(200);
    expect((await f.api(`${P}/issues/1/links`)).body).toEqual([]);
  });

  it("to-dos come from assignments and review requests; done ones leave the pending list", async () => {
    const bobs = (await f.api("/todos", { headers: bob })).body;
    expect(bobs.map((t: any) => `${t.action_name} ${t.target_type} ${t.target.iid}`)).toContain(
      "review_requested MergeRequest 1",
    );
    const id = bobs[0].id;
    expect((await f.api(`/todos/${id}/mark_as_done`, post({}, bob))).body.state).toBe("done");
    expect((await f.api("/todos", { headers: bob })).body.map((t: any) => t.id)).not.toContain(id);
    expect((await f.api("/todos?state=done", { headers: bob })).body.map((t: any) => t.id)).toEqual([id]);
    expect((await f.api(`/todos/${id}/mark_as_done`, post({}))).status).toBe(404);
    expect((await f.api("/todos", { headers: { "private-token": "" } })).status).toBe(401);
  });

  it("events: yours, a user's (only in projects you can see), a project's, filtered by action", async () => {
    const mine = (await f.api("/events")).body;
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((e: any) => e.author_username === "alice")).toBe(true);
    const comments = (await f.api(`${P}/events?action=commented`)).body;
    expect(comments.length).toBeGreaterThan(0);
    expect(comments.every((e: any) => e.action_name === "commented on" && e.project_id === 1)).toBe(true);
    const asc = (await f.api(`${P}/events?sort=asc`)).body;
    expect(asc[0].created_at <= asc.at(-1).created_at).toBe(true);
    const carolSeenByBob = (await f.api("/users/carol/events", { headers: bob })).body;
    expect(carolSeenByBob.every((e: any) => e.project_id !== 2)).toBe(true);
  });
});

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
          jobs: [{ name: "deploy", stage: "deploy", status: "manual" }],
        },
      ],
    });
    const jobs = (await f.api(`${P}/jobs?scope=manual`)).body;
    const deploy = jobs.find((j: any) => j.name === "deploy");
    expect((await f.api(`${P}/jobs/${deploy.id}/play`, post({}))).body.status).toBe("pending");
    expect((await f.api(`${P}/jobs/${deploy.id}/play`, post({}))).status).toBe(400);
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
});

describe("GraphQL (POST /api/graphql)", () => {
  const gql = (query: string, variables?: unknown, token: string | null = "sim-forge-pat") =>
    fetch(`${sim.origin}/api/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query, variables }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  it.each([
    ["currentUser", "{ currentUser { username } }", { currentUser: { username: "alice" } }],
    [
      "aliases and variables",
      "query($p: ID!) { w: project(fullPath: $p) { fullPath } }",
      { w: { fullPath: "acme/widgets" } },
    ],
    ["metadata", "{ metadata { version } }", { metadata: { version: expect.any(String) } }],
    ["group", '{ group(fullPath: "acme") { name } }', { group: { name: "Acme" } }],
    ["unknown project", '{ project(fullPath: "no/such") { name } }', { project: null }],
    [
      "connection with first",
      '{ project(fullPath: "acme/widgets") { issues(state: opened, first: 1) { count nodes { iid } pageInfo { hasNextPage } } } }',
      { project: { issues: { count: 2, nodes: [{ iid: "2" }], pageInfo: { hasNextPage: true } } } },
    ],
  ])("%s", async (_n, query, data) => {
    const r = await gql(query, { p: "acme/widgets" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data });
  });

  it.each([
    [
      "a mutation it does not have",
      "mutation { createIssue(input: {}) { errors } }",
      /Field 'createIssue' doesn't exist on type 'Mutation'/,
    ],
    ["a subscription", "subscription { issueUpdated { id } }", /no subscriptions/],
    ["unknown field", "{ nope }", /Field 'nope' doesn't exist on type 'Query'/],
    ["scalar without selection", '{ project(fullPath: "acme/widgets") }', /must have a selection/],
    ["named fragments", "{ currentUser { ...F } } fragment F on UserCore { id }", /Only inline fragments/],
    ["missing variable", "query($p: ID!) { project(fullPath: $p) { name } }", /Variable \$p/],
  ])("%s → errors", async (_n, query, message) => {
    const r = await gql(query, {});
    expect(r.status).toBe(200);
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors[0].message).toMatch(message);
  });

  it("anonymous: no current user, public projects only; a bad token is 401", async () => {
    expect(
      (await gql('{ currentUser { id } project(fullPath: "acme/platform/infra") { name } }', {}, null)).body,
    ).toEqual({
      data: { currentUser: null, project: null },
    });
    expect((await gql("{ currentUser { id } }", {}, "nope")).status).toBe(401);
  });
});

describe("seeding and dumping a project's extra records", () => {
  const seed = {
    labels: [{ project: "acme/widgets", name: "triage", color: "#aa0000", description: "New" }],
    milestones: [{ project: "acme/widgets", title: "2.0", due_date: "2026-12-01" }],
    releases: [
      { project: "acme/widgets", tag_name: "v1.4.0", name: "1.4", description: "notes", milestones: ["2.0"] },
    ],
    wiki: [{ project: "acme/widgets", title: "Runbook", content: "restart it" }],
    artifacts: [
      {
        project: "acme/widgets",
        job: "test",
        ref: "feature/layout-cache",
        files: { "junit.xml": "<testsuite/>" },
      },
    ],
  };

  it("serves seeded objects through the API and dumps them in the seed's shape (round trip)", async () => {
    expect((await f.control("POST", "/seed", seed)).status).toBe(200);
    expect((await f.api(`${P}/labels/triage`)).body).toMatchObject({ color: "#aa0000", description: "New" });
    expect((await f.api(`${P}/releases/v1.4.0`)).body.milestones).toMatchObject([{ title: "2.0" }]);
    expect((await f.api(`${P}/wikis/Runbook`)).body.content).toBe("restart it");
    const failed = (await f.api(`${P}/pipelines/2/jobs`)).body.find((j: any) => j.name === "test");
    expect((await f.api(`${P}/jobs/${failed.id}/artifacts/junit.xml`)).body).toBe("<testsuite/>");
    const dump = (await f.control("GET", "/state")).body;
    // the labels issues name (bug, feature, ...) are stored labels too, once read
    expect(dump).toMatchObject({
      ...seed,
      labels: expect.arrayContaining(seed.labels.map((l) => expect.objectContaining(l))),
    });
    expect((await f.control("POST", "/seed", { ...dump, replace: true })).status).toBe(200);
    expect((await f.control("GET", "/state")).body).toMatchObject({
      labels: dump.labels,
      milestones: dump.milestones,
      releases: dump.releases,
      wiki: dump.wiki,
      artifacts: dump.artifacts,
    });
  });

  it.each([
    ["unknown project", { labels: [{ project: "no/such", name: "x" }] }, /does not exist/],
    [
      "release on a missing tag without ref",
      { releases: [{ project: "acme/widgets", tag_name: "v9" }] },
      /no valid ref/,
    ],
    [
      "artifacts of an unknown job",
      { artifacts: [{ project: "acme/widgets", job: "nope", files: {} }] },
      /no job/,
    ],
  ])("refuses %s (400) and changes nothing", async (_n, body, message) => {
    const r = await f.control("POST", "/seed", body);
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toMatch(message);
    expect((await f.control("GET", "/state")).body.labels).toEqual([]);
  });
});
