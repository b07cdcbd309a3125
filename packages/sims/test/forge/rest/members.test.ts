import { describe, expect, it } from "vitest";
import { freshForge } from "../helpers.js";

// rest/members.ts and rest/labels.ts over HTTP on the default dataset.
const { f } = freshForge();

describe("project members and labels", () => {
  it("lists direct members, and inherited ones under /members/all", async () => {
    expect((await f.api("/projects/1/members")).body).toEqual([]);
    const all = (await f.api("/projects/1/members/all")).body;
    expect(all.map((m: any) => [m.username, m.access_level])).toEqual([
      ["alice", 50],
      ["bob", 30],
    ]);
  });

  it("lists the labels used by issues and merge requests with their counts", async () => {
    const labels = (await f.api("/projects/1/labels")).body;
    expect(labels.map((l: any) => l.name)).toEqual(["bug", "documentation", "feature", "performance"]);
    expect(labels[0]).toMatchObject({ name: "bug", open_issues_count: 1, closed_issues_count: 1 });
    expect(labels[0].color).toMatch(/^#[0-9a-f]{6}$/);
  });
});
