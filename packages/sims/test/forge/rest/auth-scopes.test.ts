import { describe, expect, it } from "vitest";
import { freshForge } from "../helpers.js";

// rest/auth.ts (tokens and scopes) over HTTP on the default dataset.
const { f, sim } = freshForge();

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
