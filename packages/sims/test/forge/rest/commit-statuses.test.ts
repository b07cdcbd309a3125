import { describe, expect, it } from "vitest";
import { BOB, freshForge, send } from "../helpers.js";

// rest/commit-statuses.ts over HTTP on the default dataset: alice owns acme/widgets; bob is a Developer
// there.
const { f } = freshForge();

const P = "/projects/1";
const bob = BOB;

describe("commit statuses", () => {
  it("a status of the same name moves to its new state; an unknown commit is 404; a bad state 400", async () => {
    await f.api(`${P}/statuses/main`, send("POST", { state: "pending", name: "ci" }, bob));
    await f.api(`${P}/statuses/main`, send("POST", { state: "success", name: "ci" }, bob));
    const rows = (await f.api(`${P}/repository/commits/main/statuses`)).body;
    expect(rows.map((r: { name: string; status: string }) => [r.name, r.status])).toEqual([
      ["ci", "success"],
    ]);
    expect((await f.api(`${P}/statuses/0000000`, send("POST", { state: "success" }))).status).toBe(404);
    expect((await f.api(`${P}/statuses/main`, send("POST", { state: "green" }))).status).toBe(400);
  });
});
