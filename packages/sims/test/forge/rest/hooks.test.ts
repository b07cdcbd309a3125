import { describe, expect, it } from "vitest";
import { freshForge } from "../helpers.js";

// rest/hooks.ts, wikis.ts, iterations.ts, groups.ts (POST /groups), dependency-proxy.ts, uploads.ts
// and releases.ts (evidence, downloads) over HTTP on the default dataset: alice owns acme, bob is a
// developer there, carol is no member of acme (acme/widgets is public).
const { f, sim } = freshForge();

const as = (who: "alice" | "bob" | "carol") => (who === "alice" ? "sim-forge-pat" : `sim-forge-pat-${who}`);
const json = (body: unknown) => JSON.stringify(body);

describe("REST: who may", () => {
  it.each([
    [
      "bob (developer) writes a group wiki page",
      "bob",
      "POST",
      "/groups/acme/wikis",
      { title: "T", content: "c" },
      201,
    ],
    ["carol (no member) may not", "carol", "POST", "/groups/acme/wikis", { title: "T", content: "c" }, 403],
    ["bob (developer) may not read a project's hooks", "bob", "GET", "/projects/1/hooks", undefined, 403],
    ["alice (owner) reads a group's hooks", "alice", "GET", "/groups/acme/hooks", undefined, 200],
    ["bob (developer) may not read a group's hooks", "bob", "GET", "/groups/acme/hooks", undefined, 403],
    [
      "bob (developer) may not create a subgroup",
      "bob",
      "POST",
      "/groups",
      { name: "X", path: "x", parent_id: 1 },
      403,
    ],
    ["a taken top-level path is refused", "alice", "POST", "/groups", { name: "Acme 2", path: "acme" }, 400],
    [
      "bob (developer) may not purge the dependency proxy",
      "bob",
      "DELETE",
      "/groups/acme/dependency_proxy/cache",
      undefined,
      403,
    ],
    [
      "an unsigned tag has no signature",
      "alice",
      "GET",
      "/projects/1/repository/tags/v1.4.0/signature",
      undefined,
      404,
    ],
  ])("%s", async (_n, who, method, path, body, status) => {
    const r = await f.api(path, { method, token: as(who as "alice"), ...(body ? { body: json(body) } : {}) });
    expect(r.status, JSON.stringify(r.body)).toBe(status);
  });

  it("iterations: state from the dates, opened = upcoming and current", async () => {
    await f.control("POST", "/seed", {
      iterations: [
        { group: "acme", title: "past", start_date: "2000-01-01", due_date: "2000-01-14" },
        { group: "acme", title: "now", start_date: "2000-01-15", due_date: "2999-12-31" },
        { group: "acme", title: "later", start_date: "2999-01-01", due_date: "2999-01-14" },
      ],
    });
    const titles = async (state: string) =>
      (
        (await f.api(`/groups/acme/iterations?state=${state}`)).body as Array<{
          title: string;
          state: number;
        }>
      ).map((i) => `${i.title}:${i.state}`);
    expect(await titles("opened")).toEqual(["later:1", "now:2"]);
    expect(await titles("closed")).toEqual(["past:3"]);
    expect(await titles("all")).toHaveLength(3);
    expect((await f.api("/groups/acme/iterations?state=bogus")).status).toBe(400);
  });

  it("hook deliveries: newest first, by status class, at most 20 a page", async () => {
    await f.control("POST", "/seed", {
      hooks: [
        {
          project: "acme/widgets",
          url: "https://h.example/x",
          deliveries: [{ response_status: 200 }, { response_status: 404 }, { response_status: 502 }],
        },
      ],
    });
    const hook = (await f.api("/projects/1/hooks")).body[0];
    const statuses = async (q: string) =>
      (
        (await f.api(`/projects/1/hooks/${hook.id}/events${q}`)).body as Array<{ response_status: number }>
      ).map((e) => e.response_status);
    expect(await statuses("")).toEqual([502, 404, 200]);
    expect(await statuses("?status=client_failure")).toEqual([404]);
    expect(await statuses("?status=200")).toEqual([200]);
    expect((await f.api(`/projects/1/hooks/${hook.id}/events?per_page=21`)).status).toBe(400);
  });

  it("creates, changes and deletes a hook; its secret token is kept and never answered", async () => {
    const made = await f.api("/projects/1/hooks", {
      method: "POST",
      body: json({ url: "https://ci.example/hook", token: "s3cret-hook", issues_events: true, name: "CI" }),
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      url: "https://ci.example/hook",
      name: "CI",
      issues_events: true,
      push_events: true,
    });
    const id = made.body.id;
    const changed = await f.api(`/projects/1/hooks/${id}`, {
      method: "PUT",
      body: json({ push_events: false, branch_filter_strategy: "regex", push_events_branch_filter: "^rel" }),
    });
    expect(changed.body).toMatchObject({
      url: "https://ci.example/hook",
      issues_events: true,
      push_events: false,
      branch_filter_strategy: "regex",
      push_events_branch_filter: "^rel",
    });
    for (const answer of [made.body, changed.body, (await f.api(`/projects/1/hooks/${id}`)).body])
      expect(JSON.stringify(answer)).not.toContain("s3cret-hook");
    const dump = await f.control("GET", "/state");
    expect(JSON.stringify(dump)).not.toContain("s3cret-hook");
    expect((await f.api(`/projects/1/hooks/${id}`, { method: "DELETE" })).status).toBe(204);
    expect((await f.api(`/projects/1/hooks/${id}`)).status).toBe(404);
  });

  it.each([
    ["no url", "alice", { token: "t" }, 400],
    ["a url that is no http(s) URL", "alice", { url: "ftp://x.example" }, 400],
    [
      "an unknown branch filter strategy",
      "alice",
      { url: "https://x.example", branch_filter_strategy: "glob" },
      400,
    ],
    ["bob (developer) may not add a project hook", "bob", { url: "https://x.example" }, 403],
  ])("refuses a new hook with %s", async (_n, who, body, status) => {
    const r = await f.api("/projects/1/hooks", {
      method: "POST",
      token: as(who as "alice"),
      body: json(body),
    });
    expect(r.status, JSON.stringify(r.body)).toBe(status);
  });

  it("a group's hooks are written by its owner", async () => {
    const made = await f.api("/groups/acme/hooks", {
      method: "POST",
      body: json({ url: "https://g.example/h" }),
    });
    expect(made.body).toMatchObject({ group_id: 1, url: "https://g.example/h" });
    const bob = await f.api(`/groups/acme/hooks/${made.body.id}`, { method: "DELETE", token: as("bob") });
    expect(bob.status).toBe(403);
  });

  it.each([
    ["innerHTML", ["docs/guide.md", "src/widget.ts"]],
    ["innerHTML extension:md", ["docs/guide.md"]],
    ["innerHTML filename:widget*", ["src/widget.ts"]],
    ["innerHTML path:docs/", ["docs/guide.md"]],
  ])("blob search %s finds %j", async (term, paths) => {
    const r = await f.api(`/projects/1/search?scope=blobs&search=${encodeURIComponent(term)}`);
    expect((r.body as Array<{ path: string }>).map((h) => h.path)).toEqual(paths);
  });

  it("an upload keeps its bytes: what is sent is what is downloaded", async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 255, 10]);
    const form = new FormData();
    form.append("file", new Blob([bytes]), "blob.bin");
    const up = await fetch(`${sim.url}/projects/1/uploads`, {
      method: "POST",
      headers: { "private-token": "sim-forge-pat" },
      body: form,
    });
    expect(up.status).toBe(201);
    const made = (await up.json()) as { url: string; markdown: string };
    expect(made.markdown).toBe(`[blob](${made.url})`);
    const down = await fetch(`${sim.url}/projects/1${made.url}`, {
      headers: { "private-token": "sim-forge-pat" },
    });
    expect(Buffer.from(await down.arrayBuffer())).toEqual(bytes);
    const none = await fetch(`${sim.url}/projects/1/uploads`, {
      method: "POST",
      headers: { "private-token": "sim-forge-pat" },
    });
    expect(none.status).toBe(400);
  });
});
