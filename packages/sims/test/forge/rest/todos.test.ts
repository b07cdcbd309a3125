import { describe, expect, it } from "vitest";
import { freshForge, send } from "../helpers.js";

// rest/todos.ts (marking every to-do done) and rest/namespaces.ts (namespace paths) over HTTP on
// the default dataset: alice owns acme/widgets; bob is a Developer there.
const { f } = freshForge();

describe("to-dos and namespaces", () => {
  it("mark_as_done empties the pending list", async () => {
    expect((await f.api("/todos")).body.length).toBeGreaterThan(0);
    expect((await f.api("/todos/mark_as_done", send("POST"))).status).toBe(204);
    expect((await f.api("/todos")).body).toEqual([]);
  });

  it.each([
    ["a group path", "acme", "", { exists: true, suggests: ["acme1"] }],
    ["a username", "bob", "", { exists: true, suggests: ["bob1"] }],
    ["a free path", "zeta", "", { exists: false, suggests: [] }],
    ["a subgroup under its parent", "platform", "?parent_id=acme", { exists: true, suggests: ["platform1"] }],
    ["a top-level path under another parent", "labs", "?parent_id=acme", { exists: false, suggests: [] }],
  ])("exists: %s", async (_n, path, q, body) => {
    expect((await f.api(`/namespaces/${path}/exists${q}`)).body).toEqual(body);
  });
});
