import { describe, expect, it } from "vitest";
import { BOB, del, freshForge, post, put, send } from "../helpers.js";

// rest/triggers.ts over HTTP on the default dataset: alice owns acme/widgets (project 1); bob is a
// Developer there; root is an administrator (a maintainer everywhere).
const { f } = freshForge();

const P = "/projects/1";
const ROOT = { "private-token": "sim-forge-pat-root" };

describe("pipeline trigger tokens", () => {
  it("shows the token to its owner only, lets only the owner rename it, and is for maintainers", async () => {
    const made = await f.api(`${P}/triggers`, post({ description: "deploy bot" }));
    expect(made.status).toBe(201);
    expect(made.body.token).toMatch(/^glptt-[0-9a-zA-Z]{40}$/);
    const at = `${P}/triggers/${made.body.id}`;
    expect((await f.api(at)).body.token).toBe(made.body.token);
    expect((await f.api(at, { headers: ROOT })).body.token).toBe("glpt");
    expect((await f.api(`${P}/triggers`, { headers: ROOT })).body).toEqual([
      expect.objectContaining({ token: "glpt", owner: expect.objectContaining({ username: "alice" }) }),
    ]);
    expect((await f.api(at, send("PUT", { description: "x" }, ROOT))).status).toBe(403);
    expect((await f.api(at, put({ description: "release bot" }))).body.description).toBe("release bot");
    expect((await f.api(`${P}/triggers`, { headers: BOB })).status).toBe(403);
    expect((await f.api(`${P}/triggers`, post({}))).body).toEqual({ error: "description is missing" });
    expect((await f.api(`${P}/triggers/999`)).body).toEqual({ message: "404 Trigger Not Found" });
    expect((await f.api(at, del)).status).toBe(204);
    expect((await f.api(at)).status).toBe(404);
  });

  it("runs a pipeline as the trigger's owner with the token from the body or the query, never echoing it", async () => {
    const t = (await f.api(`${P}/triggers`, post({ description: "ci" }))).body;
    const run = await f.api(
      `${P}/trigger/pipeline`,
      post({ token: t.token, ref: "main", variables: { A: "1" } }),
    );
    expect(run.status).toBe(201);
    expect(run.body).toMatchObject({ ref: "main", source: "trigger" });
    const vars = await f.api(`${P}/pipelines/${run.body.id}/variables`);
    expect(vars.body).toEqual([{ key: "A", value: "1", variable_type: "env_var" }]);
    expect((await f.api(`${P}/triggers/${t.id}`)).body.last_used).not.toBeNull();
    const query = await f.api(`${P}/trigger/pipeline?token=${t.token}&ref=main`, { method: "POST" });
    expect(query.status).toBe(201);
    const wrong = await f.api(
      `${P}/trigger/pipeline`,
      post({ token: "glptt-wrong-token-value", ref: "main" }),
    );
    expect(wrong.status).toBe(404);
    expect(JSON.stringify(wrong.body)).not.toContain("wrong-token");
    const badRef = await f.api(`${P}/trigger/pipeline`, post({ token: t.token, ref: "nope" }));
    expect(badRef.body).toEqual({ message: { base: ["Reference not found"] } });
    expect(JSON.stringify(badRef.body)).not.toContain(t.token);
    // a token works for its own project only
    expect((await f.api("/projects/2/trigger/pipeline", post({ token: t.token, ref: "main" }))).status).toBe(
      404,
    );
  });
});
