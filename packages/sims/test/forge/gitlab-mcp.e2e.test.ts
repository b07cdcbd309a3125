import { createRequire } from "node:module";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definition } from "../../src/forge/index.js";
import { createSim, type RunningSim } from "../../src/index.js";

// gitlab-mcp 2.1.64 (@zereight/mcp-gitlab, a devDependency), a client written by others, against
// the forge simulator: spawned once over stdio with every toolset on, its tools called by the
// official MCP client (with execute_graphql, which no toolset holds), one row per call; a row that
// reads or changes what an earlier one made waits for it (AFTER), the others run at once. A row
// says what the answer's text holds, or the error gitlab-mcp reports; the eleven calls the simulator
// used to fail (work items through `namespace(fullPath:)`, merge request versions, the GraphQL CI
// lint, a signed tag) are marked.
const require = createRequire(import.meta.url);
const GITLAB_MCP = require.resolve("@zereight/mcp-gitlab/build/index.js");
const W = "acme/widgets";

type Row = [tool: string, args: Record<string, unknown>, expected: RegExp | { error: RegExp }];

const ROWS: Row[] = [
  ["whoami", {}, /"username":"alice"/],
  ["health_check", {}, /"authenticated":true/],
  ["get_project", { project_id: W }, /"path_with_namespace":"acme\/widgets"/],
  ["list_projects", { search: "widgets" }, /"path_with_namespace":"acme\/widgets"/],
  ["search_repositories", { search: "widgets" }, /"count":1/],
  ["list_namespaces", {}, /"full_path":"acme"/],
  ["get_namespace", { namespace_id: "acme" }, /"kind":"group"/],
  ["verify_namespace", { path: "acme" }, /"exists":true/],
  ["list_group_projects", { group_id: "acme" }, /"path_with_namespace":"acme\/widgets"/],
  ["list_group_members", { group_id: "acme" }, /"username":"bob"/],
  ["get_users", { usernames: ["bob"] }, /"bob":\{"id":"2"/],
  ["get_user", { user_id: "2" }, /"username":"bob"/],
  ["list_events", {}, /"target_title":"Cache widget layouts"/],
  ["get_project_events", { project_id: W }, /"action_name":"opened"/],
  // issues
  ["list_issues", { project_id: W }, /"title":"Add a dark theme"/],
  ["get_issue", { project_id: W, issue_iid: "1" }, /"title":"Widgets render slowly on large dashboards"/],
  ["list_issue_discussions", { project_id: W, issue_iid: "1" }, /Reproduced\. Layout is not cached\./],
  ["create_issue", { project_id: W, title: "From gitlab-mcp" }, /"iid":"4"/],
  ["update_issue", { project_id: W, issue_iid: "4", labels: ["bug"] }, /"title":"From gitlab-mcp"/],
  ["create_issue_note", { project_id: W, issue_iid: "4", body: "noted" }, /"body":"noted"/],
  ["create_issue_emoji_reaction", { project_id: W, issue_iid: "4", name: "thumbsup" }, /"name":"thumbsup"/],
  ["list_issue_emoji_reactions", { project_id: W, issue_iid: "4" }, /"name":"thumbsup"/],
  [
    "create_issue_link",
    { project_id: W, issue_iid: "4", target_project_id: W, target_issue_iid: "2" },
    /"link_type":"relates_to"/,
  ],
  ["list_issue_links", { project_id: W, issue_iid: "4" }, /"title":"Add a dark theme"/],
  ["list_todos", {}, /"action_name":"(assigned|review_requested)"/],
  // labels and milestones
  ["list_labels", { project_id: W }, /"name":"bug"/],
  ["get_label", { project_id: W, label_id: "bug" }, /"name":"bug"/],
  ["create_label", { project_id: W, name: "mcp", color: "#123456" }, /"name":"mcp"/],
  ["update_label", { project_id: W, label_id: "mcp", new_name: "mcp-2" }, /"name":"mcp-2"/],
  ["create_milestone", { project_id: W, title: "M1" }, /"title":"M1"/],
  ["list_milestones", { project_id: W }, /"title":"M1"/],
  // merge requests
  ["list_merge_requests", { project_id: W }, /"title":"Fix typo in README"/],
  ["get_merge_request", { project_id: W, merge_request_iid: "1" }, /"title":"Cache widget layouts"/],
  ["get_merge_request_diffs", { project_id: W, merge_request_iid: "1" }, /"new_path":"src\/widget\.ts"/],
  [
    "list_merge_request_diffs",
    { project_id: W, merge_request_iid: "1" },
    /"new_path":"src\/cache\.test\.ts"/,
  ],
  ["list_merge_request_changed_files", { project_id: W, merge_request_iid: "1" }, /"new_file":true/],
  [
    "get_merge_request_file_diff",
    { project_id: W, merge_request_iid: "1", file_paths: ["src/widget.ts"] },
    /"old_path":"src\/widget\.ts"/,
  ],
  // was: patch_id_sha null where GitLab sends a string
  ["list_merge_request_versions", { project_id: W, merge_request_iid: "1" }, /"patch_id_sha":"[0-9a-f]{40}"/],
  [
    "get_merge_request_approval_state",
    { project_id: W, merge_request_iid: "1" },
    /"rule_type":"any_approver"/,
  ],
  ["get_merge_request_conflicts", { project_id: W, merge_request_iid: "1" }, /"files":\[\]/],
  ["list_merge_request_pipelines", { project_id: W, merge_request_iid: "1" }, /"status":"failed"/],
  ["mr_discussions", { project_id: W, merge_request_iid: "1" }, /Should the cache be bounded\?/],
  ["get_merge_request_notes", { project_id: W, merge_request_iid: "1" }, /I will add an LRU limit/],
  ["create_merge_request_note", { project_id: W, merge_request_iid: "2", body: "LGTM" }, /"body":"LGTM"/],
  [
    "create_merge_request_thread",
    { project_id: W, merge_request_iid: "2", body: "A thread" },
    /"body":"A thread"/,
  ],
  ["create_draft_note", { project_id: W, merge_request_iid: "2", body: "draft" }, /"body":"draft"/],
  ["list_draft_notes", { project_id: W, merge_request_iid: "2" }, /"body":"draft"/],
  [
    "create_merge_request_emoji_reaction",
    { project_id: W, merge_request_iid: "2", name: "rocket" },
    /"rocket"/,
  ],
  ["list_merge_request_emoji_reactions", { project_id: W, merge_request_iid: "2" }, /"name":"rocket"/],
  // repository, then a merge request of our own merged
  ["list_branches", { project_id: W }, /"name":"feature\/layout-cache"/],
  ["get_branch", { project_id: W, branch_name: "main" }, /"name":"main"/],
  ["create_branch", { project_id: W, branch: "mcp/feature", ref: "main" }, /"name":"mcp\/feature"/],
  [
    "create_or_update_file",
    {
      project_id: W,
      file_path: "docs/mcp.md",
      content: "# MCP\n",
      commit_message: "Add docs",
      branch: "mcp/feature",
    },
    /"file_path":"docs\/mcp\.md"/,
  ],
  [
    "push_files",
    {
      project_id: W,
      branch: "mcp/feature",
      commit_message: "Two files",
      files: [
        { file_path: "a.txt", content: "a" },
        { file_path: "b.txt", content: "b" },
      ],
    },
    /"title":"Two files"/,
  ],
  ["get_branch_diffs", { project_id: W, from: "main", to: "mcp/feature" }, /"new_path":"docs\/mcp\.md"/],
  [
    "create_merge_request",
    { project_id: W, title: "MCP docs", source_branch: "mcp/feature", target_branch: "main" },
    /"iid":"3"/,
  ],
  [
    "update_merge_request",
    { project_id: W, merge_request_iid: "3", description: "Docs" },
    /"description":"Docs"/,
  ],
  ["approve_merge_request", { project_id: W, merge_request_iid: "3" }, /"user_has_approved":true/],
  ["merge_merge_request", { project_id: W, merge_request_iid: "3" }, /"state":"merged"/],
  ["list_protected_branches", { project_id: W }, /"name":"main"/],
  ["get_repository_tree", { project_id: W, path: "src" }, /"path":"src\/widget\.ts"/],
  ["get_file_contents", { project_id: W, file_path: "docs/mcp.md" }, /"content":"# MCP\\n"/],
  ["get_file_blame", { project_id: W, file_path: "README.md", ref: "main" }, /"# Widgets"/],
  ["list_commits", { project_id: W }, /Merge branch 'mcp\/feature' into 'main'/],
  ["get_commit", { project_id: W, sha: "main" }, /Merge branch 'mcp\/feature'/],
  ["get_commit_diff", { project_id: W, sha: "main" }, /"new_path":"a\.txt"/],
  ["list_commit_statuses", { project_id: W, sha: "main" }, /^\[\]$/],
  // pipelines and CI
  ["list_pipelines", { project_id: W }, /"ref":"feature\/layout-cache"/],
  ["get_pipeline", { project_id: W, pipeline_id: "1" }, /"status":"success"/],
  ["list_pipeline_jobs", { project_id: W, pipeline_id: "2" }, /"name":"lint"/],
  ["get_pipeline_job", { project_id: W, job_id: "5" }, /"status":"failed"/],
  ["get_pipeline_job_output", { project_id: W, job_id: "5" }, /FAIL src\/cache\.test\.ts/],
  ["list_job_artifacts", { project_id: W, job_id: "1" }, /"name":"build"/],
  ["validate_ci_lint", { project_id: W, content: "build:\n  script: make\n" }, /"valid":true/],
  ["validate_project_ci_lint", { project_id: W }, /"valid":true/],
  // was: Field 'ciConfig' doesn't exist on type 'Query'
  [
    "execute_graphql",
    { query: `{ ciConfig(projectPath: "${W}", content: "build:\\n  script: make\\n") { status errors } }` },
    /"ciConfig":\{"status":"VALID","errors":\[\]\}/,
  ],
  ["create_pipeline", { project_id: W, ref: "main" }, /Created pipeline #3 for main/],
  ["list_ci_catalog_resources", {}, /"ciCatalogResources"/],
  // tags and releases; was: a signed tag's signature answered 404
  ["list_tags", { project_id: W }, /"name":"v1\.4\.0"/],
  ["get_tag", { project_id: W, tag_name: "v1.4.0" }, /"message":"Release 1\.4\.0"/],
  ["get_tag_signature", { project_id: W, tag_name: "v1.4.0" }, /"signature_type":"X509"/],
  ["create_tag", { project_id: W, tag_name: "v1.5.0", ref: "main" }, /"name":"v1\.5\.0"/],
  ["create_release", { project_id: W, tag_name: "v1.5.0", name: "1.5" }, /"name":"1\.5"/],
  ["list_releases", { project_id: W }, /"tag_name":"v1\.5\.0"/],
  ["get_release", { project_id: W, tag_name: "v1.5.0" }, /"tag_name":"v1\.5\.0"/],
  // wiki, search, variables, hooks, groups
  ["create_wiki_page", { project_id: W, title: "Home", content: "# Home" }, /"slug":"Home"/],
  ["get_wiki_page", { project_id: W, slug: "Home" }, /"content":"# Home"/],
  ["list_wiki_pages", { project_id: W }, /"slug":"Home"/],
  ["search_code", { search: "innerHTML" }, /"path":"docs\/guide\.md"/],
  ["search_project_code", { project_id: W, search: "innerHTML" }, /"path":"src\/widget\.ts"/],
  ["list_project_variables", { project_id: W }, /^\[\]$/],
  ["list_webhooks", { project_id: W }, /^\[\]$/],
  ["list_group_iterations", { group_id: "acme" }, /^\[\]$/],
  ["get_dependency_proxy_settings", { group_id: "acme" }, /"enabled":true/],
  ["list_project_vulnerabilities", { project_id: W }, /"vulnerabilities":\[\]/],
  // work items; the six were: Field 'namespace' doesn't exist on type 'Query'
  ["get_work_item", { project_id: W, iid: 1 }, /"type":"Issue".*"status":\{"name":"To do"/],
  ["list_work_items", { project_id: W }, /"title":"From gitlab-mcp"/],
  ["list_work_item_notes", { project_id: W, iid: 1 }, /"body":"Reproduced\. Layout is not cached\."/],
  ["list_work_item_statuses", { project_id: W }, /"statuses_available":true.*"name":"In progress"/],
  ["list_custom_field_definitions", { project_id: W }, /"work_item_type":"Issue","custom_fields":\[\]/],
  ["get_timeline_events", { project_id: W, incident_iid: 1 }, /^\[\]$/],
  // Its work item is found through namespace(fullPath:) now; its reactions it then asks of a root
  // field `awardable(id:)`, which GitLab's GraphQL schema does not have (a work item's reactions are
  // its awardEmoji field): gitlab-mcp's own defect, answered as GitLab answers it.
  [
    "list_work_item_emoji_reactions",
    { project_id: W, iid: 1 },
    { error: /Field 'awardable' doesn't exist on type 'Query'/ },
  ],
];

/**
 * The row each row needs done first (it reads or changes what that one made); every other row runs
 * at once, so the file costs gitlab-mcp's start and the longest chain, not the sum of its calls.
 */
const AFTER: Record<string, string> = {
  update_issue: "create_issue",
  create_issue_note: "create_issue",
  create_issue_emoji_reaction: "create_issue",
  list_issue_emoji_reactions: "create_issue_emoji_reaction",
  create_issue_link: "create_issue",
  list_issue_links: "create_issue_link",
  list_work_items: "create_issue",
  update_label: "create_label",
  list_milestones: "create_milestone",
  list_draft_notes: "create_draft_note",
  list_merge_request_emoji_reactions: "create_merge_request_emoji_reaction",
  create_or_update_file: "create_branch",
  push_files: "create_or_update_file",
  get_branch_diffs: "push_files",
  create_merge_request: "push_files",
  update_merge_request: "create_merge_request",
  approve_merge_request: "update_merge_request",
  merge_merge_request: "approve_merge_request",
  get_file_contents: "merge_merge_request",
  list_commits: "merge_merge_request",
  get_commit: "merge_merge_request",
  get_commit_diff: "merge_merge_request",
  list_commit_statuses: "merge_merge_request",
  create_tag: "merge_merge_request",
  create_release: "create_tag",
  list_releases: "create_release",
  get_release: "create_release",
  get_wiki_page: "create_wiki_page",
  list_wiki_pages: "create_wiki_page",
};

describe("gitlab-mcp 2.1.64 over stdio against the forge simulator", () => {
  let sim: RunningSim;
  let client: Client;
  let tools: string[] = [];
  /** Each row's answer as text (`error: …` when gitlab-mcp reports a failed call), by tool name. */
  const answers = new Map<string, Promise<string>>();
  const answer = async (name: string, args: Record<string, unknown>) => {
    try {
      const r = await client.callTool({ name, arguments: args });
      const text = (r.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("\n");
      return r.isError ? `isError: ${text}` : text;
    } catch (err) {
      // gitlab-mcp reports a failed call as a JSON-RPC error, not as a tool result
      return `error: ${(err as Error).message}`;
    }
  };

  beforeAll(async () => {
    sim = await createSim(definition, { quiet: true });
    // GitLab signs nothing itself: a tag signed by its author is a record the dataset adds
    const seeded = await fetch(`${sim.origin}/_sim/seed`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ tag_signatures: [{ project: W, tag_name: "v1.4.0", signature_type: "X509" }] }),
    });
    expect(seeded.status).toBe(200);
    client = new Client({ name: "sims-gitlab-mcp-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [GITLAB_MCP],
        env: {
          PATH: process.env.PATH ?? "",
          GITLAB_API_URL: sim.url,
          GITLAB_PERSONAL_ACCESS_TOKEN: "sim-forge-pat",
          GITLAB_TOOLSETS: "all",
          // in no toolset, so listed only when named (the GraphQL CI lint row calls it)
          GITLAB_TOOLS: "execute_graphql",
        },
        stderr: "ignore",
      }),
    );
    tools = (await client.listTools()).tools.map((t) => t.name);
    for (const [name, args] of ROWS) {
      const first = AFTER[name] === undefined ? Promise.resolve("") : answers.get(AFTER[name]);
      if (!first) throw new Error(`${name} comes after ${AFTER[name]}, which is no earlier row`);
      answers.set(
        name,
        first.then(() => answer(name, args)),
      );
    }
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    await sim?.close();
  });

  it("lists every toolset's tools, discover_tools and execute_graphql: 263", () => {
    expect(tools.length).toBe(263);
    expect(tools).toEqual(expect.arrayContaining(ROWS.map(([name]) => name)));
    expect(new Set(ROWS.map(([name]) => name)).size).toBe(ROWS.length);
  });

  it.each(ROWS)("%s", async (name, _args, expected) => {
    const text = await answers.get(name)!;
    if (expected instanceof RegExp) expect(text).toMatch(expected);
    else expect(text).toMatch(new RegExp(`^(error|isError): .*${expected.error.source}`, "s"));
  });
});
