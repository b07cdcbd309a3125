import { describe, expect, it } from "vitest";
import type { RunningSim } from "../src/index.js";
import { type forge, forgeForEachTest } from "./forge-helpers.js";

// Conformance of the forge simulator's merge requests, pipelines/jobs and repository endpoints.
let _sim: RunningSim;
let f: ReturnType<typeof forge>;
forgeForEachTest((client, running) => {
  f = client;
  _sim = running;
});

const bob = { "private-token": "sim-forge-pat-bob" };
const post = (body: unknown) => ({ method: "POST", body: JSON.stringify(body) });
const put = (body: unknown) => ({ method: "PUT", body: JSON.stringify(body) });

describe("merge requests", () => {
  it("lists and gets with diff_refs, changes_count and the source head sha", async () => {
    const list = (await f.api("/projects/1/merge_requests?state=opened")).body;
    expect(list.map((m: any) => m.iid)).toEqual([2, 1]);
    const mr = (await f.api("/projects/acme%2Fwidgets/merge_requests/1")).body;
    const branch = (await f.api("/projects/1/repository/branches/feature%2Flayout-cache")).body;
    expect(mr).toMatchObject({
      iid: 1,
      source_branch: "feature/layout-cache",
      target_branch: "main",
      changes_count: "2",
    });
    expect(mr.sha).toBe(branch.commit.id);
    expect(mr.diff_refs.head_sha).toBe(branch.commit.id);
    expect(mr.references.full).toBe("acme/widgets!1");
  });

  it("serves /changes and /diffs with unified diff hunks", async () => {
    const changes = (await f.api("/projects/1/merge_requests/1/changes")).body.changes;
    expect(changes.map((c: any) => [c.new_path, c.new_file])).toEqual([
      ["src/cache.test.ts", true],
      ["src/widget.ts", false],
    ]);
    expect(changes[0].diff).toMatch(/^@@ -0,0 \+1,3 @@\n\+import \{ layout \}/);
    expect(changes[1].diff).toContain("+const cache = new Map<string, string>();");
    expect(changes[1].diff).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@/);
    const diffs = await f.api("/projects/1/merge_requests/1/diffs?per_page=1");
    expect(diffs.body).toHaveLength(1);
    expect(diffs.headers.get("x-total")).toBe("2");
  });

  it("creates (201), refuses a duplicate (409) and updates", async () => {
    await f.api("/projects/1/repository/branches?branch=topic&ref=main", { method: "POST" });
    const created = await f.api(
      "/projects/1/merge_requests",
      post({ source_branch: "topic", target_branch: "main", title: "Topic" }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ iid: 3, state: "opened", author: { username: "alice" } });
    const dup = await f.api(
      "/projects/1/merge_requests",
      post({ source_branch: "topic", target_branch: "main", title: "Again" }),
    );
    expect(dup.status).toBe(409);
    expect(dup.body.message[0]).toContain(
      "Another open merge request already exists for this source branch: !3",
    );
    const missing = await f.api("/projects/1/merge_requests", post({ title: "x" }));
    expect(missing.body).toEqual({ error: "source_branch is missing, target_branch is missing" });
    const closed = await f.api(
      "/projects/1/merge_requests/3",
      put({ state_event: "close", title: "Topic v2" }),
    );
    expect(closed.body).toMatchObject({ state: "closed", title: "Topic v2" });
  });

  it("approves, refuses a second approval, unapproves", async () => {
    const before = (await f.api("/projects/1/merge_requests/1/approvals")).body;
    expect(before).toMatchObject({
      approved: false,
      approvals_required: 1,
      approvals_left: 1,
      approved_by: [],
    });
    const ok = await f.api("/projects/1/merge_requests/1/approve", { method: "POST", headers: bob });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({
      approved: true,
      approvals_left: 0,
      approved_by: [{ user: { username: "bob" } }],
    });
    const again = await f.api("/projects/1/merge_requests/1/approve", { method: "POST", headers: bob });
    expect(again.status).toBe(401);
    const undo = await f.api("/projects/1/merge_requests/1/unapprove", { method: "POST", headers: bob });
    expect(undo.body.approvals_left).toBe(1);
  });

  it("merges an approved MR into its target branch", async () => {
    expect((await f.api("/projects/1/merge_requests/1/merge", { method: "PUT" })).status).toBe(405);
    await f.api("/projects/1/merge_requests/1/approve", { method: "POST", headers: bob });
    const merged = await f.api("/projects/1/merge_requests/1/merge", { method: "PUT" });
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ state: "merged", merged_by: { username: "alice" } });
    const file = await f.api("/projects/1/repository/files/src%2Fcache.test.ts/raw?ref=main");
    expect(file.status).toBe(200);
    expect((await f.api("/projects/1/repository/commits/main")).body.parent_ids).toHaveLength(2);
  });

  it("keeps discussions: list, start a thread, reply, resolve", async () => {
    const threads = (await f.api("/projects/1/merge_requests/1/discussions")).body;
    expect(threads[0].notes.map((n: any) => n.author.username)).toEqual(["bob", "alice"]);
    const started = await f.api("/projects/1/merge_requests/1/discussions", post({ body: "Nit: naming" }));
    expect(started.status).toBe(201);
    expect(started.body.individual_note).toBe(false);
    const reply = await f.api(
      `/projects/1/merge_requests/1/discussions/${started.body.id}/notes`,
      post({ body: "Fixed" }),
    );
    expect(reply.body).toMatchObject({
      body: "Fixed",
      type: "DiscussionNote",
      noteable_type: "MergeRequest",
    });
    const resolved = await f.api(
      `/projects/1/merge_requests/1/discussions/${started.body.id}`,
      put({ resolved: true }),
    );
    expect(resolved.body.notes.every((n: any) => n.resolved)).toBe(true);
    const notes = (await f.api("/projects/1/merge_requests/1/notes")).body;
    expect(notes.map((n: any) => n.body)).toContain("Fixed");
  });
});

describe("pipelines and jobs", () => {
  it("lists and gets the seeded pipelines with their jobs and traces", async () => {
    const list = (await f.api("/projects/1/pipelines")).body;
    expect(list.map((p: any) => [p.ref, p.status])).toEqual([
      ["feature/layout-cache", "failed"],
      ["main", "success"],
    ]);
    const failed = (await f.api(`/projects/1/pipelines/${list[0].id}`)).body;
    expect(failed).toMatchObject({ status: "failed", user: { username: "alice" } });
    const jobs = (await f.api(`/projects/1/pipelines/${list[0].id}/jobs?scope[]=failed`)).body;
    expect(jobs.map((j: any) => j.name)).toEqual(["test"]);
    const trace = await f.api(`/projects/1/jobs/${jobs[0].id}/trace`);
    expect(trace.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(trace.body).toContain("ERROR: Job failed: exit code 1");
  });

  it("runs a created pipeline on the simulated clock: pending → running → success", async () => {
    const created = await f.api("/projects/1/pipeline", post({ ref: "main" }));
    expect(created.status).toBe(201);
    expect(created.body.status).toBe("pending");
    const id = created.body.id;
    await f.advance(2);
    expect((await f.api(`/projects/1/pipelines/${id}`)).body.status).toBe("running");
    const build = (await f.api(`/projects/1/pipelines/${id}/jobs`)).body.find((j: any) => j.name === "build");
    expect(build.status).toBe("running");
    expect((await f.api(`/projects/1/jobs/${build.id}/trace`)).body).toContain("$ make build");
    await f.advance(120);
    const done = (await f.api(`/projects/1/pipelines/${id}`)).body;
    expect(done.status).toBe("success");
    expect(done.duration).toBe(75);
  });

  it("fails the job named by SIM_FAIL_JOB, skips later stages, then retries and cancels", async () => {
    const created = await f.api(
      "/projects/1/pipeline",
      post({ ref: "main", variables: [{ key: "SIM_FAIL_JOB", value: "build" }] }),
    );
    const id = created.body.id;
    await f.advance(60);
    const jobs = (await f.api(`/projects/1/pipelines/${id}/jobs`)).body;
    expect(Object.fromEntries(jobs.map((j: any) => [j.name, j.status]))).toEqual({
      build: "failed",
      test: "skipped",
      lint: "skipped",
    });
    expect((await f.api(`/projects/1/pipelines/${id}`)).body.status).toBe("failed");
    const retried = await f.api(`/projects/1/pipelines/${id}/retry`, { method: "POST" });
    expect(retried.status).toBe(201);
    expect(retried.body.status).toBe("pending");
    const again = (await f.api(`/projects/1/pipelines/${id}/jobs`)).body;
    expect(Object.fromEntries(again.map((j: any) => [j.name, j.status]))).toEqual({
      build: "pending",
      test: "created",
      lint: "created",
    });
    const canceled = await f.api(`/projects/1/pipelines/${id}/cancel`, { method: "POST" });
    expect(canceled.body.status).toBe("canceled");
    const all = (await f.api(`/projects/1/pipelines/${id}/jobs?include_retried=true`)).body;
    expect(all).toHaveLength(6);
  });

  it("answers 404 'Not found' for an unknown pipeline, job or merge request", async () => {
    for (const path of [
      "/projects/1/pipelines/999",
      "/projects/1/jobs/999",
      "/projects/1/merge_requests/99",
    ]) {
      const res = await f.api(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: "404 Not found" });
    }
  });

  it("answers 400 for an unknown ref and 400 without a ref", async () => {
    const bad = await f.api("/projects/1/pipeline", post({ ref: "nope" }));
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: { base: ["Reference not found"] } });
    expect((await f.api("/projects/1/pipeline", post({}))).body).toEqual({ error: "ref is missing" });
  });

  it("lists project jobs and gets one", async () => {
    const jobs = (await f.api("/projects/1/jobs?per_page=2")).body;
    expect(jobs).toHaveLength(2);
    const one = (await f.api(`/projects/1/jobs/${jobs[0].id}`)).body;
    expect(one).toMatchObject({ id: jobs[0].id, pipeline: { project_id: 1 } });
  });
});

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
