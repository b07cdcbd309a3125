import { describe, expect, it } from "vitest";
import { del, freshForge, post, put } from "../helpers.js";

// rest/releases.ts and rest/wikis.ts over HTTP on the default dataset.
const { f } = freshForge();

const P = "/projects/1";
const bob = { "private-token": "sim-forge-pat-bob" };

describe("releases and wiki", () => {
  it("creates a release on an existing tag, or creates the tag from ref; refuses without ref (422)", async () => {
    expect((await f.api(`${P}/releases`, post({ tag_name: "v1.4.0", description: "notes" }))).status).toBe(
      201,
    );
    expect((await f.api(`${P}/releases`, post({ tag_name: "v1.4.0" }))).status).toBe(409);
    expect((await f.api(`${P}/releases`, post({ tag_name: "v2.0.0" }))).status).toBe(422);
    const r = await f.api(`${P}/releases`, post({ tag_name: "v2.0.0", ref: "main", name: "Two" }));
    expect(r.status).toBe(201);
    expect(r.body.commit.id).toBe((await f.api(`${P}/repository/branches/main`)).body.commit.id);
    expect((await f.api(`${P}/repository/tags/v2.0.0`)).status).toBe(200);
    expect(
      (await f.api(`${P}/releases`, post({ tag_name: "v3", ref: "main", milestones: ["nope"] }))).status,
    ).toBe(400);
    expect(
      (await f.api(`${P}/releases?sort=asc&order_by=created_at`)).body.map((x: any) => x.tag_name),
    ).toEqual(["v1.4.0", "v2.0.0"]);
    expect((await f.api(`${P}/releases/v2.0.0`, del)).body.name).toBe("Two");
    expect((await f.api(`${P}/releases/v2.0.0`)).status).toBe(404);
    expect((await f.api(`${P}/releases`, post({ tag_name: "v9", ref: "main" }, bob))).status).toBe(201);
    expect((await f.api(`${P}/releases/v9`, { ...del, headers: bob })).status).toBe(403);
  });

  it("wiki: slug from title, duplicate refused, content only with with_content, rename moves the slug", async () => {
    const w = await f.api(`${P}/wikis`, post({ title: "How we deploy", content: "push" }));
    expect(w.body).toMatchObject({ slug: "How-we-deploy", format: "markdown", content: "push" });
    expect((await f.api(`${P}/wikis`, post({ title: "How we deploy", content: "x" }))).status).toBe(400);
    expect((await f.api(`${P}/wikis`)).body).toEqual([
      { format: "markdown", slug: "How-we-deploy", title: "How we deploy", encoding: "UTF-8" },
    ]);
    expect((await f.api(`${P}/wikis?with_content=1`)).body[0].content).toBe("push");
    expect((await f.api(`${P}/wikis/How-we-deploy`, put({ title: "Deploying" }))).body.slug).toBe(
      "Deploying",
    );
    expect((await f.api(`${P}/wikis/How-we-deploy`)).status).toBe(404);
    expect((await f.api(`${P}/wikis/Deploying`, del)).status).toBe(204);
  });
});
