import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { ForgeApi } from "../../src/forge/api.js";
import { ProjectIds, TTL_MS } from "../../src/forge/project-ids.js";
import { ProjectOutsideScope, ProjectScope } from "../../src/forge/project-scope.js";
import { createMcpServer } from "../../src/mcp/sdk-server.js";
import { stdioCatalogue } from "../../src/tools/index.js";
import { type Forge, forgeCallsSince, forgeLogSeq, startForge } from "../forge-sim.js";
import { postToolCall, type RunningForgeMcp, startForgeMcp } from "../helpers.js";

/**
 * ENABLE_STRICT_PROJECT_SCOPE and ENABLE_DYNAMIC_PROJECT_SCOPE (src/forge/project-scope.ts),
 * against the forge simulator (projects 1 acme/widgets, 2 acme/platform/infra, 3 bob/dotfiles,
 * 4 labs/experiments): what strict scope refuses before any forge call and what it still lists,
 * and a request's X-GitLab-Allowed-Project-Ids, which may narrow the operator's list and never
 * widen it, over HTTP (remote authorization) and over stdio.
 */

type Result = { isError?: boolean; content: Array<{ text: string }>; structuredContent?: Json };
type Json = Record<string, any>;

/** One plain tools/call over HTTP (what the /mcp lane answers), with the request's own headers. */
async function call(
  mcp: RunningForgeMcp,
  name: string,
  args: Json = {},
  headers: Record<string, string> = {},
): Promise<Result & { status: number }> {
  const { status, body } = await postToolCall(mcp, name, args, headers);
  return { status, ...(body.result ?? { isError: true, content: [{ text: body.error?.message ?? "" }] }) };
}
/** The project ids in a listing's answer. */
const ids = (r: Result) =>
  ((r.structuredContent?.items ?? []) as Array<{ id: number }>).map((p) => p.id).sort();
const issueProjects = (r: Result) =>
  [
    ...new Set(
      ((r.structuredContent?.items ?? []) as Array<{ project_id: number }>).map((i) => i.project_id),
    ),
  ].sort();

describe("project scope", () => {
  let forge: Forge;
  let strict: RunningForgeMcp;
  let loose: RunningForgeMcp;
  let dynamic: RunningForgeMcp;
  let dynamicOpen: RunningForgeMcp;
  let ignored: RunningForgeMcp;
  // dynamicOpen's clock runs ahead by this much (what expires a kept path look-up)
  let skew = 0;
  const calls = async (since: number) =>
    (
      (await (await fetch(`${forge.origin}/_sim/log?since=${since}`)).json()) as {
        entries: Array<{ method: string; path: string }>;
      }
    ).entries.map((e) => `${e.method} ${e.path.split("?")[0]}`);

  beforeAll(async () => {
    forge = await startForge();
    const base = { FORGE_API_URL: forge.apiUrl, FORGE_TOOLSETS: "all" };
    const pat = { ...base, FORGE_TOKEN: "sim-forge-pat" };
    const remote = { ...base, REMOTE_AUTHORIZATION: "true" };
    [strict, loose, dynamic, dynamicOpen, ignored] = await Promise.all([
      startForgeMcp({ ...pat, GITLAB_ALLOWED_PROJECT_IDS: "1,4", ENABLE_STRICT_PROJECT_SCOPE: "true" }),
      startForgeMcp({ ...pat, GITLAB_ALLOWED_PROJECT_IDS: "1" }),
      startForgeMcp({
        ...remote,
        GITLAB_ALLOWED_PROJECT_IDS: "1,acme/platform/infra",
        ENABLE_DYNAMIC_PROJECT_SCOPE: "true",
      }),
      startForgeMcp(
        { ...remote, ENABLE_DYNAMIC_PROJECT_SCOPE: "true", ENABLE_STRICT_PROJECT_SCOPE: "true" },
        { now: () => Date.now() + skew },
      ),
      startForgeMcp({ ...remote, GITLAB_ALLOWED_PROJECT_IDS: "1,2" }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([strict, loose, dynamic, dynamicOpen, ignored].map((m) => m?.close()));
    await forge?.close();
  });

  describe("ENABLE_STRICT_PROJECT_SCOPE", () => {
    it.each([
      [
        "search_code (the instance's code)",
        "search_code",
        { search: "widget" },
        /a search across the instance/,
      ],
      [
        "search without project_id",
        "search",
        { scope: "issues", search: "widget" },
        /a search across the instance/,
      ],
      ["search_group_code", "search_group_code", { group_id: "acme", search: "widget" }, /a group's records/],
      ["list_groups", "list_groups", {}, /a group's records/],
      ["get_group", "get_group", { group_id: "acme" }, /a group's records/],
      ["list_group_members", "list_group_members", { group_id: "acme" }, /a group's records/],
      ["list_namespaces", "list_namespaces", {}, /namespaces/],
      ["list_todos", "list_todos", {}, /to-do items/],
      ["list_todos naming an allowed project", "list_todos", { project_id: 1 }, /to-do items/],
    ])("refuses %s before any forge call, naming the list", async (_row, name, args, what) => {
      const since = await forgeLogSeq(forge);
      const r = await call(strict, name, args);
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toMatch(what);
      expect(r.content[0]!.text).toMatch(
        /ENABLE_STRICT_PROJECT_SCOPE keeps this server to 1, 4; name one of them/,
      );
      expect(await calls(since)).toEqual([]);
    });

    it("without it the same allow-list runs search_code in each listed project (the answer strict refuses)", async () => {
      const since = await forgeLogSeq(forge);
      const r = await call(loose, "search_code", { search: "widget" });
      expect(r.isError).toBeFalsy();
      expect(await calls(since)).toContain("GET /api/v4/projects/1/search");
    });

    it("refuses orbit, GitLab's knowledge graph of the instance, at the forge client", async () => {
      const api = new ForgeApi(
        forge.apiUrl,
        "sim-forge-pat",
        5000,
        undefined,
        new ProjectScope(["1"], { strict: true }),
      );
      await expect(api.get("/orbit/status")).rejects.toThrow(ProjectOutsideScope);
      await expect(api.get("/orbit/status")).rejects.toThrow(/orbit \(the instance's knowledge graph\)/);
    });

    it.each([
      ["list_projects", "list_projects", {}, ids, [1, 4]],
      ["search_repositories", "search_repositories", { search: "e" }, ids, [1, 4]],
      [
        "list_group_projects (a group's projects are a list of projects)",
        "list_group_projects",
        { group_id: "acme" },
        ids,
        [1],
      ],
      ["list_merge_requests without a project", "list_merge_requests", { scope: "all" }, issueProjects, [1]],
      ["list_issues without a project", "list_issues", { scope: "all" }, issueProjects, [1]],
    ])("lists %s with the allowed projects only", async (_row, name, args, pick, expected) => {
      const r = await call(strict, name, args);
      expect(r.isError, r.content[0]?.text).toBeFalsy();
      expect(pick(r)).toEqual(expected);
    });

    it.each([
      ["by id", 1, false],
      ["by path", "acme/widgets", false],
      ["by path in another case", "ACME/Widgets", false],
      ["by URL-encoded path", "acme%2Fwidgets", false],
      ["another by id", 2, true],
      ["another by path", "acme/platform/infra", true],
      ["another by URL-encoded path", "acme%2Fplatform%2Finfra", true],
    ])(
      "a project named %s: the tools that name one work inside the list only",
      async (_row, project, refused) => {
        const r = await call(strict, "search_project_code", { project_id: project, search: "widget" });
        expect(r.isError ?? false).toBe(refused);
        if (refused) expect(r.content[0]!.text).toMatch(/is outside GITLAB_ALLOWED_PROJECT_IDS/);
      },
    );

    it("holds over stdio too (one listed project: the default project of search as well)", async () => {
      const config = loadConfig({
        FORGE_TOKEN: "sim-forge-pat",
        FORGE_API_URL: forge.apiUrl,
        FORGE_TOOLSETS: "all",
        GITLAB_ALLOWED_PROJECT_IDS: "1",
        ENABLE_STRICT_PROJECT_SCOPE: "true",
      });
      const server = createMcpServer(stdioCatalogue(config, config.forgeToken!, {}));
      const [a, b] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: "stdio-scope", version: "1.0.0" });
      await Promise.all([server.connect(a), client.connect(b)]);
      const code = (await client.callTool({
        name: "search_code",
        arguments: { search: "widget" },
      })) as Result;
      expect(code.isError).toBe(true);
      expect(code.content[0]!.text).toMatch(/ENABLE_STRICT_PROJECT_SCOPE/);
      const projects = (await client.callTool({ name: "list_projects", arguments: {} })) as Result;
      expect(ids(projects)).toEqual([1]);
      const search = (await client.callTool({
        name: "search",
        arguments: { scope: "issues", search: "e" },
      })) as Result;
      expect(search.isError).toBeFalsy();
      await client.close();
    });
  });

  describe("ENABLE_DYNAMIC_PROJECT_SCOPE with X-GitLab-Allowed-Project-Ids", () => {
    const who = { "private-token": "sim-forge-pat" };
    const scoped = (header: string | undefined) =>
      header === undefined ? who : { ...who, "x-gitlab-allowed-project-ids": header };
    /** Which of the four projects get_project reaches under the header. */
    const reach = async (mcp: RunningForgeMcp, header: string | undefined) => {
      const answers = await Promise.all(
        [1, 2, 3, 4].map(
          async (p) => [p, await call(mcp, "get_project", { project_id: p }, scoped(header))] as const,
        ),
      );
      for (const [, r] of answers)
        if (r.isError)
          expect(r.content[0]!.text).toMatch(
            /is outside (GITLAB_ALLOWED_PROJECT_IDS|X-GitLab-Allowed-Project-Ids)/,
          );
      return answers.filter(([, r]) => !r.isError).map(([p]) => p);
    };

    it.each([
      ["absent: the operator's list", undefined, [1, 2]],
      ["one listed id: narrowed to it", "1", [1]],
      ["a listed project by path", "acme/widgets", [1]],
      ["a listed project by URL-encoded path", "acme%2Fplatform%2Finfra", [2]],
      ["an id outside the operator's list beside a listed one: the outside one admits nothing", "1,3", [1]],
      ["only ids outside the operator's list: nothing is reachable (never wider)", "3,4", []],
      ["a path outside the operator's list", "bob/dotfiles", []],
    ])("header %s", async (_row, header, expected) => {
      expect(await reach(dynamic, header)).toEqual(expected);
    });

    it("narrows the lists across projects as well, to projects on both lists", async () => {
      const r = await call(dynamic, "list_projects", {}, scoped("2,3"));
      expect(ids(r)).toEqual([2]);
    });

    it.each([
      ["empty", " , "],
      ["a dot segment", "1,.."],
      ["a URL", "https://gitlab.example.com/acme/widgets"],
      ["too many entries", Array.from({ length: 101 }, (_, i) => i + 1).join(",")],
    ])(
      "refuses the request when the header is %s (it meant to narrow: it must not run wider)",
      async (_row, header) => {
        const r = await call(dynamic, "get_project", { project_id: 1 }, scoped(header));
        expect(r.status).toBe(400);
        expect(r.content[0]!.text).toMatch(/X-GitLab-Allowed-Project-Ids must be a comma list/);
      },
    );

    it("without an operator's list the header alone sets the projects, and strict scope holds to it", async () => {
      expect(await reach(dynamicOpen, "3")).toEqual([3]);
      expect(await reach(dynamicOpen, undefined)).toEqual([1, 2, 3, 4]);
      const code = await call(dynamicOpen, "search_code", { search: "widget" }, scoped("3"));
      expect(code.content[0]!.text).toMatch(
        /ENABLE_STRICT_PROJECT_SCOPE keeps this server to 3 \(X-GitLab-Allowed-Project-Ids\)/,
      );
    });

    it("without ENABLE_DYNAMIC_PROJECT_SCOPE the header is ignored", async () => {
      expect(await reach(ignored, "1")).toEqual([1, 2]);
    });
  });
  describe("a project named by path: matched by the id one resolver learns (src/forge/project-ids.ts)", () => {
    const alice = { "private-token": "sim-forge-pat" };
    const dave = { "private-token": "sim-forge-pat-dave" };
    const refusalOf = (r: Result, path: string) => {
      expect(r.isError).toBe(true);
      return r.content[0]!.text.replace(JSON.stringify(path), "<path>");
    };

    it.each([
      ["a listed project by id", 1, 1],
      ["a listed project by path", "acme/widgets", 1],
      ["a listed project by a path of the list", "acme/platform/infra", 2],
    ])("%s: asked of the forge by its id", async (_row, project, id) => {
      const since = await forgeLogSeq(forge);
      const r = await call(dynamic, "list_issues", { project_id: project }, alice);
      expect(r.isError, r.content[0]?.text).toBeFalsy();
      expect(await forgeCallsSince(forge, since, `/api/v4/projects/${id}/issues`)).toBe(1);
    });

    it("the resolver keeps at most its bound of paths, the least recently used dropped first", async () => {
      const ids = new ProjectIds(Date.now, TTL_MS, 2);
      const api = new ForgeApi(forge.apiUrl, "sim-forge-pat", 5000, undefined, undefined, "bearer", ids);
      const since = await forgeLogSeq(forge);
      const named = [
        "acme/widgets",
        "bob/dotfiles",
        "acme/widgets",
        "labs/experiments",
        "acme/widgets",
        "bob/dotfiles",
      ];
      const got: number[] = [];
      for (const p of named) got.push(await api.projectId(p));
      expect(got).toEqual([1, 3, 1, 4, 1, 3]);
      // acme/widgets, used again and again, stays; bob/dotfiles made room for labs/experiments
      expect(await forgeCallsSince(forge, since, "/api/v4/projects/acme%2Fwidgets")).toBe(1);
      expect(await forgeCallsSince(forge, since, "/api/v4/projects/bob%2Fdotfiles")).toBe(2);
    });

    it("attack: a listed path the caller cannot see answers what an unknown path does, no data asked", async () => {
      const since = await forgeLogSeq(forge);
      // alice's look-up of the listed acme/platform/infra is kept for her, never for dave
      expect(
        (await call(dynamic, "list_issues", { project_id: "acme/platform/infra" }, alice)).isError,
      ).toBeFalsy();
      const hidden = await call(dynamic, "list_issues", { project_id: "acme/platform/infra" }, dave);
      const unknown = await call(dynamic, "list_issues", { project_id: "acme/nope" }, dave);
      expect(refusalOf(hidden, "acme/platform/infra")).toBe(refusalOf(unknown, "acme/nope"));
      // alice's call only, by id; dave's reached no data, and the unknown path was never looked up
      expect(await forgeCallsSince(forge, since, "/api/v4/projects/2/issues")).toBe(1);
      expect(await forgeCallsSince(forge, since, "/api/v4/projects/acme%2Fplatform%2Finfra/issues")).toBe(0);
      expect(await forgeCallsSince(forge, since, "/api/v4/projects/acme%2Fnope")).toBe(0);
    });

    it("a renamed project: its old path reaches it by id until the look-up expires, never the project now there", async () => {
      const post = async (method: string, path: string, body: Json) =>
        (await (
          await fetch(`${forge.apiUrl}${path}`, {
            method,
            headers: { ...alice, "content-type": "application/json" },
            body: JSON.stringify(body),
          })
        ).json()) as { id: number };
      const listed = await post("POST", "/projects", { path: "scoped", namespace_path: "acme" });
      // the request's own list is the only one (strict scope allows both tools)
      const own = { ...alice, "x-gitlab-allowed-project-ids": String(listed.id) };
      const reach = async (tool = "get_project") => {
        const r = await call(dynamicOpen, tool, { project_id: "acme/scoped" }, own);
        return r.isError ? r.content[0]!.text : (r.structuredContent?.id ?? "ok");
      };
      expect(await reach()).toBe(listed.id);
      await post("PUT", `/projects/${listed.id}`, { path: "scoped-old" });
      const taker = await post("POST", "/projects", { path: "scoped", namespace_path: "acme" });
      expect(await reach()).toBe(listed.id);
      // a GraphQL document goes to the forge by the path itself: checked afresh, refused
      expect(await reach("list_project_vulnerabilities")).toMatch(/was renamed or moved/);
      skew += TTL_MS + 1;
      const since = await forgeLogSeq(forge);
      expect(await reach()).toMatch(/"acme\/scoped" is outside X-GitLab-Allowed-Project-Ids/);
      expect(await forgeCallsSince(forge, since, "/api/v4/projects/acme%2Fscoped")).toBe(0);
      expect(await forgeCallsSince(forge, since, `/api/v4/projects/${taker.id}`)).toBe(0);
    });
  });
});
