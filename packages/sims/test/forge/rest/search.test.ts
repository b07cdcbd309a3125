import { describe, expect, it } from "vitest";
import { freshForge } from "../helpers.js";

// rest/search.ts over HTTP on the default dataset.
const { f } = freshForge();

describe("search", () => {
  it.each([
    ["projects", "widg", (r: any) => r.path_with_namespace, ["acme/widgets"]],
    ["issues", "dark", (r: any) => r.title, ["Add a dark theme"]],
    ["merge_requests", "typo", (r: any) => r.title, ["Fix typo in README"]],
    ["blobs", "innerHTML", (r: any) => r.path, ["docs/guide.md", "src/widget.ts"]],
  ])("GET /search?scope=%s", async (scope, term, pick, expected) => {
    const res = await f.api(`/search?scope=${scope}&search=${term}`);
    expect(res.status).toBe(200);
    expect(res.body.map(pick)).toEqual(expected);
  });

  it("searches blobs of one project at a ref", async () => {
    const hits = (await f.api("/projects/1/search?scope=blobs&search=cache.set&ref=feature%2Flayout-cache"))
      .body;
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ path: "src/widget.ts", ref: "feature/layout-cache", project_id: 1 });
    expect(hits[0].data).toContain("cache.set(key, html)");
  });

  it.each([
    ["/search?search=x", "scope is missing"],
    ["/search?scope=projects", "search is missing"],
    ["/search?scope=nope&search=x", "scope does not have a valid value"],
  ])("answers 400 for %s", async (path, error) => {
    const res = await f.api(path);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error });
  });
});
