import { describe, expect, it } from "vitest";
import { BOB, freshForge, send } from "../helpers.js";

// rest/notes.ts, its thread-note routes: who sees and changes what, over HTTP on the default
// dataset (alice's PAT unless bob's is given).
const { f } = freshForge();

const MR = "/projects/1/merge_requests/1";
const bob = BOB;

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
