import { describe, expect, it } from "vitest";
import { del, freshForge, post, put } from "../helpers.js";

// rest/labels.ts and rest/milestones.ts over HTTP on the default dataset.
const { f } = freshForge();

const P = "/projects/1";

describe("labels and milestones", () => {
  it.each([
    ["missing color → 400", { name: "x" }, 400],
    ["bad color → 400", { name: "x", color: "#12" }, 400],
    ["created → 201", { name: "x", color: "#00ff00" }, 201],
  ])("POST labels: %s", async (_n, body, status) => {
    expect((await f.api(`${P}/labels`, post(body))).status).toBe(status);
  });

  it("refuses a duplicate label (409); renaming relabels issues; deleting unlabels them", async () => {
    // "bug" exists already: issue 1 names it, and naming a label creates it
    expect((await f.api(`${P}/labels`, post({ name: "bug", color: "#ff0000" }))).status).toBe(409);
    await f.api(`${P}/labels/bug`, put({ color: "#ff0000", description: "Broken" }));
    const listed = (await f.api(`${P}/labels`)).body.find((l: { name: string }) => l.name === "bug");
    expect(listed).toMatchObject({ color: "#ff0000", description: "Broken", open_issues_count: 1 });
    expect((await f.api(`${P}/labels/bug`, put({ new_name: "defect" }))).body.name).toBe("defect");
    expect((await f.api(`${P}/issues/1`)).body.labels).toContain("defect");
    expect((await f.api(`${P}/labels/${listed.id}`, del)).status).toBe(204);
    expect((await f.api(`${P}/issues/1`)).body.labels).not.toContain("defect");
    expect((await f.api(`${P}/labels/defect`)).status).toBe(404);
  });

  it("a guest cannot create labels (403); an update with nothing to change is 400", async () => {
    await f.control("POST", "/seed", {
      users: [{ username: "gus" }],
      personal_access_tokens: [{ token: "pat-gus-guest", user: "gus", scopes: ["api"] }],
    });
    expect(
      (await f.api(`${P}/labels`, post({ name: "x", color: "red" }, { "private-token": "pat-gus-guest" })))
        .status,
    ).toBe(403);
    await f.api(`${P}/labels`, post({ name: "x", color: "red" }));
    expect((await f.api(`${P}/labels/x`, put({}))).status).toBe(400);
  });

  it("milestones: create, filter by state, close, attach to an issue, delete", async () => {
    const m = (await f.api(`${P}/milestones`, post({ title: "1.5", due_date: "2026-06-30" }))).body;
    expect(m).toMatchObject({ iid: 1, state: "active", due_date: "2026-06-30" });
    expect((await f.api(`${P}/milestones`, post({ title: "1.5" }))).status).toBe(400);
    expect((await f.api(`${P}/milestones`, post({ title: "bad", due_date: "June" }))).status).toBe(400);
    expect((await f.api(`${P}/issues/1`, put({ milestone_id: m.id }))).body.milestone.title).toBe("1.5");
    expect((await f.api(`${P}/issues/1`, put({ milestone_id: 999 }))).status).toBe(400);
    await f.api(`${P}/milestones/${m.id}`, put({ state_event: "close" }));
    expect((await f.api(`${P}/milestones?state=active`)).body).toEqual([]);
    expect((await f.api(`${P}/milestones?state=closed`)).body).toHaveLength(1);
    expect((await f.api(`${P}/issues/1`, put({ milestone_id: 0 }))).body.milestone).toBeNull();
    expect((await f.api(`${P}/milestones/${m.id}`, del)).status).toBe(204);
    expect((await f.api(`${P}/milestones/${m.id}`)).status).toBe(404);
  });
});
