import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningSim } from "../../../src/index.js";
import { forge, startForge } from "../helpers.js";

// rest/orbit.ts over HTTP on the default dataset: the knowledge graph of what the caller may read.
// alice owns acme (acme/platform/infra is private); dave is no member of acme. Orbit only reads,
// so the file shares one simulator.
let sim: RunningSim;
let f: ReturnType<typeof forge>;
beforeAll(async () => {
  sim = await startForge();
  f = forge(sim);
});
afterAll(() => sim?.close());

const query = (body: unknown, token?: string) =>
  f.api("/orbit/query", { method: "POST", body: JSON.stringify(body), ...(token ? { token } : {}) });
const raw = (q: unknown, token?: string) => query({ query: q, format: "raw" }, token);

describe("Orbit (knowledge graph)", () => {
  it("answers its schema, status and tool manifest to a signed-in user, and 401 to nobody", async () => {
    const schema = (await f.api("/orbit/schema")).body;
    expect(schema.nodes.map((n: { name: string }) => n.name)).toEqual([
      "Group",
      "Project",
      "User",
      "Issue",
      "MergeRequest",
      "Pipeline",
    ]);
    expect(schema.edges).toContainEqual({ name: "HAS_MERGE_REQUEST", from: "Project", to: "MergeRequest" });
    const status = (await f.api("/orbit/status")).body;
    expect(status).toMatchObject({ status: "ready", node_counts: { Project: 4, MergeRequest: 2 } });
    expect((await f.api("/orbit/tools")).body.tools.length).toBeGreaterThan(0);
    const anonymous = await fetch(`${f.url}/orbit/schema`);
    expect(anonymous.status).toBe(401);
  });

  it("follows a relationship: a project's merge requests with the columns asked for", async () => {
    const r = await raw({
      query_type: "traversal",
      nodes: [
        { id: "p", entity: "Project", filters: { full_path: "acme/widgets" } },
        { id: "mr", entity: "MergeRequest", columns: ["iid", "title"] },
      ],
      relationships: [{ type: "HAS_MERGE_REQUEST", from: "p", to: "mr" }],
      limit: 10,
    });
    expect(r.status).toBe(200);
    expect(r.body.row_count).toBe(2);
    expect(r.body.rows.map((x: any) => x.mr.title)).toEqual(["Cache widget layouts", "Fix typo in README"]);
    expect(r.body.rows[0].p).toEqual({ entity: "Project", id: 1 });
  });

  it("answers the llm format as compact text, one line per row", async () => {
    const r = await query({
      query: {
        query_type: "traversal",
        node: { id: "u", entity: "User", filters: { username: "bob" }, columns: ["username"] },
      },
    });
    expect(r.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(r.body).toBe('@header query_type=traversal rows=1 columns=u\nentity="User" id=2 username="bob"\n');
  });

  it("finds a node's neighbours, both ways", async () => {
    const r = await raw({
      query_type: "neighbors",
      node: { id: "i", entity: "Issue", node_ids: [1] },
      neighbors: { direction: "incoming" },
    });
    expect(r.body.rows.map((x: any) => `${x.relationship.type} ${x.neighbor.entity}`).sort()).toEqual([
      "ASSIGNED User",
      "AUTHORED User",
      "HAS_ISSUE Project",
    ]);
  });

  it("shows only what the caller may read: dave sees no private project nor its confidential issue", async () => {
    const projects = async (token?: string) =>
      (
        await raw(
          { query_type: "traversal", node: { id: "p", entity: "Project", columns: ["full_path"] } },
          token,
        )
      ).body.rows.map((x: any) => x.p.full_path);
    expect(await projects()).toContain("acme/platform/infra");
    expect(await projects("sim-forge-pat-dave")).not.toContain("acme/platform/infra");
    const issues = await raw(
      { query_type: "traversal", node: { id: "i", entity: "Issue", filters: { confidential: true } } },
      "sim-forge-pat-dave",
    );
    expect(issues.body.rows).toEqual([]);
  });

  it.each([
    ["an unknown entity", { query_type: "traversal", node: { entity: "Widget" } }, /unknown entity/],
    [
      "an unknown column",
      { query_type: "traversal", node: { entity: "Project", columns: ["stars"] } },
      /no property/,
    ],
    ["node and nodes together", { query_type: "traversal", node: { entity: "User" }, nodes: [] }, /not both/],
    ["a limit past 1000", { query_type: "traversal", node: { entity: "User" }, limit: 5000 }, /limit/],
    ["aggregation", { query_type: "aggregation", node: { entity: "User" } }, /not available on this forge/],
    ["an unknown query type", { query_type: "search", node: { entity: "User" } }, /query_type must be/],
  ])("refuses %s with 400", async (_n, q, message) => {
    const r = await raw(q);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(message);
  });
});
