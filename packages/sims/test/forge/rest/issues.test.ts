import { describe, expect, it } from "vitest";
import { freshForge } from "../helpers.js";

// rest/issues.ts and rest/notes.ts over HTTP on the default dataset.
const { f, sim } = freshForge();

describe("issues and notes", () => {
  it("lists with state and label filters", async () => {
    expect((await f.api("/projects/1/issues")).body).toHaveLength(3);
    expect((await f.api("/projects/1/issues?state=opened")).body).toHaveLength(2);
    const bugs = (await f.api("/projects/1/issues?labels=bug,performance")).body;
    expect(bugs.map((i: any) => i.iid)).toEqual([1]);
    expect((await f.api("/issues?scope=all&search=tokens")).body.map((i: any) => i.title)).toEqual([
      "Rotate runner tokens",
    ]);
  });

  it("gets one issue with references and web_url", async () => {
    const i = (await f.api("/projects/acme%2Fwidgets/issues/1")).body;
    expect(i).toMatchObject({
      iid: 1,
      state: "opened",
      user_notes_count: 2,
      references: { full: "acme/widgets#1" },
    });
    expect(i.web_url).toBe(`${sim.origin}/acme/widgets/-/issues/1`);
    expect((await f.api("/projects/1/issues/99")).body).toEqual({ message: "404 Not found" });
  });

  it("creates and updates an issue (close, labels, assignees)", async () => {
    const created = await f.api("/projects/1/issues", {
      method: "POST",
      body: JSON.stringify({ title: "New bug", labels: "bug,ui", assignee_ids: [2] }),
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ iid: 4, labels: ["bug", "ui"], author: { username: "alice" } });
    expect(created.body.assignees.map((a: any) => a.username)).toEqual(["bob"]);
    const closed = await f.api("/projects/1/issues/4", {
      method: "PUT",
      body: JSON.stringify({ state_event: "close", add_labels: "wontfix" }),
    });
    expect(closed.body).toMatchObject({ state: "closed", closed_by: { username: "alice" } });
    expect(closed.body.labels).toEqual(["bug", "ui", "wontfix"]);
  });

  it("hides a confidential issue from non-members, but not from project developers", async () => {
    const made = await f.api("/projects/1/issues", {
      method: "POST",
      body: JSON.stringify({ title: "Secret leak", confidential: true }),
    });
    const iid = made.body.iid;
    const dave = { headers: { "private-token": "sim-forge-pat-dave" } };
    expect((await f.api(`/projects/1/issues/${iid}`, dave)).status).toBe(404);
    expect((await f.api(`/projects/1/issues/${iid}/notes`, dave)).status).toBe(404);
    expect((await f.api("/projects/1/issues", dave)).body.map((i: any) => i.iid)).not.toContain(iid);
    expect((await f.api("/search?scope=issues&search=leak", dave)).body).toEqual([]);
    const bob = { headers: { "private-token": "sim-forge-pat-bob" } };
    expect((await f.api(`/projects/1/issues/${iid}`, bob)).body.confidential).toBe(true);
  });

  it("keeps an archived project readable but refuses writes (403)", async () => {
    await f.control("POST", "/seed", {
      projects: [{ namespace: "alice", path: "old", archived: true, files: { "a.md": "a\n" } }],
      issues: [{ project: "alice/old", title: "History" }],
    });
    expect((await f.api("/projects/alice%2Fold/issues")).body).toHaveLength(1);
    const write = await f.api("/projects/alice%2Fold/issues", {
      method: "POST",
      body: JSON.stringify({ title: "x" }),
    });
    expect(write.status).toBe(403);
    expect((await f.api("/projects?archived=true")).body.map((p: any) => p.path)).toEqual(["old"]);
  });

  it("answers 400 {error: 'title is missing'} without a title", async () => {
    const res = await f.api("/projects/1/issues", { method: "POST", body: "{}" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "title is missing" });
  });

  it("lists and creates notes", async () => {
    const notes = (await f.api("/projects/1/issues/1/notes?sort=asc")).body;
    expect(notes.map((n: any) => n.body)).toEqual([
      "Reproduced. Layout is not cached.",
      "Thanks! A cache keyed by options should do.",
    ]);
    const n = await f.api("/projects/1/issues/1/notes", {
      method: "POST",
      body: JSON.stringify({ body: "On it" }),
    });
    expect(n.status).toBe(201);
    expect(n.body).toMatchObject({
      body: "On it",
      noteable_type: "Issue",
      noteable_iid: 1,
      author: { username: "alice" },
    });
    expect((await f.api("/projects/1/issues/1")).body.user_notes_count).toBe(3);
  });
});
