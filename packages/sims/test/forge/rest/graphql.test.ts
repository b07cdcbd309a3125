import { describe, expect, it } from "vitest";
import { freshForge } from "../helpers.js";

// rest/graphql.ts over HTTP on the default dataset.
const { sim } = freshForge();

describe("GraphQL (POST /api/graphql)", () => {
  const gql = (query: string, variables?: unknown, token: string | null = "sim-forge-pat") =>
    fetch(`${sim.origin}/api/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query, variables }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  it.each([
    ["currentUser", "{ currentUser { username } }", { currentUser: { username: "alice" } }],
    [
      "aliases and variables",
      "query($p: ID!) { w: project(fullPath: $p) { fullPath } }",
      { w: { fullPath: "acme/widgets" } },
    ],
    ["metadata", "{ metadata { version } }", { metadata: { version: expect.any(String) } }],
    ["group", '{ group(fullPath: "acme") { name } }', { group: { name: "Acme" } }],
    ["unknown project", '{ project(fullPath: "no/such") { name } }', { project: null }],
    [
      "connection with first",
      '{ project(fullPath: "acme/widgets") { issues(state: opened, first: 1) { count nodes { iid } pageInfo { hasNextPage } } } }',
      { project: { issues: { count: 2, nodes: [{ iid: "2" }], pageInfo: { hasNextPage: true } } } },
    ],
  ])("%s", async (_n, query, data) => {
    const r = await gql(query, { p: "acme/widgets" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data });
  });

  it.each([
    [
      "a mutation it does not have",
      "mutation { createIssue(input: {}) { errors } }",
      /Field 'createIssue' doesn't exist on type 'Mutation'/,
    ],
    ["a subscription", "subscription { issueUpdated { id } }", /no subscriptions/],
    ["unknown field", "{ nope }", /Field 'nope' doesn't exist on type 'Query'/],
    ["scalar without selection", '{ project(fullPath: "acme/widgets") }', /must have a selection/],
    ["named fragments", "{ currentUser { ...F } } fragment F on UserCore { id }", /Only inline fragments/],
    ["missing variable", "query($p: ID!) { project(fullPath: $p) { name } }", /Variable \$p/],
  ])("%s → errors", async (_n, query, message) => {
    const r = await gql(query, {});
    expect(r.status).toBe(200);
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors[0].message).toMatch(message);
  });

  it("anonymous: no current user, public projects only; a bad token is 401", async () => {
    expect(
      (await gql('{ currentUser { id } project(fullPath: "acme/platform/infra") { name } }', {}, null)).body,
    ).toEqual({
      data: { currentUser: null, project: null },
    });
    expect((await gql("{ currentUser { id } }", {}, "nope")).status).toBe(401);
  });
});
