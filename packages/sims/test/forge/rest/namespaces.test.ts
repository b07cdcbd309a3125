import { describe, expect, it } from "vitest";
import { freshForge } from "../helpers.js";

// rest/namespaces.ts over HTTP on the default dataset.
const { f } = freshForge();

describe("namespaces and project creation", () => {
  it("lists the caller's namespaces and finds one by path", async () => {
    const mine = (await f.api("/namespaces")).body.map((n: any) => `${n.kind}:${n.full_path}`);
    expect(mine).toEqual(["user:alice", "group:acme", "group:acme/platform"]);
    expect((await f.api("/namespaces?search=plat")).body.map((n: any) => n.full_path)).toEqual([
      "acme/platform",
    ]);
    expect((await f.api("/namespaces/acme")).body).toMatchObject({ kind: "group", full_path: "acme" });
    expect((await f.api("/namespaces/labs")).body).toEqual({ message: "404 Namespace Not Found" });
  });

  it("creates a project in a group with a README, and refuses a taken path", async () => {
    const acme = (await f.api("/namespaces/acme")).body;
    const body = JSON.stringify({ name: "New Thing", namespace_id: acme.id, initialize_with_readme: true });
    const created = await f.api("/projects", { method: "POST", body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      path_with_namespace: "acme/new-thing",
      visibility: "private",
      default_branch: "main",
      empty_repo: false,
    });
    const readme = await f.api(`/projects/${created.body.id}/repository/files/README.md/raw`);
    expect(readme.body).toContain("# New Thing");
    const again = await f.api("/projects", { method: "POST", body });
    expect(again.status).toBe(400);
    expect(again.body.message.path).toEqual(["has already been taken"]);
  });

  it("creates an empty personal project, and refuses a group the caller cannot write to", async () => {
    const dave = { "private-token": "sim-forge-pat-dave" };
    const mine = await f.api("/projects", {
      method: "POST",
      headers: dave,
      body: JSON.stringify({ path: "scratch" }),
    });
    expect(mine.body).toMatchObject({
      path_with_namespace: "dave/scratch",
      empty_repo: true,
      default_branch: null,
    });
    const theirs = await f.api("/projects", {
      method: "POST",
      headers: dave,
      body: JSON.stringify({ path: "x", namespace_id: "acme" }),
    });
    expect(theirs.status).toBe(403);
    const none = await f.api("/projects", { method: "POST", body: "{}" });
    expect(none.body).toEqual({ error: "name, path are missing, at least one parameter must be provided" });
  });
});
