import { describe, expect, it } from "vitest";
import { BOB, freshForge, send } from "../helpers.js";

// rest/group-milestones.ts over HTTP on the default dataset: alice owns acme/widgets (project 1)
// and the acme group; bob is a Developer in both.
const { f } = freshForge();

const P = "/projects/1";
const bob = BOB;

describe("group milestones and milestone items", () => {
  it("a promoted milestone keeps its issues and merge requests, now the group's", async () => {
    const ms = (await f.api(`${P}/milestones`, send("POST", { title: "v9" }))).body;
    await f.api(`${P}/issues/1`, send("PUT", { milestone_id: ms.id }));
    expect(
      (await f.api(`${P}/merge_requests/1`, send("PUT", { milestone_id: ms.id }))).body.milestone.title,
    ).toBe("v9");
    expect((await f.api(`${P}/milestones/${ms.id}/issues`)).body.map((i: { iid: number }) => i.iid)).toEqual([
      1,
    ]);
    expect((await f.api(`${P}/milestones/${ms.id}/burndown_events`)).body[0]).toMatchObject({
      action: "created",
    });
    const g = await f.api(`${P}/milestones/${ms.id}/promote`, send("POST"));
    expect(g.status).toBe(200);
    expect(g.body).toMatchObject({ title: "v9", group_id: expect.any(Number) });
    expect((await f.api(`${P}/milestones/${ms.id}`)).status).toBe(404);
    const gm = `/groups/acme/milestones/${g.body.id}`;
    expect((await f.api(`${gm}/issues`)).body.map((i: { iid: number }) => i.iid)).toEqual([1]);
    expect((await f.api(`${gm}/merge_requests`)).body.map((m: { iid: number }) => m.iid)).toEqual([1]);
    expect((await f.api(`${P}/issues/1`)).body.milestone).toMatchObject({
      id: g.body.id,
      group_id: g.body.group_id,
    });
    // the group's milestone is usable by its projects; deleting it takes it off them
    expect((await f.api(`${P}/issues/2`, send("PUT", { milestone_id: g.body.id }))).status).toBe(200);
    expect((await f.api(gm, send("DELETE"))).status).toBe(204);
    expect((await f.api(`${P}/issues/1`)).body.milestone).toBeNull();
  });

  it.each([
    ["a duplicate title → 400", { title: "Q1" }, {}, 400],
    ["no title → 400", {}, {}, 400],
    ["a bad date → 400", { title: "Q2", due_date: "31/03/2027" }, {}, 400],
    ["a developer → 201 (Reporter and up)", { title: "Q3" }, bob, 201],
  ])("POST /groups/:id/milestones: %s", async (_n, b, headers, status) => {
    await f.api("/groups/acme/milestones", send("POST", { title: "Q1" }));
    expect((await f.api("/groups/acme/milestones", send("POST", b, headers))).status).toBe(status);
  });

  it("a project outside a group cannot promote", async () => {
    const ms = (await f.api("/projects/bob%2Fdotfiles/milestones", send("POST", { title: "m" }, bob))).body;
    const r = await f.api(
      `/projects/bob%2Fdotfiles/milestones/${ms.id}/promote`,
      send("POST", undefined, bob),
    );
    expect(r.status).toBe(400);
  });
});
