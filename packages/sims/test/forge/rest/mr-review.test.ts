import { describe, expect, it } from "vitest";
import { BOB, freshForge, send } from "../helpers.js";

// The merge-request review endpoints (rest/mr-review.ts and the thread-note routes of notes.ts):
// who sees and changes what, over HTTP on the default dataset (alice's PAT unless bob's is given).
const { f } = freshForge();

const MR = "/projects/1/merge_requests/1";
const bob = BOB;

describe("draft notes", () => {
  it("are their author's own until published, then a note everyone sees", async () => {
    const d = (await f.api(`${MR}/draft_notes`, send("POST", { note: "nit: name" }))).body;
    expect((await f.api(`${MR}/draft_notes`, { headers: bob })).body).toEqual([]);
    expect((await f.api(`${MR}/draft_notes/${d.id}`, { headers: bob })).status).toBe(404);
    expect(
      (await f.api(`${MR}/notes`, { headers: bob })).body.map((n: { body: string }) => n.body),
    ).not.toContain("nit: name");
    expect((await f.api(`${MR}/draft_notes/${d.id}/publish`, send("PUT"))).status).toBe(204);
    expect((await f.api(`${MR}/draft_notes`)).body).toEqual([]);
    expect(
      (await f.api(`${MR}/notes`, { headers: bob })).body.map((n: { body: string }) => n.body),
    ).toContain("nit: name");
  });

  it.each([
    ["an empty note → 400", { note: " " }, 400],
    ["a reply to an unknown thread → 404", { note: "x", in_reply_to_discussion_id: "nope" }, 404],
  ])("%s", async (_n, b, status) => {
    expect((await f.api(`${MR}/draft_notes`, send("POST", b))).status).toBe(status);
  });

  it("bulk publish turns a reply draft into a note of its thread and resolves it when asked", async () => {
    const thread = (await f.api(`${MR}/discussions`, send("POST", { body: "please bound this" }))).body;
    await f.api(
      `${MR}/draft_notes`,
      send("POST", { note: "bounded", in_reply_to_discussion_id: thread.id, resolve_discussion: true }),
    );
    expect((await f.api(`${MR}/draft_notes/bulk_publish`, send("POST"))).status).toBe(204);
    const after = (await f.api(`${MR}/discussions/${thread.id}`)).body;
    expect(after.notes.map((n: { body: string }) => n.body)).toEqual(["please bound this", "bounded"]);
    expect(after.notes[0].resolved).toBe(true);
  });
});

describe("thread notes", () => {
  it.each([
    ["the author edits the body", {}, { body: "edited" }, 200],
    ["another user cannot edit the body", bob, { body: "edited" }, 403],
    ["another user may resolve it", bob, { resolved: true }, 200],
    ["nothing to change → 400", {}, {}, 400],
  ])("%s", async (_n, headers, b, status) => {
    const thread = (await f.api(`${MR}/discussions`, send("POST", { body: "a point" }))).body;
    const note = thread.notes[0].id;
    const res = await f.api(
      `${MR}/discussions/${thread.id}/notes/${note}`,
      send("PUT", b, headers as Record<string, string>),
    );
    expect(res.status).toBe(status);
  });

  it("deleting the last note of a thread removes the thread", async () => {
    const thread = (await f.api(`${MR}/discussions`, send("POST", { body: "a point" }))).body;
    expect(
      (await f.api(`${MR}/discussions/${thread.id}/notes/${thread.notes[0].id}`, send("DELETE"))).status,
    ).toBe(204);
    expect((await f.api(`${MR}/discussions/${thread.id}`)).status).toBe(404);
  });
});

describe("approval state and versions", () => {
  it("one any-approver rule that follows approvals; one version with the merge request's diff", async () => {
    const before = (await f.api("/projects/1/merge_requests/2/approval_state")).body.rules[0];
    await f.api("/projects/1/merge_requests/2/approve", send("POST", {}, bob));
    const after = (await f.api("/projects/1/merge_requests/2/approval_state")).body.rules[0];
    expect(before.approved_by).toEqual([]);
    expect(after.approved_by.map((u: { username: string }) => u.username)).toEqual(["bob"]);
    const [v] = (await f.api(`${MR}/versions`)).body;
    const detail = (await f.api(`${MR}/versions/${v.id}`)).body;
    const mr = (await f.api(MR)).body;
    expect(v.head_commit_sha).toBe(mr.sha);
    expect(detail.diffs.map((d: { new_path: string }) => d.new_path)).toContain("src/widget.ts");
    expect((await f.api(`${MR}/versions/1`)).status).toBe(404);
  });
});
