import { describe, expect, it } from "vitest";
import { freshForge, send } from "../helpers.js";

// rest/graphql-catalog.ts over HTTP on the default dataset: alice owns acme/widgets (project 1) and
// the acme group; bob is a Developer in both.
const { f } = freshForge();

describe("the CI/CD catalog (GraphQL)", () => {
  const gql = async (query: string, variables: Record<string, unknown> = {}) =>
    (
      await f.api(
        "/../graphql",
        send("POST", { query, variables }, { authorization: "Bearer sim-forge-pat", "private-token": "" }),
      )
    ).body;
  const component = (name: string) => ({
    [`templates/${name}.yml`]: `spec:\n  inputs:\n    stage:\n      default: test\n---\n${name}:\n  script: x\n`,
  });

  it("lists component projects once released, pages them, and reads versions, components and inputs", async () => {
    await f.control("POST", "/seed", {
      projects: ["alpha", "beta", "draft"].map((path) => ({
        namespace: "acme",
        path,
        name: path,
        visibility: "public",
        creator: "alice",
        files: component(`${path}-job`),
      })),
      releases: ["alpha", "beta"].map((p) => ({ project: `acme/${p}`, tag_name: "v2.0.1", ref: "main" })),
    });
    const list = `query($first: Int, $after: String) { ciCatalogResources(first: $first, after: $after, sort: NAME_ASC) { nodes { name fullPath } pageInfo { hasNextPage endCursor } } }`;
    const one = await gql(list, { first: 1 });
    // draft has components but no release: not published
    expect(one.data.ciCatalogResources.nodes).toEqual([{ name: "alpha", fullPath: "acme/alpha" }]);
    expect(one.data.ciCatalogResources.pageInfo.hasNextPage).toBe(true);
    const two = await gql(list, { first: 5, after: one.data.ciCatalogResources.pageInfo.endCursor });
    expect(two.data.ciCatalogResources.nodes).toEqual([{ name: "beta", fullPath: "acme/beta" }]);
    const got = await gql(
      `query($p: ID) { ciCatalogResource(fullPath: $p) { id versions(first: 1) { nodes { name semver { major minor patch } components(first: 5) { nodes { name includePath inputs { name required default } } } } } } }`,
      { p: "acme/beta" },
    );
    const r = got.data.ciCatalogResource;
    expect(r.id).toMatch(/^gid:\/\/gitlab\/Ci::Catalog::Resource\/\d+$/);
    expect(r.versions.nodes[0]).toMatchObject({
      name: "v2.0.1",
      semver: { major: 2, minor: 0, patch: 1 },
      components: {
        nodes: [{ name: "beta-job", inputs: [{ name: "stage", required: false, default: "test" }] }],
      },
    });
    expect(r.versions.nodes[0].components.nodes[0].includePath).toMatch(/\/acme\/beta\/beta-job@2\.0\.1$/);
    const byId = await gql(`query($id: CiCatalogResourceID) { ciCatalogResource(id: $id) { fullPath } }`, {
      id: r.id,
    });
    expect(byId.data.ciCatalogResource.fullPath).toBe("acme/beta");
    expect(
      (await gql(`{ ciCatalogResource(fullPath: "acme/draft") { id } }`)).data.ciCatalogResource,
    ).toBeNull();
  });
});
