import { describe, expect, it } from "vitest";
import { freshForge } from "../helpers.js";

// rest/groups.ts over HTTP on the default dataset.
const { f } = freshForge();

const as = (token: string) => ({ headers: { "private-token": token } });

describe("groups", () => {
  it("lists the caller's groups, or all visible ones with all_available", async () => {
    expect((await f.api("/groups")).body.map((g: any) => g.full_path)).toEqual(["acme", "acme/platform"]);
    const all = (await f.api("/groups?all_available=true", as("sim-forge-pat-carol"))).body;
    expect(all.map((g: any) => g.full_path)).toEqual(["acme", "acme/platform", "labs"]);
    const owned = (await f.api("/groups?min_access_level=50", as("sim-forge-pat-bob"))).body;
    expect(owned.map((g: any) => g.full_path)).toEqual(["labs"]);
  });

  it("gets a group by id or path, its subgroups and its projects", async () => {
    const acme = (await f.api("/groups/acme")).body;
    expect(acme).toMatchObject({ full_path: "acme", parent_id: null });
    expect((await f.api(`/groups/${acme.id}/subgroups`)).body.map((g: any) => g.full_path)).toEqual([
      "acme/platform",
    ]);
    expect((await f.api("/groups/acme/projects")).body.map((p: any) => p.path)).toEqual(["widgets"]);
    const deep = (await f.api("/groups/acme/projects?include_subgroups=true")).body.map((p: any) => p.path);
    expect(deep.sort()).toEqual(["infra", "widgets"]);
    expect((await f.api("/groups/acme%2Fplatform", as("sim-forge-pat-dave"))).status).toBe(404);
    // Membership of a group reaches its subgroups.
    expect((await f.api("/groups/acme%2Fplatform", as("sim-forge-pat-bob"))).status).toBe(200);
  });
});
