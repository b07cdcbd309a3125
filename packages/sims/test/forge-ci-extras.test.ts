import { describe, expect, it } from "vitest";
import { BOB, type forge, forgeForEachTest, send } from "./forge-helpers.js";

// Award emoji, CI/CD variables, group milestones and milestone items, CI lint, environments,
// deployments, bridges and artifact archives, over HTTP on the default dataset: alice owns
// acme/widgets (project 1) and the acme group; bob is a Developer in both.
let f: ReturnType<typeof forge>;
forgeForEachTest((client) => {
  f = client;
});

const P = "/projects/1";
const bob = BOB;

describe("award emoji", () => {
  it.each([
    ["on an issue", `${P}/issues/1/award_emoji`, "Issue"],
    ["on a merge request", `${P}/merge_requests/1/award_emoji`, "MergeRequest"],
  ])("%s: award, list, one per user and name, only the awarder removes it", async (_n, path, type) => {
    const made = await f.api(path, send("POST", { name: "thumbsup" }));
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: "thumbsup", awardable_type: type, user: { username: "alice" } });
    expect((await f.api(path, send("POST", { name: "thumbsup" }))).status).toBe(400);
    expect((await f.api(path, send("POST", { name: "thumbsup" }, bob))).status).toBe(201);
    expect((await f.api(path, send("POST", { name: "Not An Emoji" }))).status).toBe(400);
    expect((await f.api(path)).body.map((a: { name: string }) => a.name)).toEqual(["thumbsup", "thumbsup"]);
    // two thumbsup are two upvotes of the issue or merge request
    expect((await f.api(path.replace(/\/award_emoji$/, ""))).body).toMatchObject({
      upvotes: 2,
      downvotes: 0,
    });
    expect((await f.api(`${path}/${made.body.id}`, send("DELETE", undefined, bob))).status).toBe(403);
    expect((await f.api(`${path}/${made.body.id}`, send("DELETE"))).status).toBe(204);
    expect((await f.api(`${path}/${made.body.id}`)).status).toBe(404);
  });

  it("on a note: the note must belong to the issue", async () => {
    const note = (await f.api(`${P}/issues/1/notes`, send("POST", { body: "hi" }))).body;
    const made = await f.api(`${P}/issues/1/notes/${note.id}/award_emoji`, send("POST", { name: "eyes" }));
    expect(made.body).toMatchObject({ awardable_type: "Note", awardable_id: note.id });
    expect((await f.api(`${P}/issues/2/notes/${note.id}/award_emoji`)).status).toBe(404);
  });
});

describe("CI/CD variables", () => {
  it.each([
    ["project", P, bob],
    ["group", "/groups/acme", bob],
  ])(
    "%s: a key once per scope, filter picks one, 409 without it; developers refused",
    async (_n, base, dev) => {
      const v = `${base}/variables`;
      expect((await f.api(v, send("POST", { key: "TOKEN", value: "one-value" }))).status).toBe(201);
      expect((await f.api(v, send("POST", { key: "TOKEN", value: "two" }))).status).toBe(400);
      const prod = { key: "TOKEN", value: "prod-value", environment_scope: "production" };
      expect((await f.api(v, send("POST", prod))).status).toBe(201);
      expect((await f.api(`${v}/TOKEN`)).status).toBe(409);
      const one = await f.api(`${v}/TOKEN?filter[environment_scope]=production`);
      expect(one.body).toMatchObject({ key: "TOKEN", value: "prod-value", environment_scope: "production" });
      expect((await f.api(v, send("POST", { key: "bad-key", value: "x" }))).status).toBe(400);
      expect((await f.api(v, send("POST", { key: "SHORT", value: "abc", masked: true }))).status).toBe(400);
      const hidden = await f.api(
        v,
        send("POST", { key: "HIDDEN", value: "hidden-value", masked_and_hidden: true }),
      );
      expect(hidden.body).toMatchObject({ value: null, hidden: true, masked: true });
      expect((await f.api(v, send("GET", undefined, dev))).status).toBe(403);
      const put = `${v}/TOKEN?filter[environment_scope]=*`;
      expect((await f.api(put, send("PUT", { protected: true }))).status).toBe(400);
      expect((await f.api(put, send("PUT", { value: "one-value-2", protected: true }))).body).toMatchObject({
        value: "one-value-2",
        protected: true,
      });
      expect((await f.api(`${v}/TOKEN?filter[environment_scope]=*`, send("DELETE"))).status).toBe(204);
      expect((await f.api(`${v}/TOKEN`)).body.environment_scope).toBe("production");
    },
  );
});

describe("group milestones and milestone items", () => {
  it("a promoted milestone keeps its issues and merge requests, now the group's", async () => {
    const ms = (await f.api(`${P}/milestones`, send("POST", { title: "v9" }))).body;
    await f.api(`${P}/issues/1`, send("PUT", { milestone_id: ms.id }));
    expect(
      (await f.api(`${P}/merge_requests/1`, send("PUT", { milestone_id: ms.id }))).body.milestone.title,
    ).toBe("v9");
    expect((await f.api(`${P}/milestones/${ms.id}/issues`)).body.map((i: { iid: number }) => i.iid)).toEqual([
      1,
    ]);
    expect((await f.api(`${P}/milestones/${ms.id}/burndown_events`)).body[0]).toMatchObject({
      action: "created",
    });
    const g = await f.api(`${P}/milestones/${ms.id}/promote`, send("POST"));
    expect(g.status).toBe(200);
    expect(g.body).toMatchObject({ title: "v9", group_id: expect.any(Number) });
    expect((await f.api(`${P}/milestones/${ms.id}`)).status).toBe(404);
    const gm = `/groups/acme/milestones/${g.body.id}`;
    expect((await f.api(`${gm}/issues`)).body.map((i: { iid: number }) => i.iid)).toEqual([1]);
    expect((await f.api(`${gm}/merge_requests`)).body.map((m: { iid: number }) => m.iid)).toEqual([1]);
    expect((await f.api(`${P}/issues/1`)).body.milestone).toMatchObject({
      id: g.body.id,
      group_id: g.body.group_id,
    });
    // the group's milestone is usable by its projects; deleting it takes it off them
    expect((await f.api(`${P}/issues/2`, send("PUT", { milestone_id: g.body.id }))).status).toBe(200);
    expect((await f.api(gm, send("DELETE"))).status).toBe(204);
    expect((await f.api(`${P}/issues/1`)).body.milestone).toBeNull();
  });

  it.each([
    ["a duplicate title → 400", { title: "Q1" }, {}, 400],
    ["no title → 400", {}, {}, 400],
    ["a bad date → 400", { title: "Q2", due_date: "31/03/2027" }, {}, 400],
    ["a developer → 201 (Reporter and up)", { title: "Q3" }, bob, 201],
  ])("POST /groups/:id/milestones: %s", async (_n, b, headers, status) => {
    await f.api("/groups/acme/milestones", send("POST", { title: "Q1" }));
    expect((await f.api("/groups/acme/milestones", send("POST", b, headers))).status).toBe(status);
  });

  it("a project outside a group cannot promote", async () => {
    const ms = (await f.api("/projects/bob%2Fdotfiles/milestones", send("POST", { title: "m" }, bob))).body;
    const r = await f.api(
      `/projects/bob%2Fdotfiles/milestones/${ms.id}/promote`,
      send("POST", undefined, bob),
    );
    expect(r.status).toBe(400);
  });
});

describe("CI lint", () => {
  it.each([
    ["a valid job", "build:\n  script: make\n", true, []],
    ["no job", "stages: [build]\n", false, ["jobs config should contain at least one visible job"]],
    [
      "a job without script",
      "build:\n  stage: build\n",
      false,
      ["jobs:build config should implement the script:, run:, or trigger: keyword"],
    ],
    [
      "an unknown stage",
      "stages: [build]\nx:\n  stage: deploy\n  script: a\n",
      false,
      ["x job: chosen stage deploy does not exist; available stages are build"],
    ],
    ["not YAML", "build: [\n", false, [expect.stringMatching(/^Invalid configuration format/)]],
  ])("%s", async (_n, content, valid, errors) => {
    const r = await f.api(`${P}/ci/lint`, send("POST", { content }));
    expect(r.body).toMatchObject({ valid, errors });
    expect(r.body.merged_yaml === null).toBe(!valid);
  });

  it("the project's own .gitlab-ci.yml, with its jobs", async () => {
    const r = await f.api(`${P}/ci/lint?include_jobs=true`);
    expect(r.body.valid).toBe(true);
    expect(r.body.jobs.map((j: { name: string }) => j.name)).toEqual(["build", "test", "lint"]);
  });
});

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

describe("the CI/CD catalog (GraphQL)", () => {
  const gql = async (query: string, variables: Record<string, unknown> = {}) =>
    (
      await f.api(
        "/../graphql",
        send("POST", { query, variables }, { authorization: "Bearer sim-forge-pat", "private-token": "" }),
      )
    ).body;
  const component = (name: string) => ({
    [`templates/${name}.yml`]: `spec:\n  inputs:\n    stage:\n      default: test\n---\n${name}:\n  script: x\n`,
  });

  it("lists component projects once released, pages them, and reads versions, components and inputs", async () => {
    await f.control("POST", "/seed", {
      projects: ["alpha", "beta", "draft"].map((path) => ({
        namespace: "acme",
        path,
        name: path,
        visibility: "public",
        creator: "alice",
        files: component(`${path}-job`),
      })),
      releases: ["alpha", "beta"].map((p) => ({ project: `acme/${p}`, tag_name: "v2.0.1", ref: "main" })),
    });
    const list = `query($first: Int, $after: String) { ciCatalogResources(first: $first, after: $after, sort: NAME_ASC) { nodes { name fullPath } pageInfo { hasNextPage endCursor } } }`;
    const one = await gql(list, { first: 1 });
    // draft has components but no release: not published
    expect(one.data.ciCatalogResources.nodes).toEqual([{ name: "alpha", fullPath: "acme/alpha" }]);
    expect(one.data.ciCatalogResources.pageInfo.hasNextPage).toBe(true);
    const two = await gql(list, { first: 5, after: one.data.ciCatalogResources.pageInfo.endCursor });
    expect(two.data.ciCatalogResources.nodes).toEqual([{ name: "beta", fullPath: "acme/beta" }]);
    const got = await gql(
      `query($p: ID) { ciCatalogResource(fullPath: $p) { id versions(first: 1) { nodes { name semver { major minor patch } components(first: 5) { nodes { name includePath inputs { name required default } } } } } } }`,
      { p: "acme/beta" },
    );
    const r = got.data.ciCatalogResource;
    expect(r.id).toMatch(/^gid:\/\/gitlab\/Ci::Catalog::Resource\/\d+$/);
    expect(r.versions.nodes[0]).toMatchObject({
      name: "v2.0.1",
      semver: { major: 2, minor: 0, patch: 1 },
      components: {
        nodes: [{ name: "beta-job", inputs: [{ name: "stage", required: false, default: "test" }] }],
      },
    });
    expect(r.versions.nodes[0].components.nodes[0].includePath).toMatch(/\/acme\/beta\/beta-job@2\.0\.1$/);
    const byId = await gql(`query($id: CiCatalogResourceID) { ciCatalogResource(id: $id) { fullPath } }`, {
      id: r.id,
    });
    expect(byId.data.ciCatalogResource.fullPath).toBe("acme/beta");
    expect(
      (await gql(`{ ciCatalogResource(fullPath: "acme/draft") { id } }`)).data.ciCatalogResource,
    ).toBeNull();
  });
});
