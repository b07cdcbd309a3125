import { describe, expect, it } from "vitest";
import { BOB, type forge, forgeForEachTest, send } from "../helpers.js";

// rest/project-settings.ts over HTTP on the default dataset: protected branches, commit statuses,
// marking every to-do done, and namespace paths. alice owns acme/widgets; bob is a Developer there.
let f: ReturnType<typeof forge>;
forgeForEachTest((client) => {
  f = client;
});

const P = "/projects/1";
const bob = BOB;

describe("protected branches", () => {
  it.each([
    ["a maintainer protects a wildcard → 201", { name: "release/*" }, {}, 201],
    ["the default branch again → 409", { name: "main" }, {}, 409],
    ["a developer → 403", { name: "x" }, bob, 403],
    ["no name → 400", {}, {}, 400],
    ["an unknown access level → 400", { name: "x", push_access_level: 35 }, {}, 400],
  ])("%s", async (_n, b, headers, status) => {
    expect((await f.api(`${P}/protected_branches`, send("POST", b, headers))).status).toBe(status);
  });

  it("the default branch is protected until unprotected", async () => {
    expect((await f.api(`${P}/protected_branches/main`)).body.merge_access_levels[0].access_level).toBe(40);
    expect((await f.api(`${P}/protected_branches/main`, send("DELETE"))).status).toBe(204);
    expect((await f.api(`${P}/protected_branches`)).body).toEqual([]);
  });
});

describe("commit statuses", () => {
  it("a status of the same name moves to its new state; an unknown commit is 404; a bad state 400", async () => {
    await f.api(`${P}/statuses/main`, send("POST", { state: "pending", name: "ci" }, bob));
    await f.api(`${P}/statuses/main`, send("POST", { state: "success", name: "ci" }, bob));
    const rows = (await f.api(`${P}/repository/commits/main/statuses`)).body;
    expect(rows.map((r: { name: string; status: string }) => [r.name, r.status])).toEqual([
      ["ci", "success"],
    ]);
    expect((await f.api(`${P}/statuses/0000000`, send("POST", { state: "success" }))).status).toBe(404);
    expect((await f.api(`${P}/statuses/main`, send("POST", { state: "green" }))).status).toBe(400);
  });
});

describe("to-dos and namespaces", () => {
  it("mark_as_done empties the pending list", async () => {
    expect((await f.api("/todos")).body.length).toBeGreaterThan(0);
    expect((await f.api("/todos/mark_as_done", send("POST"))).status).toBe(204);
    expect((await f.api("/todos")).body).toEqual([]);
  });

  it.each([
    ["a group path", "acme", "", { exists: true, suggests: ["acme1"] }],
    ["a username", "bob", "", { exists: true, suggests: ["bob1"] }],
    ["a free path", "zeta", "", { exists: false, suggests: [] }],
    ["a subgroup under its parent", "platform", "?parent_id=acme", { exists: true, suggests: ["platform1"] }],
    ["a top-level path under another parent", "labs", "?parent_id=acme", { exists: false, suggests: [] }],
  ])("exists: %s", async (_n, path, q, body) => {
    expect((await f.api(`/namespaces/${path}/exists${q}`)).body).toEqual(body);
  });
});

describe("PUT /projects/:id", () => {
  it.each([
    ["a maintainer changes the default branch → 200", { default_branch: "fix/readme-typo" }, {}, 200],
    ["a branch that does not exist → 400", { default_branch: "nope" }, {}, 400],
    ["an unknown visibility → 400", { visibility: "secret" }, {}, 400],
    ["a developer → 403", { description: "x" }, bob, 403],
  ])("%s", async (_n, b, headers, status) => {
    const res = await f.api(P, send("PUT", b, headers));
    expect(res.status).toBe(status);
    if (status === 200) expect((await f.api(P)).body.default_branch).toBe("fix/readme-typo");
  });
});
