import { describe, expect, it } from "vitest";
import { BOB, freshForge, send } from "../helpers.js";

// rest/protected-branches.ts over HTTP on the default dataset: alice owns acme/widgets; bob is a Developer
// there.
const { f } = freshForge();

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
