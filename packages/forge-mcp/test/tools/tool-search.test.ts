import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ForgeApi } from "../../src/forge/api.js";
import { type CallContext, type ClientView, NO_PEER } from "../../src/mcp/catalogue.js";
import { createCatalogue } from "../../src/tools/index.js";

/**
 * search_tools over the default configuration: a query in words finds the tool a developer means,
 * and every gitlab-mcp 2.1.64 tool name forge-mcp serves is reachable from the default list in two
 * calls (search_tools, then a call by name: the catalogue does not refuse it).
 */

const catalogue = createCatalogue({ readOnly: false, toolsets: undefined }, () => ({}) as ForgeApi);
const caller = { token: "t" };

async function search(query: string, view?: ClientView, limit?: number): Promise<string[]> {
  const ctx: CallContext = {
    authInfo: caller,
    requestId: 1,
    signal: new AbortController().signal,
    sendNotification: async () => {},
    peer: NO_PEER,
    view,
  };
  const r = await catalogue.tools.get("search_tools")!.handler({ query, limit }, ctx);
  expect(r.isError).toBeFalsy();
  return r.content[0]!.text.split("\n").map((l) => l.split(" ")[0]!);
}

const GITLAB_MCP = readFileSync(new URL("./gitlab-mcp-2.1.64-tools.txt", import.meta.url), "utf8")
  .split("\n")
  .filter(Boolean);
const served = GITLAB_MCP.filter((n) => catalogue.tools.has(n));

describe("search_tools", () => {
  it("is listed by default, with discover_tools, at the end of the core", () => {
    const names = catalogue.listed(caller).map((t) => t.name);
    expect(names.slice(-2)).toEqual(["search_tools", "discover_tools"]);
    expect(names.length).toBeLessThan(40);
  });

  it.each([
    ["retry a failed job", "retry_pipeline_job"],
    ["job log", "get_pipeline_job_output"],
    ["wiki page", "get_wiki_page"],
    ["approve mr", "approve_merge_request"],
    ["create a release", "create_release"],
    ["list project ci variables", "list_project_variables"],
    ["who am i", "whoami"],
    ["add label", "create_label"],
    ["protected branches", "list_protected_branches"],
    ["emoji reaction on issue", "create_issue_emoji_reaction"],
  ])("%s → %s among the first five", async (query, tool) => {
    expect((await search(query)).slice(0, 5)).toContain(tool);
  });

  it("answers the same names in the same order every time, and at most `limit` of them", async () => {
    const once = await search("merge request", undefined, 7);
    expect(once).toHaveLength(7);
    expect(await search("merge request", undefined, 7)).toEqual(once);
  });

  it("says so when nothing matches", async () => {
    const ctx = { authInfo: caller, requestId: 1, signal: new AbortController().signal } as CallContext;
    const r = await catalogue.tools.get("search_tools")!.handler({ query: "zzqx" }, ctx);
    expect(r.content[0]!.text).toMatch(/No tool matches/);
  });

  it("finds only what the request's view lets it call, by the names that view shows", async () => {
    expect(await search("delete issue", { readOnly: true })).not.toContain("delete_issue");
    expect(await search("list labels", { exclude: ["list_labels"] })).not.toContain("list_labels");
    expect((await search("list labels", { prefix: "gl_" }))[0]).toBe("gl_list_labels");
  });
});

describe("every gitlab-mcp 2.1.64 tool forge-mcp serves, two calls from the default list", () => {
  it("serves every one of its 263 names", () => {
    expect(GITLAB_MCP).toHaveLength(263);
    expect(served).toHaveLength(263);
  });

  it.each(served)("%s: found by search_tools (its name in words), then callable", async (name) => {
    const listed = catalogue.listed(caller).map((t) => t.name);
    if (!listed.includes(name)) expect(await search(name.replaceAll("_", " "))).toContain(name);
    expect(catalogue.refusal(name, caller)).toBeUndefined();
  });
});
