import { describe, expect, it } from "vitest";
import { freshForge, post, put } from "../helpers.js";

// rest/repositories.ts, files.ts, branches.ts and commits.ts over HTTP on the default dataset.
const { f } = freshForge();

describe("repository", () => {
  it("lists the tree at the root, in a folder and recursively", async () => {
    const root = (await f.api("/projects/1/repository/tree")).body;
    expect(root.map((e: any) => `${e.type}:${e.path}`)).toEqual([
      "tree:docs",
      "tree:src",
      "blob:.gitlab-ci.yml",
      "blob:README.md",
      "blob:package.json",
    ]);
    const src = (await f.api("/projects/1/repository/tree?path=src&ref=feature%2Flayout-cache")).body;
    expect(src.map((e: any) => e.name)).toEqual(["cache.test.ts", "index.ts", "widget.ts"]);
    expect((await f.api("/projects/1/repository/tree?recursive=true")).body).toHaveLength(8);
    expect((await f.api("/projects/1/repository/tree?path=nope")).status).toBe(404);
  });

  it("gets a file as base64 with its metadata, and raw", async () => {
    const file = (await f.api("/projects/1/repository/files/src%2Fwidget.ts?ref=main")).body;
    const raw = (await f.api("/projects/1/repository/files/src%2Fwidget.ts/raw?ref=main")).body;
    expect(file).toMatchObject({
      file_name: "widget.ts",
      file_path: "src/widget.ts",
      encoding: "base64",
      ref: "main",
    });
    expect(Buffer.from(file.content, "base64").toString("utf8")).toBe(raw);
    expect(file.blob_id).toMatch(/^[0-9a-f]{40}$/);
    expect((await f.api("/projects/1/repository/files/src%2Fwidget.ts")).body).toEqual({
      error: "ref is missing",
    });
    expect((await f.api("/projects/1/repository/files/nope.md?ref=main")).body).toEqual({
      message: "404 File Not Found",
    });
  });

  it("creates and updates files with commits on a branch", async () => {
    const created = await f.api(
      "/projects/1/repository/files/docs%2Fnew.md",
      post({ branch: "main", content: "hello", commit_message: "Add doc" }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ file_path: "docs/new.md", branch: "main" });
    const again = await f.api(
      "/projects/1/repository/files/docs%2Fnew.md",
      post({ branch: "main", content: "x", commit_message: "again" }),
    );
    expect(again.body).toEqual({ message: "A file with this name already exists" });
    const updated = await f.api(
      "/projects/1/repository/files/docs%2Fnew.md",
      put({
        branch: "main",
        content: Buffer.from("bye").toString("base64"),
        encoding: "base64",
        commit_message: "Edit",
      }),
    );
    expect(updated.status).toBe(200);
    expect((await f.api("/projects/1/repository/files/docs%2Fnew.md/raw")).body).toBe("bye");
    expect((await f.api("/projects/1/repository/commits?per_page=1")).body[0].title).toBe("Edit");
  });

  it("refuses writes below Developer access", async () => {
    const res = await f.api(
      "/projects/1/repository/files/x.md",
      post({ branch: "main", content: "x", commit_message: "x", headers: undefined }),
    );
    expect(res.status).toBe(201);
    const outsider = await f.api("/projects/1/repository/files/y.md", {
      ...post({ branch: "main", content: "y", commit_message: "y" }),
      headers: { "private-token": "sim-forge-pat-dave" },
    });
    expect(outsider.status).toBe(403);
    expect(outsider.body).toEqual({ message: "403 Forbidden" });
  });

  it("lists, gets, creates and deletes branches", async () => {
    expect((await f.api("/projects/1/repository/branches")).body.map((b: any) => b.name)).toEqual([
      "feature/layout-cache",
      "fix/readme-typo",
      "main",
    ]);
    const main = (await f.api("/projects/1/repository/branches/main")).body;
    expect(main).toMatchObject({ name: "main", default: true, protected: true });
    const made = await f.api("/projects/1/repository/branches?branch=release%2F1.0&ref=main", {
      method: "POST",
    });
    expect(made.status).toBe(201);
    expect(made.body.commit.id).toBe(main.commit.id);
    expect(
      (await f.api("/projects/1/repository/branches", post({ branch: "release/1.0", ref: "main" }))).body,
    ).toEqual({
      message: "Branch already exists",
    });
    expect((await f.api("/projects/1/repository/branches/release%2F1.0", { method: "DELETE" })).status).toBe(
      204,
    );
    expect((await f.api("/projects/1/repository/branches/release%2F1.0")).body).toEqual({
      message: "404 Branch Not Found",
    });
    expect((await f.api("/projects/1/repository/branches/main", { method: "DELETE" })).status).toBe(405);
  });

  it("creates a commit with create, update, move and delete actions", async () => {
    const res = await f.api(
      "/projects/1/repository/commits",
      post({
        branch: "refactor",
        start_branch: "main",
        commit_message: "Restructure",
        actions: [
          { action: "create", file_path: "lib/a.ts", content: "export const a = 1;\n" },
          { action: "update", file_path: "README.md", content: "# Widgets\n" },
          { action: "move", file_path: "docs/manual.md", previous_path: "docs/guide.md" },
          { action: "delete", file_path: "package.json" },
        ],
      }),
    );
    expect(res.status).toBe(201);
    // lib/a.ts (1 line) + docs/manual.md (3 lines; a move is a delete plus a create, no rename detection).
    expect(res.body).toMatchObject({ title: "Restructure", stats: { additions: 4 } });
    const tree = (await f.api("/projects/1/repository/tree?ref=refactor&recursive=true")).body.map(
      (e: any) => e.path,
    );
    expect(tree).toEqual(expect.arrayContaining(["lib/a.ts", "docs/manual.md"]));
    expect(tree).not.toContain("package.json");
    const diff = (await f.api(`/projects/1/repository/commits/${res.body.id}/diff`)).body;
    expect(diff.map((d: any) => d.new_path)).toEqual([
      "README.md",
      "docs/guide.md",
      "docs/manual.md",
      "lib/a.ts",
      "package.json",
    ]);
    const bad = await f.api(
      "/projects/1/repository/commits",
      post({
        branch: "main",
        commit_message: "x",
        actions: [{ action: "update", file_path: "ghost.md", content: "" }],
      }),
    );
    expect(bad.body).toEqual({ message: "A file with this name doesn't exist" });
  });

  it("lists, gets, creates and deletes tags; a tag resolves as a ref", async () => {
    const tags = (await f.api("/projects/1/repository/tags")).body;
    expect(tags.map((t: any) => [t.name, t.message])).toEqual([["v1.4.0", "Release 1.4.0"]]);
    const made = await f.api(
      "/projects/1/repository/tags",
      post({ tag_name: "v1.5.0", ref: "feature/layout-cache" }),
    );
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: "v1.5.0", message: "", created_at: null });
    const again = await f.api("/projects/1/repository/tags", post({ tag_name: "v1.5.0", ref: "main" }));
    expect(again.body).toEqual({ message: "Tag v1.5.0 already exists" });
    const file = await f.api("/projects/1/repository/files/src%2Fcache.test.ts?ref=v1.5.0");
    expect(file.status).toBe(200);
    const byVersion = (await f.api("/projects/1/repository/tags?order_by=version&sort=asc")).body;
    expect(byVersion.map((t: any) => t.name)).toEqual(["v1.4.0", "v1.5.0"]);
    expect((await f.api("/projects/1/repository/tags/v1.5.0", { method: "DELETE" })).status).toBe(204);
    expect((await f.api("/projects/1/repository/tags/v1.5.0")).body).toEqual({
      message: "404 Tag Not Found",
    });
  });

  it("gets a commit by sha, short sha or branch, and 404s an unknown one", async () => {
    const head = (await f.api("/projects/1/repository/commits/main")).body;
    expect((await f.api(`/projects/1/repository/commits/${head.short_id}`)).body.id).toBe(head.id);
    expect(head.last_pipeline).toMatchObject({ status: "success" });
    expect((await f.api("/projects/1/repository/commits/deadbeef")).body).toEqual({
      message: "404 Commit Not Found",
    });
  });
});
