import { describe, expect, it } from "vitest";
import { BOB, freshForge, send } from "../helpers.js";

// rest/relations.ts, repositories.ts, commits.ts, projects.ts (languages) and members.ts over HTTP
// on the default dataset: the refusals and filters of the endpoints that @gitbeaker/rest drives in
// forge-mcp's gitbeaker-sim.test.ts. alice owns acme/widgets (id 1); bob is a Developer there through acme.
const { f } = freshForge();

const P = "/projects/1";

describe("issue and merge request relations", () => {
  it.each([
    ["an unknown issue's participants", `${P}/issues/99/participants`, 404],
    ["an unknown MR's closes_issues", `${P}/merge_requests/99/closes_issues`, 404],
    ["an issue no MR closes", `${P}/issues/2/closed_by`, 200, []],
    ["an issue no MR mentions", `${P}/issues/3/related_merge_requests`, 200, []],
    ["an MR that closes nothing", `${P}/merge_requests/2/closes_issues`, 200, []],
    ["an unknown issue link", `${P}/issues/1/links/12345`, 404, { message: "404 Not found" }],
  ])("%s → %i", async (_n, path, status, body?: unknown) => {
    const r = await f.api(path);
    expect(r.status).toBe(status);
    if (body !== undefined) expect(r.body).toEqual(body);
  });

  it("a closing phrase names several issues; a closed MR closes none", async () => {
    await f.api(`${P}/merge_requests/2`, send("PUT", { description: "Fixes #2, #3 and resolves #1" }));
    const iids = (await f.api(`${P}/merge_requests/2/closes_issues`)).body.map((i: { iid: number }) => i.iid);
    expect(iids).toEqual([2, 3, 1]);
    expect((await f.api(`${P}/issues/2/closed_by`)).body.map((m: { iid: number }) => m.iid)).toEqual([2]);
    await f.api(`${P}/merge_requests/2`, send("PUT", { state_event: "close" }));
    expect((await f.api(`${P}/issues/2/closed_by`)).body).toEqual([]);
  });
});

describe("repository insights", () => {
  it.each([
    ["an unknown blob", `${P}/repository/blobs/${"0".repeat(40)}`, 404, { message: "404 Blob Not Found" }],
    [
      "refs of an unknown commit",
      `${P}/repository/commits/${"0".repeat(40)}/refs`,
      404,
      { message: "404 Commit Not Found" },
    ],
    [
      "refs of main's head, tags only",
      `${P}/repository/commits/main/refs?type=tag`,
      200,
      [{ type: "tag", name: "v1.4.0" }],
    ],
    ["refs with an unknown type", `${P}/repository/commits/main/refs?type=x`, 400],
    ["languages of a Terraform project", "/projects/2/languages", 200, { HCL: 100 }],
    ["languages of a dotfiles project", "/projects/3/languages", 200, { Shell: 100 }],
  ])("%s → %i", async (_n, path, status, body?: unknown) => {
    const r = await f.api(path);
    expect(r.status).toBe(status);
    if (body !== undefined) expect(r.body).toEqual(body);
  });

  it("the artifacts tree: one level, a sub-directory, an unknown directory, a job without artifacts", async () => {
    const jobs = (await f.api(`${P}/jobs`)).body as Array<{ id: number; name: string; status: string }>;
    const build = jobs.find((j) => j.name === "build" && j.status === "success")!;
    const tree = (q: string) => f.api(`${P}/jobs/${build.id}/artifacts/tree${q}`);
    expect((await tree("")).body.map((e: { path: string }) => e.path)).toEqual(["build"]);
    expect((await tree("?path=build")).body.map((e: { path: string }) => e.path)).toEqual([
      "build/summary.txt",
    ]);
    expect((await tree("?path=nope")).status).toBe(404);
    expect((await f.api(`${P}/jobs/999999/artifacts/tree`)).status).toBe(404);
  });
});

describe("project members", () => {
  it.each([
    ["a developer may not add members", { user_id: 3, access_level: 30 }, BOB, 403],
    ["no access_level", { user_id: 3 }, {}, 400],
    ["an access level GitLab does not have", { user_id: 3, access_level: 35 }, {}, 400],
    ["an unknown user", { user_id: 999, access_level: 30 }, {}, 404],
    ["by username", { username: "carol", access_level: 10 }, {}, 201],
  ])("POST members: %s → %i", async (_n, b, headers, status) => {
    expect((await f.api(`${P}/members`, send("POST", b, headers))).status).toBe(status);
  });

  it("adding a member twice is 409; a direct member is not an inherited one and the reverse", async () => {
    expect((await f.api(`${P}/members`, send("POST", { username: "carol", access_level: 20 }))).status).toBe(
      201,
    );
    const again = await f.api(`${P}/members`, send("POST", { username: "carol", access_level: 30 }));
    expect([again.status, again.body]).toEqual([409, { message: "Member already exists" }]);
    const bob = (await f.api("/users?username=bob")).body[0].id;
    expect((await f.api(`${P}/members/${bob}`)).status).toBe(404);
    expect((await f.api(`${P}/members/all/${bob}`)).body.access_level).toBe(30);
    expect(
      (await f.api(`${P}/members/all?query=car`)).body.map((m: { username: string }) => m.username),
    ).toEqual(["carol"]);
  });

  it("a personal project's owner is its direct member; descendant groups of a leaf are none", async () => {
    expect((await f.api("/projects/3/members")).body.map((m: { username: string }) => m.username)).toEqual([
      "bob",
    ]);
    expect((await f.api("/groups/acme%2Fplatform/descendant_groups")).body).toEqual([]);
  });
});
