import { describe, expect, it } from "vitest";
import { freshForge } from "./helpers.js";

// The defects clients written by others (gitlab-mcp, python-gitlab) hit in the forge simulator,
// each proven over HTTP against the default dataset: Grape's Boolean spellings, labels with real
// ids, a release's full commit, projects owned through a group, omitted nullable GraphQL
// variables, and GitLab's plain `application/json` content type.
const { f, sim } = freshForge();

const P = "/projects/1";
const bob = { "private-token": "sim-forge-pat-bob" };
const body = (method: string, b: unknown) => ({ method, body: JSON.stringify(b) });
const paths = (rows: Array<{ path: string }>) => rows.map((r) => r.path).sort();

describe("Boolean query values are read as Grape reads them", () => {
  it.each(["true", "True", "TRUE", "t", "yes", "1", "on"])("recursive=%s lists nested files", async (v) => {
    const tree = (await f.api(`${P}/repository/tree?recursive=${v}&per_page=100`)).body;
    expect(paths(tree)).toContain("src/widget.ts");
  });

  it.each(["false", "False", "f", "no", "0"])("recursive=%s stays at the top level", async (v) => {
    const tree = (await f.api(`${P}/repository/tree?recursive=${v}&per_page=100`)).body;
    expect(paths(tree)).not.toContain("src/widget.ts");
  });

  it.each(["True", "yes"])("owned=%s filters the project list", async (v) => {
    const rows = (await f.api(`/projects?owned=${v}`, { headers: bob })).body;
    expect(rows.map((p: { path: string }) => p.path).sort()).toEqual(["dotfiles", "experiments"]);
  });
});

describe("owned=true", () => {
  it.each([
    ["alice owns acme: its projects and its subgroup's", "sim-forge-pat", ["infra", "widgets"]],
    ["bob: his namespace and the group he owns (labs)", "sim-forge-pat-bob", ["dotfiles", "experiments"]],
    ["carol owns nothing", "sim-forge-pat-carol", []],
  ])("%s", async (_n, token, expected) => {
    const rows = (await f.api("/projects?owned=true", { headers: { "private-token": token } })).body;
    expect(rows.map((p: { path: string }) => p.path).sort()).toEqual(expected);
  });
});

describe("labels have real ids", () => {
  it("every label listed (also those only named on issues) reads back by id and by name", async () => {
    const listed = (await f.api(`${P}/labels`)).body as Array<{ id: number; name: string }>;
    expect(listed.map((l) => l.name)).toEqual(expect.arrayContaining(["bug", "feature", "performance"]));
    for (const l of listed) {
      expect((await f.api(`${P}/labels/${l.id}`)).body.name).toBe(l.name);
      expect((await f.api(`${P}/labels/${encodeURIComponent(l.name)}`)).body.id).toBe(l.id);
    }
    // the ids are stable: a second listing gives the same ones
    expect((await f.api(`${P}/labels`)).body.map((l: { id: number }) => l.id)).toEqual(
      listed.map((l) => l.id),
    );
  });

  it("POST of a name already in use (only on issues so far) is 409", async () => {
    const res = await f.api(`${P}/labels`, body("POST", { name: "bug", color: "#ff0000" }));
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ message: "Label already exists" });
    expect((await f.api(`${P}/labels`)).body.filter((l: { name: string }) => l.name === "bug")).toHaveLength(
      1,
    );
  });

  it.each([
    ["PUT /labels/:name", "/labels/bug", { color: "#00ff00" }],
    ["PUT /labels with the name in the body", "/labels", { name: "bug", color: "#00ff00" }],
  ])("%s updates the label", async (_n, path, b) => {
    const res = await f.api(`${P}${path}`, body("PUT", b));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "bug", color: "#00ff00" });
    expect((await f.api(`${P}/labels/bug`)).body.color).toBe("#00ff00");
  });

  it.each([
    ["an unknown name → 404", { name: "nope", color: "#00ff00" }, 404],
    ["no name at all → 400", { color: "#00ff00" }, 400],
  ])("PUT /labels with %s", async (_n, b, status) => {
    expect((await f.api(`${P}/labels`, body("PUT", b))).status).toBe(status);
  });

  it("DELETE /labels with the name in the body removes it", async () => {
    expect((await f.api(`${P}/labels`, body("DELETE", { name: "feature" }))).status).toBe(204);
    expect((await f.api(`${P}/labels/feature`)).status).toBe(404);
  });
});

describe("a release's commit", () => {
  it("carries GitLab's commit fields", async () => {
    await f.api(`${P}/releases`, body("POST", { tag_name: "v1.4.0", name: "1.4.0" }));
    const r = (await f.api(`${P}/releases/v1.4.0`)).body;
    expect(Object.keys(r.commit).sort()).toEqual(
      expect.arrayContaining([
        "author_email",
        "author_name",
        "authored_date",
        "committed_date",
        "committer_email",
        "committer_name",
        "created_at",
        "id",
        "message",
        "parent_ids",
        "short_id",
        "title",
      ]),
    );
    const c = (await f.api(`${P}/repository/commits/${r.commit.id}`)).body;
    expect(r.commit).toMatchObject({
      message: c.message,
      parent_ids: c.parent_ids,
      created_at: c.created_at,
    });
  });
});

describe("GraphQL variables", () => {
  const gql = (query: string, variables: Record<string, unknown> = {}) =>
    fetch(`${sim.origin}/api/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "private-token": "sim-forge-pat" },
      body: JSON.stringify({ query, variables }),
    }).then(async (r) => (await r.json()) as { data?: any; errors?: Array<{ message: string }> });

  it.each([
    [
      "an omitted nullable variable is null",
      'query($s: IssuableState) { project(fullPath: "acme/widgets") { issues(state: $s) { nodes { iid } } } }',
      undefined,
    ],
    [
      "an omitted non-null variable is an error",
      'query($s: IssuableState!) { project(fullPath: "acme/widgets") { issues(state: $s) { nodes { iid } } } }',
      "$s",
    ],
  ])("%s", async (_n, query, error) => {
    const out = await gql(query);
    if (error) expect(out.errors?.[0]?.message).toContain(error);
    else expect(out.data.project.issues.nodes.length).toBeGreaterThan(0);
  });
});

describe("Content-Type", () => {
  it.each([
    ["a REST list", "/api/v4/projects", "GET"],
    ["a REST 404", "/api/v4/projects/999", "GET"],
    ["GraphQL", "/api/graphql", "POST"],
  ])("%s is application/json without a charset", async (_n, path, method) => {
    const res = await fetch(`${sim.origin}${path}`, {
      method,
      headers: { "private-token": "sim-forge-pat", "content-type": "application/json" },
      ...(method === "POST" ? { body: JSON.stringify({ query: "{ currentUser { username } }" }) } : {}),
    });
    expect(res.headers.get("content-type")).toBe("application/json");
  });

  it.each([
    ["an injected fault", { method: "GET" }, true],
    [
      "a malformed JSON body",
      { method: "POST", body: "{", headers: { "content-type": "application/json" } },
      false,
    ],
  ])("%s is application/json without a charset", async (_n, init, fault) => {
    if (fault)
      await fetch(`${sim.origin}/_sim/faults`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          rules: [{ path: "^/api/v4/projects$", action: { type: "status", status: 503 } }],
        }),
      });
    const res = await fetch(`${sim.origin}/api/v4/projects`, {
      ...init,
      headers: {
        "private-token": "sim-forge-pat",
        ...(init as { headers?: Record<string, string> }).headers,
      },
    });
    await fetch(`${sim.origin}/_sim/faults`, { method: "DELETE" });
    expect(res.status).toBe(fault ? 503 : 400);
    expect(res.headers.get("content-type")).toBe("application/json");
  });
});

describe("a merge request's draft status follows its title", () => {
  it.each([
    ["a title without the prefix marks it ready", { title: "Cache layouts" }, false],
    ["a title with the prefix makes it a draft", { title: "Draft: Cache layouts" }, true],
    ["draft=false wins over the title", { title: "Draft: Cache layouts", draft: false }, false],
  ])("%s", async (_n, b, draft) => {
    await f.api(`${P}/merge_requests/1`, body("PUT", { draft: !draft }));
    expect((await f.api(`${P}/merge_requests/1`, body("PUT", b))).body.draft).toBe(draft);
  });
});

describe("GraphQL mutation createNote", () => {
  const gql = (query: string, token: string) =>
    fetch(`${sim.origin}/api/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ query }),
    }).then(async (r) => (await r.json()) as { data?: any; errors?: Array<{ message: string }> });
  const create = (noteable: string, text: string) =>
    `mutation { createNote(input: { noteableId: "${noteable}", body: "${text}" }) { note { body author { username } } errors } }`;

  it.each([
    ["on an issue with the api scope", "gid://gitlab/Issue/1", "sim-forge-pat", "created"],
    ["with read_api only", "gid://gitlab/Issue/1", "sim-forge-pat-read", "refused"],
    ["on an unknown issue", "gid://gitlab/Issue/999", "sim-forge-pat", "refused"],
  ])("%s: %s", async (_n, noteable, token, outcome) => {
    const out = await gql(create(noteable, "from graphql"), token);
    if (outcome === "created") {
      expect(out.data.createNote).toEqual({
        note: { body: "from graphql", author: { username: "alice" } },
        errors: [],
      });
      const notes = (await f.api(`${P}/issues/1/notes`)).body as Array<{ body: string }>;
      expect(notes.map((n) => n.body)).toContain("from graphql");
    } else expect(out.errors?.[0]?.message).toMatch(/don't have permission/);
  });
});
