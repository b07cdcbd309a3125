import { describe, expect, it } from "vitest";
import { freshForge, post, put } from "../helpers.js";

// rest/merge-requests.ts over HTTP on the default dataset.
const { f } = freshForge();

const bob = { "private-token": "sim-forge-pat-bob" };

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
