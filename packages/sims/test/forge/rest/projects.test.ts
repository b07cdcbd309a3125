import { describe, expect, it } from "vitest";
import { BOB, freshForge, send } from "../helpers.js";

// rest/projects.ts over HTTP on the default dataset.
const { f } = freshForge();

const P = "/projects/1";
const bob = BOB;
const as = (token: string) => ({ headers: { "private-token": token } });

describe("projects", () => {
  it.each([
    ["numeric id", "/projects/1"],
    ["URL-encoded path", "/projects/acme%2Fwidgets"],
    ["URL-encoded nested path", "/projects/acme%2Fplatform%2Finfra"],
  ])("GET by %s", async (_n, path) => {
    const res = await f.api(path);
    expect(res.status).toBe(200);
    expect(res.body.path_with_namespace).toMatch(/^acme\//);
    expect(res.body.namespace.full_path).toBe(res.body.path_with_namespace.split("/").slice(0, -1).join("/"));
  });

  it.each([
    ["unknown id", "/projects/9999", "sim-forge-pat"],
    ["unknown path", "/projects/acme%2Fnope", "sim-forge-pat"],
    ["private project of a non-member", "/projects/acme%2Fplatform%2Finfra", "sim-forge-pat-dave"],
  ])("answers 404 Project Not Found for an %s", async (_n, path, token) => {
    const res = await f.api(path, as(token));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: "404 Project Not Found" });
  });

  it("lists with search, membership and simple views", async () => {
    expect((await f.api("/projects?search=widg")).body.map((p: any) => p.path)).toEqual(["widgets"]);
    const mine = (await f.api("/projects?membership=true", as("sim-forge-pat-carol"))).body;
    expect(mine.map((p: any) => p.path_with_namespace)).toEqual(["acme/platform/infra"]);
    const simple = (await f.api("/projects?simple=true&per_page=1")).body[0];
    expect(simple).not.toHaveProperty("permissions");
    expect(simple).toHaveProperty("path_with_namespace");
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
