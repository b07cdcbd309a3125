import express from "express";
import { describe, expect, it } from "vitest";
import type { SimContext } from "../../../src/core/sim.js";
import { RESOURCES } from "../../../src/forge/index.js";
import type { ForgeState } from "../../../src/forge/model/state.js";
import {
  ambiguousPairs,
  collectRoutes,
  mountResources,
  type Route,
  type Routes,
} from "../../../src/forge/wire/router.js";

const route = (path: string, method: Route["method"] = "get"): Route => ({
  method,
  path,
  handlers: [],
  resource: "test",
});
const clashes = (...paths: string[]) =>
  ambiguousPairs(paths.map((p) => route(p))).map(([a, b]) => [a.path, b.path]);

describe("forge router", () => {
  it("refuses two routes of one method that could match one path with neither the more specific", () => {
    expect(clashes("/projects/:id/labels/:label_id", "/projects/:id/labels/:name")).toEqual([
      ["/projects/:id/labels/:label_id", "/projects/:id/labels/:name"],
    ]);
    // crossing: /a/b/c matches both, each literal where the other has a parameter
    expect(clashes("/a/:x/c", "/a/b/:y")).toHaveLength(1);
    expect(clashes("/projects/:id/*path", "/*prefix/:id/raw")).toHaveLength(1);
    // a literal against a parameter, or a wildcard, in the same place is ranked, not ambiguous
    expect(clashes("/pipelines/latest", "/pipelines/:pipeline_id")).toEqual([]);
    expect(clashes("/jobs/:job_id/artifacts/tree", "/jobs/:job_id/artifacts/*path")).toEqual([]);
    // paths that cannot meet, and other methods, never clash
    expect(clashes("/projects/:id", "/projects/:id/labels")).toEqual([]);
    expect(ambiguousPairs([route("/a/:x"), route("/a/:y", "post")])).toEqual([]);
  });

  it("registers no two forge routes ambiguously", () => {
    // registering reads nothing from the context: handlers only close over it
    const routes = collectRoutes(RESOURCES, {} as SimContext<ForgeState>);
    expect(routes.length).toBeGreaterThan(200);
    expect(ambiguousPairs(routes).map(([a, b]) => `${a.method} ${a.path} / ${b.path}`)).toEqual([]);
  });

  it("answers a path with its most specific route whatever order the resources come in", async () => {
    const byParam = (r: Routes) => r.get("/pipelines/:pipeline_id", (_q, s) => void s.send("by id"));
    const latest = (r: Routes) => r.get("/pipelines/latest", (_q, s) => void s.send("latest"));
    for (const order of [
      [byParam, latest],
      [latest, byParam],
    ]) {
      const app = express();
      mountResources(app, "/api/v4", order, {});
      const server = app.listen(0);
      const { port } = server.address() as { port: number };
      try {
        const text = async (path: string) => (await fetch(`http://127.0.0.1:${port}${path}`)).text();
        expect(await text("/api/v4/pipelines/latest")).toBe("latest");
        expect(await text("/api/v4/pipelines/7")).toBe("by id");
      } finally {
        server.close();
      }
    }
  });

  it("refuses to start with ambiguous routes, naming both", () => {
    const a = (r: Routes) => r.get("/groups/:id/hooks", () => undefined);
    const b = (r: Routes) => r.get("/groups/:group_id/hooks", () => undefined);
    expect(() => mountResources(express(), "/api/v4", [a, b], {})).toThrow(
      "ambiguous routes: GET /groups/:id/hooks (a) and /groups/:group_id/hooks (b)",
    );
  });
});
