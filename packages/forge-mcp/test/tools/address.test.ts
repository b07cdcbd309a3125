import { describe, expect, it } from "vitest";
import { AddressRefused, parseWebUrl } from "../../src/tools/address.js";
import { forgeWithToolClient } from "../forge-and-mcp.js";
import { forgeLogSeq } from "../forge-sim.js";

/**
 * What GitLab's own MCP server gives its users, in forge-mcp's tools, against the forge simulator
 * over HTTP: an object addressed by its web URL (src/tools/address.ts) instead of project_id and an
 * id, refused when it is another host's or disagrees with ids given beside it; merges and approvals
 * guarded by the head sha the caller read; and a job log read by byte windows (HTTP Range).
 */
const t = forgeWithToolClient("address-test", {
  FORGE_TOOLSETS: "all",
  FORGE_MCP_CONFIRM_DESTRUCTIVE: "off",
});
const text = (r: { content: Array<{ text: string }> }) => r.content[0]!.text;

describe("a tool taking a project and an id takes the object's web URL", () => {
  const web = (path: string) => `${t.forge.origin}/${path}`;

  it.each([
    ["an issue", "get_issue", () => ({ url: web("acme/widgets/-/issues/2") }), /"title":"Add a dark theme"/],
    [
      "an issue as a work item",
      "get_issue",
      () => ({ url: web("acme/widgets/-/work_items/2") }),
      /dark theme/,
    ],
    [
      "a merge request",
      "get_merge_request",
      () => ({ url: web("acme/widgets/-/merge_requests/1") }),
      /Cache widget layouts/,
    ],
    [
      "a merge request's tab, query and note anchor",
      "mr_discussions",
      () => ({ url: web("acme/widgets/-/merge_requests/1/diffs?view=parallel#note_3") }),
      /Should the cache be bounded/,
    ],
    ["a pipeline", "get_pipeline", () => ({ url: web("acme/widgets/-/pipelines/2") }), /"status":"failed"/],
    [
      "a job's log",
      "get_pipeline_job_output",
      () => ({ url: web("acme/widgets/-/jobs/5") }),
      /FAIL src\/cache\.test\.ts/,
    ],
    [
      "a work item",
      "get_work_item",
      () => ({ url: web("acme/widgets/-/work_items/1") }),
      /Widgets render slowly/,
    ],
    [
      "a project in a nested group",
      "get_issue",
      () => ({ url: web("acme/platform/infra/-/issues/1") }),
      /Rotate runner tokens/,
    ],
    [
      "with the same project_id and iid beside it",
      "get_issue",
      () => ({ url: web("acme/widgets/-/issues/2"), project_id: "acme/widgets", issue_iid: 2 }),
      /dark theme/,
    ],
    [
      "with the project's numeric id beside it (the forge says it is that path)",
      "get_issue",
      () => ({ url: web("acme/widgets/-/issues/2"), project_id: 1 }),
      /dark theme/,
    ],
    ["ids alone, as before", "get_issue", () => ({ project_id: "acme/widgets", issue_iid: 2 }), /dark theme/],
  ])("%s", async (_n, tool, args, expected) => {
    const r = await t.raw(tool, args());
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).toMatch(expected);
  });

  // attacks and mistakes: refused before any forge call the URL would steer
  it.each([
    [
      "another host",
      "get_issue",
      () => ({ url: "http://forge.evil.example/acme/widgets/-/issues/1" }),
      /not at the forge this server serves/,
    ],
    [
      "the forge's host on another port",
      "get_issue",
      () => ({ url: web("acme/widgets/-/issues/1").replace(/:(\d+)\//, (_m, p) => `:${Number(p) + 1}/`) }),
      /not at the forge this server serves/,
    ],
    [
      "another scheme",
      "get_issue",
      () => ({ url: web("acme/widgets/-/issues/1").replace(/^http:/, "https:") }),
      /not at the forge/,
    ],
    [
      "a project_id that names another project",
      "get_issue",
      () => ({ url: web("acme/widgets/-/issues/1"), project_id: "acme/platform/infra" }),
      /url names project acme\/widgets but project_id is acme\/platform\/infra/,
    ],
    [
      "a numeric project_id of another project",
      "get_issue",
      () => ({ url: web("acme/widgets/-/issues/1"), project_id: 2 }),
      /url names project acme\/widgets but project_id is 2/,
    ],
    [
      "an iid that is not the URL's",
      "get_merge_request",
      () => ({ url: web("acme/widgets/-/merge_requests/1"), merge_request_iid: 2 }),
      /url names 1 but merge_request_iid is 2/,
    ],
    [
      "a merge request's URL for an issue tool",
      "get_issue",
      () => ({ url: web("acme/widgets/-/merge_requests/1") }),
      /merge request 1's address; this tool takes an issue's/,
    ],
    [
      "a group's URL",
      "get_issue",
      () => ({ url: web("groups/acme/-/issues/1") }),
      /a group's; this tool takes a project's/,
    ],
    [
      "a project's page, no object",
      "get_issue",
      () => ({ url: web("acme/widgets") }),
      /names no issue, merge request/,
    ],
    [
      "dot segments out of the project",
      "get_issue",
      () => ({ url: web("acme/../-/issues/1") }),
      /names no issue|not a group\/project path/,
    ],
    ["not a URL", "get_issue", () => ({ url: "acme/widgets#1" }), /is not a URL/],
    ["neither url nor ids", "get_issue", () => ({}), /Give url, or project_id and issue_iid/],
    [
      "an iid without its project",
      "get_merge_request",
      () => ({ merge_request_iid: 1 }),
      /Give url, or project_id$/,
    ],
  ])("refuses %s", async (_n, tool, args, expected) => {
    const r = await t.raw(tool, args());
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(expected);
  });

  it("lists url beside project_id and the id, neither required, on the tools that take both", async () => {
    const { tools } = await t.client.listTools();
    const schema = (name: string) => tools.find((x) => x.name === name)!.inputSchema;
    expect(schema("get_merge_request").properties).toHaveProperty("url");
    expect(schema("get_merge_request").required ?? []).toEqual([]);
    expect(schema("update_issue").properties).toHaveProperty("url");
    expect(schema("list_merge_requests").properties).not.toHaveProperty("url");
  });

  // a forge served below a base path (https://host/gitlab/api/v4): its URLs are under that path
  it.each([
    [
      "under the base path",
      "https://git.example/gitlab/a/b/c/-/issues/7",
      { project: "a/b/c", kind: "issues", id: 7 },
    ],
    [
      "an incident's URL",
      "https://git.example/gitlab/a/b/-/issues/incident/3",
      { project: "a/b", kind: "issues", id: 3 },
    ],
    [
      "the host without the base path",
      "https://git.example/a/b/-/issues/7",
      /outside the forge's base path \/gitlab\//,
    ],
    ["the base path of another host", "https://git.example.org/gitlab/a/b/-/issues/7", /not at the forge/],
  ])("base path: %s", (_n, url, want) => {
    const read = () => parseWebUrl(url, "https://git.example/gitlab/api/v4");
    if (want instanceof RegExp) {
      expect(read).toThrow(AddressRefused);
      expect(read).toThrow(want);
    } else expect(read()).toEqual(want);
  });
});

describe("merges and approvals guarded by the head sha the caller read", () => {
  const head = async (iid: number) =>
    (await t.call("get_merge_request", { project_id: 1, merge_request_iid: iid })).sha;
  const STALE = "0000000000000000000000000000000000000000";

  it.each([
    ["approve_merge_request", "approved"],
    ["merge_merge_request", "merged"],
  ])(
    "%s with a sha the branch moved from: refused, and told to read the merge request again",
    async (tool, what) => {
      const r = await t.raw(tool, { project_id: 1, merge_request_iid: 2, sha: STALE });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(
        new RegExp(
          `^Forge error 409: Not ${what}: the source branch moved .*its head is now ${await head(2)}, not ${STALE}.*Read it again \\(get_merge_request`,
        ),
      );
    },
  );

  it("with the current sha: approved, then merged", async () => {
    const sha = await head(2);
    expect(
      (await t.call("approve_merge_request", { project_id: 1, merge_request_iid: 2, sha })).user_has_approved,
    ).toBe(true);
    expect((await t.call("merge_merge_request", { project_id: 1, merge_request_iid: 2, sha })).state).toBe(
      "merged",
    );
  });
});

describe("a job log by byte windows", () => {
  const statuses = async (since: number) =>
    (
      (await (await fetch(`${t.forge.origin}/_sim/log?since=${since}`)).json()) as {
        entries: Array<{ path: string; status: number }>;
      }
    ).entries
      .filter((e) => e.path.includes("/trace"))
      .map((e) => e.status);

  it.each([
    [
      "the first bytes, and where the next window starts",
      { start_byte: 0, max_bytes: 7 },
      /^\[log bytes 0-6 of (\d+); next start_byte 7\]\nRunning$/,
      206,
    ],
    [
      "a window inside",
      { start_byte: 8, max_bytes: 18 },
      /^\[log bytes 8-25 of \d+; next start_byte 26\]\nwith gitlab-runner$/,
      206,
    ],
    [
      "the last window, with no next",
      { start_byte: 112, max_bytes: 1000 },
      /^\[log bytes 112-142 of 143\]\nERROR: Job failed: exit code 1\n$/,
      206,
    ],
    [
      "past the end",
      { start_byte: 100_000 },
      /^\[log has \d+ bytes: start_byte 100000 is past its end\]$/,
      416,
    ],
  ])("%s", async (_n, args, expected, status) => {
    const since = await forgeLogSeq(t.forge);
    const r = await t.raw("get_pipeline_job_output", { project_id: 1, job_id: 5, ...args });
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).toMatch(expected);
    // the forge sent only the window (HTTP Range), not the whole log
    expect(await statuses(since)).toEqual([status]);
  });

  it("a window and tail_lines together are refused", async () => {
    const r = await t.raw("get_pipeline_job_output", {
      project_id: 1,
      job_id: 5,
      start_byte: 0,
      tail_lines: 2,
    });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/give start_byte or tail_lines, not both/);
  });
});
