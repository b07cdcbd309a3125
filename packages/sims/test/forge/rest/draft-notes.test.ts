import { describe, expect, it } from "vitest";
import { BOB, freshForge, send } from "../helpers.js";

// rest/draft-notes.ts: who sees and changes what, over HTTP on the default dataset (alice's PAT
// unless bob's is given).
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
