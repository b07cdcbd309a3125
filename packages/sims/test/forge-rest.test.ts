import { describe, expect, it } from "vitest";
import type { RunningSim } from "../src/index.js";
import { type forge, forgeForEachTest } from "./forge-helpers.js";

// Conformance of the forge simulator's REST v4 surface: auth, users, projects, groups, issues,
// search and offset pagination (gitlab-wire.md checklist item 5 and the REST section).
let sim: RunningSim;
let f: ReturnType<typeof forge>;
forgeForEachTest((client, running) => {
  f = client;
  sim = running;
});

const as = (token: string) => ({ headers: { "private-token": token } });

describe("authentication and scopes", () => {
  it.each([
    ["PRIVATE-TOKEN header", { "private-token": "sim-forge-pat" }, ""],
    ["Bearer PAT", { authorization: "Bearer sim-forge-pat" }, ""],
    ["private_token query", { authorization: "" }, "?private_token=sim-forge-pat"],
  ])("accepts a personal access token in the %s form", async (_n, headers, query) => {
    const res = await fetch(`${sim.url}/user${query}`, { headers: headers as Record<string, string> });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).username).toBe("alice");
  });

  it("accepts an OAuth access token as Bearer", async () => {
    const t = await f.tokens();
    expect((await f.api("/user", { token: t.access_token })).body.username).toBe("alice");
  });

  it.each([
    ["no token", {}],
    ["an unknown token", { "private-token": "nope" }],
    ["an unknown bearer", { authorization: "Bearer nope" }],
  ])("answers /user with 401 {message} for %s", async (_n, headers) => {
    const res = await fetch(`${sim.url}/user`, { headers });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: "401 Unauthorized" });
  });

  it.each([
    ["read_api", "sim-forge-pat-read", "GET", "/projects", 200],
    ["read_api", "sim-forge-pat-read", "POST", "/projects/1/issues", 403],
    ["read_user", "sim-forge-pat-user", "GET", "/user", 200],
    ["read_user", "sim-forge-pat-user", "GET", "/projects", 403],
    ["read_user", "sim-forge-pat-user", "GET", "/users/2", 200],
    ["read_user", "sim-forge-pat-user", "GET", "/users/2/projects", 403],
    ["api", "sim-forge-pat", "POST", "/projects/1/issues", 201],
  ])("a %s token on %s %s answers %i", async (_scope, token, method, path, status) => {
    const res = await f.api(path, {
      method,
      headers: { "private-token": token },
      ...(method === "POST" ? { body: JSON.stringify({ title: "scoped" }) } : {}),
    });
    expect(res.status).toBe(status);
    if (status === 403) {
      expect(res.body).toMatchObject({
        error: "insufficient_scope",
        error_description: "The request requires higher privileges than provided by the access token.",
      });
      expect(res.headers.get("www-authenticate")).toContain("insufficient_scope");
    }
  });

  it("rejects an expired or revoked personal access token with invalid_token", async () => {
    await f.control("POST", "/seed", {
      personal_access_tokens: [
        { token: "expired-pat-1", user: "alice", expires_at: "2020-01-01" },
        { token: "revoked-pat-1", user: "alice", revoked: true },
      ],
    });
    for (const t of ["expired-pat-1", "revoked-pat-1"]) {
      const res = await f.api("/user", as(t));
      expect(res.status).toBe(401);
      expect(res.body.error).toBe("invalid_token");
    }
  });

  it("lets anonymous callers read public projects only", async () => {
    const list = await fetch(`${sim.url}/projects`);
    expect(((await list.json()) as any[]).map((p) => p.path_with_namespace).sort()).toEqual([
      "acme/widgets",
      "bob/dotfiles",
    ]);
    expect((await fetch(`${sim.url}/projects/acme%2Fplatform%2Finfra`)).status).toBe(404);
  });
});

describe("users and version", () => {
  it("GET /user returns the owner's fields", async () => {
    const me = (await f.api("/user")).body;
    expect(me).toMatchObject({
      username: "alice",
      name: "Alice Liddell",
      email: "alice@example.test",
      state: "active",
    });
    expect(me.web_url).toBe(`${sim.origin}/alice`);
  });

  it("GET /users filters by username and GET /users/:id finds one", async () => {
    const [bob] = (await f.api("/users?username=bob")).body;
    expect(bob.username).toBe("bob");
    expect((await f.api(`/users/${bob.id}`)).body.name).toBe("Bob Builder");
    const missing = await f.api("/users/999999");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: "404 User Not Found" });
  });

  it("GET /personal_access_tokens/self describes the PAT in use", async () => {
    expect((await f.api("/personal_access_tokens/self")).body).toMatchObject({
      name: "default",
      scopes: ["api"],
      active: true,
      revoked: false,
    });
  });

  it("GET /users/:id/projects lists a user's personal projects", async () => {
    const rows = (await f.api("/users/bob/projects")).body;
    expect(rows.map((p: any) => p.path_with_namespace)).toEqual(["bob/dotfiles"]);
    expect(rows[0].namespace).toMatchObject({ kind: "user", full_path: "bob" });
  });

  it("GET /version answers version and revision", async () => {
    expect((await f.api("/version")).body).toMatchObject({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
  });
});

describe("projects", () => {
  it.each([
    ["numeric id", "/projects/1"],
    ["URL-encoded path", "/projects/acme%2Fwidgets"],
    ["URL-encoded nested path", "/projects/acme%2Fplatform%2Finfra"],
  ])("GET by %s", async (_n, path) => {
    const res = await f.api(path);
    expect(res.status).toBe(200);
    expect(res.body.path_with_namespace).toMatch(/^acme\//);
    expect(res.body.namespace.full_path).toBe(res.body.path_with_namespace.split("/").slice(0, -1).join("/"));
  });

  it.each([
    ["unknown id", "/projects/9999", "sim-forge-pat"],
    ["unknown path", "/projects/acme%2Fnope", "sim-forge-pat"],
    ["private project of a non-member", "/projects/acme%2Fplatform%2Finfra", "sim-forge-pat-dave"],
  ])("answers 404 Project Not Found for an %s", async (_n, path, token) => {
    const res = await f.api(path, as(token));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: "404 Project Not Found" });
  });

  it("lists with search, membership and simple views", async () => {
    expect((await f.api("/projects?search=widg")).body.map((p: any) => p.path)).toEqual(["widgets"]);
    const mine = (await f.api("/projects?membership=true", as("sim-forge-pat-carol"))).body;
    expect(mine.map((p: any) => p.path_with_namespace)).toEqual(["acme/platform/infra"]);
    const simple = (await f.api("/projects?simple=true&per_page=1")).body[0];
    expect(simple).not.toHaveProperty("permissions");
    expect(simple).toHaveProperty("path_with_namespace");
  });
});

describe("namespaces and project creation", () => {
  it("lists the caller's namespaces and finds one by path", async () => {
    const mine = (await f.api("/namespaces")).body.map((n: any) => `${n.kind}:${n.full_path}`);
    expect(mine).toEqual(["user:alice", "group:acme", "group:acme/platform"]);
    expect((await f.api("/namespaces?search=plat")).body.map((n: any) => n.full_path)).toEqual([
      "acme/platform",
    ]);
    expect((await f.api("/namespaces/acme")).body).toMatchObject({ kind: "group", full_path: "acme" });
    expect((await f.api("/namespaces/labs")).body).toEqual({ message: "404 Namespace Not Found" });
  });

  it("creates a project in a group with a README, and refuses a taken path", async () => {
    const acme = (await f.api("/namespaces/acme")).body;
    const body = JSON.stringify({ name: "New Thing", namespace_id: acme.id, initialize_with_readme: true });
    const created = await f.api("/projects", { method: "POST", body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      path_with_namespace: "acme/new-thing",
      visibility: "private",
      default_branch: "main",
      empty_repo: false,
    });
    const readme = await f.api(`/projects/${created.body.id}/repository/files/README.md/raw`);
    expect(readme.body).toContain("# New Thing");
    const again = await f.api("/projects", { method: "POST", body });
    expect(again.status).toBe(400);
    expect(again.body.message.path).toEqual(["has already been taken"]);
  });

  it("creates an empty personal project, and refuses a group the caller cannot write to", async () => {
    const dave = { "private-token": "sim-forge-pat-dave" };
    const mine = await f.api("/projects", {
      method: "POST",
      headers: dave,
      body: JSON.stringify({ path: "scratch" }),
    });
    expect(mine.body).toMatchObject({
      path_with_namespace: "dave/scratch",
      empty_repo: true,
      default_branch: null,
    });
    const theirs = await f.api("/projects", {
      method: "POST",
      headers: dave,
      body: JSON.stringify({ path: "x", namespace_id: "acme" }),
    });
    expect(theirs.status).toBe(403);
    const none = await f.api("/projects", { method: "POST", body: "{}" });
    expect(none.body).toEqual({ error: "name, path are missing, at least one parameter must be provided" });
  });
});

describe("project members and labels", () => {
  it("lists direct members, and inherited ones under /members/all", async () => {
    expect((await f.api("/projects/1/members")).body).toEqual([]);
    const all = (await f.api("/projects/1/members/all")).body;
    expect(all.map((m: any) => [m.username, m.access_level])).toEqual([
      ["alice", 50],
      ["bob", 30],
    ]);
  });

  it("lists the labels used by issues and merge requests with their counts", async () => {
    const labels = (await f.api("/projects/1/labels")).body;
    expect(labels.map((l: any) => l.name)).toEqual(["bug", "documentation", "feature", "performance"]);
    expect(labels[0]).toMatchObject({ name: "bug", open_issues_count: 1, closed_issues_count: 1 });
    expect(labels[0].color).toMatch(/^#[0-9a-f]{6}$/);
  });
});

describe("groups", () => {
  it("lists the caller's groups, or all visible ones with all_available", async () => {
    expect((await f.api("/groups")).body.map((g: any) => g.full_path)).toEqual(["acme", "acme/platform"]);
    const all = (await f.api("/groups?all_available=true", as("sim-forge-pat-carol"))).body;
    expect(all.map((g: any) => g.full_path)).toEqual(["acme", "acme/platform", "labs"]);
    const owned = (await f.api("/groups?min_access_level=50", as("sim-forge-pat-bob"))).body;
    expect(owned.map((g: any) => g.full_path)).toEqual(["labs"]);
  });

  it("gets a group by id or path, its subgroups and its projects", async () => {
    const acme = (await f.api("/groups/acme")).body;
    expect(acme).toMatchObject({ full_path: "acme", parent_id: null });
    expect((await f.api(`/groups/${acme.id}/subgroups`)).body.map((g: any) => g.full_path)).toEqual([
      "acme/platform",
    ]);
    expect((await f.api("/groups/acme/projects")).body.map((p: any) => p.path)).toEqual(["widgets"]);
    const deep = (await f.api("/groups/acme/projects?include_subgroups=true")).body.map((p: any) => p.path);
    expect(deep.sort()).toEqual(["infra", "widgets"]);
    expect((await f.api("/groups/acme%2Fplatform", as("sim-forge-pat-dave"))).status).toBe(404);
    // Membership of a group reaches its subgroups.
    expect((await f.api("/groups/acme%2Fplatform", as("sim-forge-pat-bob"))).status).toBe(200);
  });
});

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

describe("search", () => {
  it.each([
    ["projects", "widg", (r: any) => r.path_with_namespace, ["acme/widgets"]],
    ["issues", "dark", (r: any) => r.title, ["Add a dark theme"]],
    ["merge_requests", "typo", (r: any) => r.title, ["Fix typo in README"]],
    ["blobs", "innerHTML", (r: any) => r.path, ["docs/guide.md", "src/widget.ts"]],
  ])("GET /search?scope=%s", async (scope, term, pick, expected) => {
    const res = await f.api(`/search?scope=${scope}&search=${term}`);
    expect(res.status).toBe(200);
    expect(res.body.map(pick)).toEqual(expected);
  });

  it("searches blobs of one project at a ref", async () => {
    const hits = (await f.api("/projects/1/search?scope=blobs&search=cache.set&ref=feature%2Flayout-cache"))
      .body;
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ path: "src/widget.ts", ref: "feature/layout-cache", project_id: 1 });
    expect(hits[0].data).toContain("cache.set(key, html)");
  });

  it.each([
    ["/search?search=x", "scope is missing"],
    ["/search?scope=projects", "search is missing"],
    ["/search?scope=nope&search=x", "scope does not have a valid value"],
  ])("answers 400 for %s", async (path, error) => {
    const res = await f.api(path);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error });
  });
});
