import { describe, expect, it } from "vitest";
import { freshForge } from "../helpers.js";

// rest/users.ts over HTTP on the default dataset.
const { f, sim } = freshForge();

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
