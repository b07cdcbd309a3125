import { describe, expect, it } from "vitest";
import { del, freshForge, post } from "../helpers.js";

// rest/issue-links.ts, todos.ts and events.ts over HTTP on the default dataset.
const { f } = freshForge();

const P = "/projects/1";
const bob = { "private-token": "sim-forge-pat-bob" };

describe("issue links, to-dos and events", () => {
  it("links two issues both ways, refuses self and duplicate links, unlinks", async () => {
    const r = await f.api(
      `${P}/issues/1/links`,
      post({ target_project_id: "acme/widgets", target_issue_iid: 2, link_type: "blocks" }),
    );
    expect(r.status).toBe(201);
    expect(r.body.link_type).toBe("blocks");
    expect(
      (await f.api(`${P}/issues/2/links`, post({ target_project_id: 1, target_issue_iid: 1 }))).status,
    ).toBe(409);
    expect(
      (await f.api(`${P}/issues/1/links`, post({ target_project_id: 1, target_issue_iid: 1 }))).status,
    ).toBe(400);
    expect(
      (await f.api(`${P}/issues/1/links`, post({ target_project_id: "no/such", target_issue_iid: 1 })))
        .status,
    ).toBe(404);
    const back = (await f.api(`${P}/issues/2/links`)).body;
    expect(back).toMatchObject([{ iid: 1, link_type: "is_blocked_by" }]);
    expect((await f.api(`${P}/issues/2/links/${back[0].issue_link_id}`, del)).status).toBe(200);
    expect((await f.api(`${P}/issues/1/links`)).body).toEqual([]);
  });

  it("to-dos come from assignments and review requests; done ones leave the pending list", async () => {
    const bobs = (await f.api("/todos", { headers: bob })).body;
    expect(bobs.map((t: any) => `${t.action_name} ${t.target_type} ${t.target.iid}`)).toContain(
      "review_requested MergeRequest 1",
    );
    const id = bobs[0].id;
    expect((await f.api(`/todos/${id}/mark_as_done`, post({}, bob))).body.state).toBe("done");
    expect((await f.api("/todos", { headers: bob })).body.map((t: any) => t.id)).not.toContain(id);
    expect((await f.api("/todos?state=done", { headers: bob })).body.map((t: any) => t.id)).toEqual([id]);
    expect((await f.api(`/todos/${id}/mark_as_done`, post({}))).status).toBe(404);
    expect((await f.api("/todos", { headers: { "private-token": "" } })).status).toBe(401);
  });

  it("events: yours, a user's (only in projects you can see), a project's, filtered by action", async () => {
    const mine = (await f.api("/events")).body;
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((e: any) => e.author_username === "alice")).toBe(true);
    const comments = (await f.api(`${P}/events?action=commented`)).body;
    expect(comments.length).toBeGreaterThan(0);
    expect(comments.every((e: any) => e.action_name === "commented on" && e.project_id === 1)).toBe(true);
    const asc = (await f.api(`${P}/events?sort=asc`)).body;
    expect(asc[0].created_at <= asc.at(-1).created_at).toBe(true);
    const carolSeenByBob = (await f.api("/users/carol/events", { headers: bob })).body;
    expect(carolSeenByBob.every((e: any) => e.project_id !== 2)).toBe(true);
  });
});
