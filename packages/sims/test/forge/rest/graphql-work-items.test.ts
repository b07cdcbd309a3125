import { describe, expect, it } from "vitest";
import { freshForge } from "../helpers.js";

// rest/graphql-work-items.ts over HTTP on the default dataset: alice owns acme, bob is a developer
// there, carol is no member of acme (acme/widgets is public).
const { f, sim } = freshForge();

const as = (who: "alice" | "bob" | "carol" | "dave") =>
  who === "alice" ? "sim-forge-pat" : `sim-forge-pat-${who}`;
const json = (body: unknown) => JSON.stringify(body);

describe("GraphQL additions", () => {
  const gql = async (
    query: string,
    variables: unknown = {},
    who: "alice" | "bob" | "carol" | "dave" = "alice",
  ) => {
    const r = await fetch(`${sim.origin}/api/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${as(who)}` },
      body: json({ query, variables }),
    });
    return (await r.json()) as any;
  };

  it("an inline fragment applies to its own type only", async () => {
    const r = await gql("{ currentUser { ... on UserCore { username } ... on Project { name } } }");
    expect(r).toEqual({ data: { currentUser: { username: "alice" } } });
  });

  it("vulnerabilities need developer access: carol sees none, alice sees them", async () => {
    await f.control("POST", "/seed", { vulnerabilities: [{ project: "acme/widgets", title: "XSS" }] });
    const q = '{ project(fullPath: "acme/widgets") { vulnerabilities { nodes { title state } } } }';
    expect((await gql(q, {}, "carol")).data.project.vulnerabilities.nodes).toEqual([]);
    expect((await gql(q)).data.project.vulnerabilities.nodes).toEqual([{ title: "XSS", state: "DETECTED" }]);
  });

  it("a work item change needs reporter access; a type that does not exist is refused", async () => {
    const id = (await gql('{ project(fullPath: "acme/widgets") { workItems(iid: "1") { nodes { id } } } }'))
      .data.project.workItems.nodes[0].id;
    const update = 'mutation($id: WorkItemID!) { workItemUpdate(input: {id: $id, title: "x"}) { errors } }';
    expect((await gql(update, { id }, "carol")).errors[0].message).toMatch(/don't have permission/);
    const convert =
      'mutation($id: WorkItemID!) { workItemConvert(input: {id: $id, workItemTypeId: "gid://gitlab/WorkItems::Type/99"}) { errors } }';
    expect((await gql(convert, { id })).errors[0].message).toMatch(/Work item type .* does not exist/);
  });

  it("work items page with first/after cursors", async () => {
    const page = async (after?: string) =>
      (
        await gql(
          'query($after: String) { project(fullPath: "acme/widgets") { workItems(first: 1, after: $after) { nodes { iid } pageInfo { hasNextPage endCursor } } } }',
          { after },
        )
      ).data.project.workItems;
    const one = await page();
    const two = await page(one.pageInfo.endCursor);
    expect(one.nodes[0].iid).not.toBe(two.nodes[0].iid);
    expect(one.pageInfo.hasNextPage).toBe(true);
  });

  // namespace(fullPath:): where GitLab 17+ serves work items by iid and the work item types
  it.each([
    [
      "a project's namespace",
      "acme/widgets",
      "alice",
      {
        __typename: "Namespace",
        fullPath: "acme/widgets",
        workItem: {
          title: "Widgets render slowly on large dashboards",
          description: expect.stringMatching(/200 widgets/),
        },
      },
    ],
    [
      "a group's namespace (no group work items here)",
      "acme",
      "alice",
      { __typename: "Namespace", fullPath: "acme", workItem: null },
    ],
    ["a private project a non-member cannot see", "acme/platform/infra", "dave", null],
    ["a path that names nothing", "acme/nothing", "alice", null],
  ])("namespace: %s", async (_n, path, who, want) => {
    const q =
      'query($p: ID!) { namespace(fullPath: $p) { __typename fullPath workItem(iid: "1") { title description } } }';
    expect((await gql(q, { p: path }, who as "alice" | "dave")).data.namespace).toEqual(want);
  });

  it("namespace's work item types carry the hierarchy and the conversions", async () => {
    const q =
      '{ namespace(fullPath: "acme/widgets") { workItemTypes(name: TASK) { nodes { name supportedConversionTypes { name } widgetDefinitions { __typename ... on WorkItemWidgetDefinitionHierarchy { allowedParentTypes { nodes { name } } } } } } } }';
    const [task] = (await gql(q)).data.namespace.workItemTypes.nodes;
    expect(task.name).toBe("Task");
    expect(task.supportedConversionTypes.map((t: { name: string }) => t.name)).toContain("Issue");
    expect(task.widgetDefinitions[0].allowedParentTypes.nodes.map((t: { name: string }) => t.name)).toEqual([
      "Issue",
      "Incident",
      "Ticket",
    ]);
  });
});
