import { describe, expect, it } from "vitest";
import { DEFAULT_TOOLSETS } from "../../src/tools/index.js";
import { forgeWithToolClient } from "../forge-and-mcp.js";

/**
 * Every tool's forge request, checked in the simulator's request log: method and raw path
 * (project paths and file paths travel URL-encoded as one segment). Endpoints the simulator does
 * not serve answer 404, which must surface as a tool error.
 */

const P = "/api/v4/projects/group%2Fsub%2Fproj";
const cases: Array<[string, Record<string, unknown>, string, string]> = [
  ["list_projects", { search: "x", per_page: 5 }, "GET", "/api/v4/projects"],
  ["get_project", { project_id: "group/sub/proj" }, "GET", P],
  ["search", { scope: "issues", search: "bug" }, "GET", "/api/v4/search"],
  ["search", { scope: "blobs", search: "x", project_id: 7 }, "GET", "/api/v4/projects/7/search"],
  ["list_issues", {}, "GET", "/api/v4/issues"],
  ["list_issues", { project_id: "group/sub/proj", state: "opened" }, "GET", `${P}/issues`],
  ["get_issue", { project_id: "group/sub/proj", issue_iid: 3 }, "GET", `${P}/issues/3`],
  ["create_issue", { project_id: "group/sub/proj", title: "t" }, "POST", `${P}/issues`],
  [
    "update_issue",
    { project_id: "group/sub/proj", issue_iid: 3, state_event: "close" },
    "PUT",
    `${P}/issues/3`,
  ],
  ["list_issue_notes", { project_id: "group/sub/proj", issue_iid: 3 }, "GET", `${P}/issues/3/notes`],
  [
    "create_issue_note",
    { project_id: "group/sub/proj", issue_iid: 3, body: "hi" },
    "POST",
    `${P}/issues/3/notes`,
  ],
  ["list_merge_requests", { project_id: "group/sub/proj" }, "GET", `${P}/merge_requests`],
  [
    "get_merge_request",
    { project_id: "group/sub/proj", merge_request_iid: 9 },
    "GET",
    `${P}/merge_requests/9`,
  ],
  [
    "get_merge_request_diffs",
    { project_id: "group/sub/proj", merge_request_iid: 9 },
    "GET",
    `${P}/merge_requests/9/diffs`,
  ],
  [
    "create_merge_request",
    { project_id: "group/sub/proj", source_branch: "f", target_branch: "main", title: "t" },
    "POST",
    `${P}/merge_requests`,
  ],
  [
    "mr_discussions",
    { project_id: "group/sub/proj", merge_request_iid: 9 },
    "GET",
    `${P}/merge_requests/9/discussions`,
  ],
  [
    "create_merge_request_note",
    { project_id: "group/sub/proj", merge_request_iid: 9, body: "lgtm" },
    "POST",
    `${P}/merge_requests/9/notes`,
  ],
  [
    "get_merge_request_approvals",
    { project_id: "group/sub/proj", merge_request_iid: 9 },
    "GET",
    `${P}/merge_requests/9/approvals`,
  ],
  [
    "approve_merge_request",
    { project_id: "group/sub/proj", merge_request_iid: 9 },
    "POST",
    `${P}/merge_requests/9/approve`,
  ],
  ["list_pipelines", { project_id: "group/sub/proj", ref: "main" }, "GET", `${P}/pipelines`],
  ["get_pipeline", { project_id: "group/sub/proj", pipeline_id: 11 }, "GET", `${P}/pipelines/11`],
  ["list_pipeline_jobs", { project_id: "group/sub/proj", pipeline_id: 11 }, "GET", `${P}/pipelines/11/jobs`],
  ["get_pipeline_job_output", { project_id: "group/sub/proj", job_id: 12 }, "GET", `${P}/jobs/12/trace`],
  ["retry_pipeline", { project_id: "group/sub/proj", pipeline_id: 11 }, "POST", `${P}/pipelines/11/retry`],
  ["get_repository_tree", { project_id: "group/sub/proj", path: "src" }, "GET", `${P}/repository/tree`],
  [
    "get_file_contents",
    { project_id: "group/sub/proj", file_path: "src/a b.ts", ref: "main" },
    "GET",
    `${P}/repository/files/src%2Fa%20b.ts`,
  ],
  // create: true writes a new file (POST), create: false changes one (PUT)
  ...([true, false] as const).map((create): [string, Record<string, unknown>, string, string] => [
    "create_or_update_file",
    {
      project_id: "group/sub/proj",
      file_path: "a/b.md",
      branch: "main",
      content: "x",
      commit_message: "m",
      create,
    },
    create ? "POST" : "PUT",
    `${P}/repository/files/a%2Fb.md`,
  ]),
  ["list_branches", { project_id: "group/sub/proj" }, "GET", `${P}/repository/branches`],
  [
    "create_branch",
    { project_id: "group/sub/proj", branch: "f", ref: "main" },
    "POST",
    `${P}/repository/branches`,
  ],
  ["list_commits", { project_id: "group/sub/proj", ref_name: "main" }, "GET", `${P}/repository/commits`],
  ["get_commit", { project_id: "group/sub/proj", sha: "abc123" }, "GET", `${P}/repository/commits/abc123`],
  ["list_groups", { search: "acme" }, "GET", "/api/v4/groups"],
  [
    "merge_merge_request",
    { project_id: "group/sub/proj", merge_request_iid: 9, squash: true },
    "PUT",
    `${P}/merge_requests/9/merge`,
  ],
  ["whoami", {}, "GET", "/api/v4/user"],
  ["list_users", { search: "al" }, "GET", "/api/v4/users"],
];

describe("tools → forge requests", () => {
  // every toolset served without FORGE_TOOLSETS before the core list, so that all are listed
  const t = forgeWithToolClient("wire", { FORGE_TOOLSETS: DEFAULT_TOOLSETS.join(",") });

  it("every case names a registered tool (tools/table.test.ts covers all of them)", async () => {
    const names = new Set((await t.client.listTools()).tools.map((t) => t.name));
    for (const [name] of cases) expect(names.has(name), name).toBe(true);
  });

  it.each(cases)("%s %j → %s %s", async (name, args, method, path) => {
    await fetch(`${t.forge.origin}/_sim/log`, { method: "DELETE" });
    const r = (await t.client.callTool({ name, arguments: args })) as {
      isError?: boolean;
      content: Array<{ text: string }>;
    };
    const { entries } = (await (await fetch(`${t.forge.origin}/_sim/log`)).json()) as {
      entries: Array<{ method: string; path: string; status: number }>;
    };
    const call = entries.find((e) => !e.path.startsWith("/_sim"));
    expect(call).toMatchObject({ method, path });
    expect(Boolean(r.isError)).toBe(call!.status >= 400);
    if (r.isError) expect(r.content[0]!.text).toMatch(/^Forge error \d{3}: /);
  });
});
