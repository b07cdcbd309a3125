import { describe, expect, it } from "vitest";
import { BOB, freshForge, send } from "../helpers.js";

// rest/variables.ts (project and group twins) over HTTP on the default dataset: alice owns
// acme/widgets (project 1) and the acme group; bob is a Developer in both.
const { f } = freshForge();

const P = "/projects/1";
const bob = BOB;

describe("CI/CD variables", () => {
  it.each([
    ["project", P, bob],
    ["group", "/groups/acme", bob],
  ])(
    "%s: a key once per scope, filter picks one, 409 without it; developers refused",
    async (_n, base, dev) => {
      const v = `${base}/variables`;
      expect((await f.api(v, send("POST", { key: "TOKEN", value: "one-value" }))).status).toBe(201);
      expect((await f.api(v, send("POST", { key: "TOKEN", value: "two" }))).status).toBe(400);
      const prod = { key: "TOKEN", value: "prod-value", environment_scope: "production" };
      expect((await f.api(v, send("POST", prod))).status).toBe(201);
      expect((await f.api(`${v}/TOKEN`)).status).toBe(409);
      const one = await f.api(`${v}/TOKEN?filter[environment_scope]=production`);
      expect(one.body).toMatchObject({ key: "TOKEN", value: "prod-value", environment_scope: "production" });
      expect((await f.api(v, send("POST", { key: "bad-key", value: "x" }))).status).toBe(400);
      expect((await f.api(v, send("POST", { key: "SHORT", value: "abc", masked: true }))).status).toBe(400);
      const hidden = await f.api(
        v,
        send("POST", { key: "HIDDEN", value: "hidden-value", masked_and_hidden: true }),
      );
      expect(hidden.body).toMatchObject({ value: null, hidden: true, masked: true });
      expect((await f.api(v, send("GET", undefined, dev))).status).toBe(403);
      const put = `${v}/TOKEN?filter[environment_scope]=*`;
      expect((await f.api(put, send("PUT", { protected: true }))).status).toBe(400);
      expect((await f.api(put, send("PUT", { value: "one-value-2", protected: true }))).body).toMatchObject({
        value: "one-value-2",
        protected: true,
      });
      expect((await f.api(`${v}/TOKEN?filter[environment_scope]=*`, send("DELETE"))).status).toBe(204);
      expect((await f.api(`${v}/TOKEN`)).body.environment_scope).toBe("production");
    },
  );
});
