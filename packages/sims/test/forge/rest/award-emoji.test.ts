import { describe, expect, it } from "vitest";
import { BOB, freshForge, send } from "../helpers.js";

// rest/award-emoji.ts over HTTP on the default dataset: alice owns acme/widgets (project 1) and the
// acme group; bob is a Developer in both.
const { f } = freshForge();

const P = "/projects/1";
const bob = BOB;

describe("award emoji", () => {
  it.each([
    ["on an issue", `${P}/issues/1/award_emoji`, "Issue"],
    ["on a merge request", `${P}/merge_requests/1/award_emoji`, "MergeRequest"],
  ])("%s: award, list, one per user and name, only the awarder removes it", async (_n, path, type) => {
    const made = await f.api(path, send("POST", { name: "thumbsup" }));
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: "thumbsup", awardable_type: type, user: { username: "alice" } });
    expect((await f.api(path, send("POST", { name: "thumbsup" }))).status).toBe(400);
    expect((await f.api(path, send("POST", { name: "thumbsup" }, bob))).status).toBe(201);
    expect((await f.api(path, send("POST", { name: "Not An Emoji" }))).status).toBe(400);
    expect((await f.api(path)).body.map((a: { name: string }) => a.name)).toEqual(["thumbsup", "thumbsup"]);
    // two thumbsup are two upvotes of the issue or merge request
    expect((await f.api(path.replace(/\/award_emoji$/, ""))).body).toMatchObject({
      upvotes: 2,
      downvotes: 0,
    });
    expect((await f.api(`${path}/${made.body.id}`, send("DELETE", undefined, bob))).status).toBe(403);
    expect((await f.api(`${path}/${made.body.id}`, send("DELETE"))).status).toBe(204);
    expect((await f.api(`${path}/${made.body.id}`)).status).toBe(404);
  });

  it("on a note: the note must belong to the issue", async () => {
    const note = (await f.api(`${P}/issues/1/notes`, send("POST", { body: "hi" }))).body;
    const made = await f.api(`${P}/issues/1/notes/${note.id}/award_emoji`, send("POST", { name: "eyes" }));
    expect(made.body).toMatchObject({ awardable_type: "Note", awardable_id: note.id });
    expect((await f.api(`${P}/issues/2/notes/${note.id}/award_emoji`)).status).toBe(404);
  });
});
