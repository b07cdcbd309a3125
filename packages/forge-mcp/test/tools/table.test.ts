import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOLSETS } from "../../src/tools/index.js";
import { type Forge, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "../helpers.js";
import { ensure, prepareA, rowsA } from "./table-a.js";
import { type Ctx, type Row, r, tableRows, tableSeed } from "./table-b.js";
import { rowsC, tableSeedC } from "./table-c.js";
import { prepareD, rowsD } from "./table-d.js";

/**
 * One row per tool, run in order against the forge simulator through the official MCP client:
 * first with a fault on exactly the row's forge request (the forge's error must come back as
 * `isError` with its message, and nothing else is called), then for real (the one forge request is
 * the row's method and path, and the answer is what the row expects). Writes run on the default
 * dataset (acme/widgets is project 1; alice, the PAT's owner, owns it).
 */

const A = "/api/v4";
const P = `${A}/projects/1`;
const W = `${A}/projects/acme%2Fwidgets`;
const MR1 = `${P}/merge_requests/1`;

const rows: Row[] = [
  // projects, groups, users
  r("list_projects", { search: "widg", per_page: 5 }, "GET", `${A}/projects`, { expect: /acme\/widgets/ }),
  r("search_repositories", { search: "dot" }, "GET", `${A}/projects`, { expect: /bob\/dotfiles/ }),
  r("list_project_members", { project_id: 1, include_inheritance: true }, "GET", `${P}/members/all`, {
    expect: /"username":"bob"/,
  }),
  r("health_check", {}, "GET", `${A}/version`, { expect: /"version"/ }),
  r("update_project", { project_id: 1, description: "Widgets for dashboards" }, "PUT", P, {
    expect: /"description":"Widgets for dashboards"/,
  }),
  r("update_default_branch", { project_id: 1, default_branch: "main" }, "PUT", P, {
    expect: /"default_branch":"main"/,
  }),
  r("my_issues", {}, "GET", `${A}/issues`, { expect: /"iid"/ }),
  r("get_project", { project_id: "acme/widgets" }, "GET", W, { expect: /"default_branch":"main"/ }),
  r("list_groups", { search: "acme" }, "GET", `${A}/groups`, { expect: /"full_path":"acme"/ }),
  r("create_repository", { name: "scratch", visibility: "private" }, "POST", `${A}/projects`, {
    expect: /"path_with_namespace":"alice\/scratch"/,
  }),
  r("fork_repository", { project_id: "acme/widgets", path: "widgets-fork" }, "POST", `${W}/fork`, {
    expect: /"forked_from_project"/,
  }),
  r("get_group", { group_id: "acme" }, "GET", `${A}/groups/acme`, { expect: /"name":"Acme"/ }),
  r(
    "list_group_projects",
    { group_id: "acme", include_subgroups: true },
    "GET",
    `${A}/groups/acme/projects`,
    {
      expect: /infra/,
    },
  ),
  r("list_group_members", { group_id: "acme" }, "GET", `${A}/groups/acme/members`, { expect: /bob/ }),
  r("list_namespaces", {}, "GET", `${A}/namespaces`, { expect: /"kind":"group"/ }),
  r("get_namespace", { namespace_id: "acme" }, "GET", `${A}/namespaces/acme`, {
    expect: /"full_path":"acme"/,
  }),
  r("whoami", {}, "GET", `${A}/user`, { expect: /"username":"alice"/ }),
  r("list_users", { search: "bo" }, "GET", `${A}/users`, { expect: /bob/ }),
  r("get_user", { user: "bob" }, "GET", `${A}/users`, { expect: /"username":"bob"/ }),
  r("list_todos", { state: "pending" }, "GET", `${A}/todos`, {
    expect: /"action_name":"assigned"/,
    save: (b, c) => {
      c.todo = b.items[0].id;
    },
  }),
  r(
    "mark_todo_done",
    (c) => ({ todo_id: c.todo }),
    "POST",
    (c) => `${A}/todos/${c.todo}/mark_as_done`,
    {
      expect: /"state":"done"/,
    },
  ),
  r("list_events", {}, "GET", `${A}/events`, { expect: /"action_name":"opened"/ }),
  r("get_project_events", { project_id: 1, action: "commented" }, "GET", `${P}/events`, {
    expect: /"commented on"/,
  }),
  // labels and milestones
  r("list_labels", { project_id: 1 }, "GET", `${P}/labels`, { expect: /"name":"bug"/ }),
  r("create_label", { project_id: 1, name: "triage", color: "#ff0000" }, "POST", `${P}/labels`, {
    expect: /"color":"#ff0000"/,
  }),
  r("get_label", { project_id: 1, label_id: "triage" }, "GET", `${P}/labels/triage`, { expect: /triage/ }),
  r(
    "update_label",
    { project_id: 1, label_id: "triage", new_name: "needs-triage" },
    "PUT",
    `${P}/labels/triage`,
    {
      expect: /"name":"needs-triage"/,
    },
  ),
  r("delete_label", { project_id: 1, label_id: "needs-triage" }, "DELETE", `${P}/labels/needs-triage`, {
    expect: /^Done\.$/,
  }),
  r("create_milestone", { project_id: 1, title: "v2.0", due_date: "2026-12-31" }, "POST", `${P}/milestones`, {
    expect: /"state":"active"/,
    save: (b, c) => {
      c.milestone = b.id;
    },
  }),
  r("list_milestones", { project_id: 1, state: "active" }, "GET", `${P}/milestones`, { expect: /v2\.0/ }),
  r(
    "get_milestone",
    (c) => ({ project_id: 1, milestone_id: c.milestone }),
    "GET",
    (c) => `${P}/milestones/${c.milestone}`,
    {
      expect: /"due_date":"2026-12-31"/,
    },
  ),
  r(
    "edit_milestone",
    (c) => ({ project_id: 1, milestone_id: c.milestone, description: "Second major" }),
    "PUT",
    (c) => `${P}/milestones/${c.milestone}`,
    { expect: /Second major/ },
  ),
  // issues
  r("list_issues", { scope: "all", state: "opened" }, "GET", `${A}/issues`, { expect: /render slowly/ }),
  r("get_issue", { project_id: "acme/widgets", issue_iid: 1 }, "GET", `${W}/issues/1`, {
    expect: /render slowly/,
  }),
  r("create_issue", { project_id: 1, title: "Flaky chart", labels: "bug" }, "POST", `${P}/issues`, {
    expect: /Flaky chart/,
    save: (b, c) => {
      c.issue = b.iid;
    },
  }),
  r(
    "update_issue",
    (c) => ({ project_id: 1, issue_iid: 2, assignee_ids: [2], add_labels: "ui", milestone_id: c.milestone }),
    "PUT",
    `${P}/issues/2`,
    { expect: /"assignees":\[\{"id":2,"username":"bob"\}\][\s\S]*"milestone":\{[^}]*"title":"v2\.0"/ },
  ),
  r("list_issue_notes", { project_id: 1, issue_iid: 1 }, "GET", `${P}/issues/1/notes`, { expect: /"body"/ }),
  r(
    "create_issue_note",
    { project_id: 1, issue_iid: 1, body: "Seen on 3.2 too" },
    "POST",
    `${P}/issues/1/notes`,
    {
      save: (b, c) => {
        c.note = b.id;
      },
    },
  ),
  r(
    "update_issue_note",
    (c) => ({ project_id: 1, issue_iid: 1, note_id: c.note, body: "Seen on 3.2 and 3.3" }),
    "PUT",
    (c) => `${P}/issues/1/notes/${c.note}`,
    { needs: ["note"], expect: /3\.3/ },
  ),
  r("list_issue_discussions", { project_id: 1, issue_iid: 1 }, "GET", `${P}/issues/1/discussions`, {
    expect: /3\.3/,
  }),
  r(
    "create_issue_thread",
    { project_id: 1, issue_iid: 1, body: "Which browser?" },
    "POST",
    `${P}/issues/1/discussions`,
    {
      save: (b, c) => {
        c.issueThread = b.id;
      },
    },
  ),
  r(
    "reply_to_issue_thread",
    (c) => ({ project_id: 1, issue_iid: 1, discussion_id: c.issueThread, body: "Firefox" }),
    "POST",
    (c) => `${P}/issues/1/discussions/${c.issueThread}/notes`,
    { expect: /Firefox/ },
  ),
  r(
    "create_issue_link",
    {
      project_id: 1,
      issue_iid: 1,
      target_project_id: "acme/widgets",
      target_issue_iid: 2,
      link_type: "blocks",
    },
    "POST",
    `${P}/issues/1/links`,
    { expect: /"link_type":"blocks"/ },
  ),
  r("list_issue_links", { project_id: 1, issue_iid: 2 }, "GET", `${P}/issues/2/links`, {
    expect: /"link_type":"is_blocked_by"/,
    save: (b, c) => {
      c.link = b.items[0].issue_link_id;
    },
  }),
  r(
    "delete_issue_link",
    (c) => ({ project_id: 1, issue_iid: 2, issue_link_id: c.link }),
    "DELETE",
    (c) => `${P}/issues/2/links/${c.link}`,
  ),
  r(
    "delete_issue",
    (c) => ({ project_id: 1, issue_iid: c.issue }),
    "DELETE",
    (c) => `${P}/issues/${c.issue}`,
    {
      expect: /^Done\.$/,
    },
  ),
  r(
    "delete_milestone",
    (c) => ({ project_id: 1, milestone_id: c.milestone }),
    "DELETE",
    (c) => `${P}/milestones/${c.milestone}`,
  ),
  // repository
  r("get_repository_tree", { project_id: 1, recursive: true, per_page: 100 }, "GET", `${P}/repository/tree`, {
    expect: /src\/widget\.ts/,
  }),
  r(
    "get_file_contents",
    { project_id: 1, file_path: "src/index.ts", ref: "main" },
    "GET",
    `${P}/repository/files/src%2Findex.ts`,
    {
      expect: /export \* from/,
    },
  ),
  r("list_branches", { project_id: 1 }, "GET", `${P}/repository/branches`, {
    expect: /feature\/layout-cache/,
  }),
  r(
    "get_branch",
    { project_id: 1, branch: "feature/layout-cache" },
    "GET",
    `${P}/repository/branches/feature%2Flayout-cache`,
    {
      expect: /"name":"feature\/layout-cache"/,
    },
  ),
  r(
    "create_branch",
    { project_id: 1, branch: "feature/table", ref: "main" },
    "POST",
    `${P}/repository/branches`,
    {
      expect: /feature\/table/,
    },
  ),
  r(
    "create_or_update_file",
    {
      project_id: 1,
      file_path: "docs/table.md",
      branch: "feature/table",
      content: "# T\n",
      commit_message: "Add table",
      create: true,
    },
    "POST",
    `${P}/repository/files/docs%2Ftable.md`,
  ),
  r(
    "push_files",
    {
      project_id: 1,
      branch: "feature/table",
      commit_message: "Rework docs",
      actions: [
        { action: "update", file_path: "docs/table.md", content: "# Table\n" },
        { action: "move", file_path: "docs/handbook.md", previous_path: "docs/guide.md" },
        { action: "create", file_path: "docs/new.md", content: "new\n" },
        { action: "delete", file_path: "src/index.ts" },
      ],
    },
    "POST",
    `${P}/repository/commits`,
    { expect: /Rework docs/ },
  ),
  r(
    "delete_file",
    { project_id: 1, file_path: "docs/new.md", branch: "feature/table", commit_message: "Drop new" },
    "DELETE",
    `${P}/repository/files/docs%2Fnew.md`,
  ),
  r("list_commits", { project_id: 1, ref_name: "feature/table" }, "GET", `${P}/repository/commits`, {
    expect: /Drop new[\s\S]*Rework docs/,
  }),
  r("get_commit", { project_id: 1, sha: "main" }, "GET", `${P}/repository/commits/main`, {
    expect: /"short_id":"[0-9a-f]+","title":"[^"]+"[\s\S]*"author_name"/,
  }),
  r(
    "get_commit_diff",
    { project_id: 1, sha: "feature/layout-cache" },
    "GET",
    `${P}/repository/commits/feature%2Flayout-cache/diff`,
    {
      expect: /src\/widget\.ts/,
    },
  ),
  r(
    "get_branch_diffs",
    { project_id: 1, from: "main", to: "feature/table" },
    "GET",
    `${P}/repository/compare`,
    {
      expect: /docs\/handbook\.md/,
    },
  ),
  r(
    "get_file_blame",
    { project_id: 1, file_path: "README.md", ref: "main" },
    "GET",
    `${P}/repository/files/README.md/blame`,
    {
      expect: /"lines":\[\s*"# Widgets"/,
    },
  ),
  r(
    "push_files",
    {
      project_id: 1,
      branch: "tmp/scratch",
      start_branch: "main",
      commit_message: "Scratch",
      actions: [{ action: "create", file_path: "x", content: "x" }],
    },
    "POST",
    `${P}/repository/commits`,
  ),
  r(
    "delete_branch",
    { project_id: 1, branch: "tmp/scratch" },
    "DELETE",
    `${P}/repository/branches/tmp%2Fscratch`,
  ),
  // tags and releases
  r("list_tags", { project_id: 1 }, "GET", `${P}/repository/tags`, { expect: /v1\.4\.0/ }),
  r("get_tag", { project_id: 1, tag_name: "v1.4.0" }, "GET", `${P}/repository/tags/v1.4.0`, {
    expect: /Release 1\.4\.0/,
  }),
  r(
    "create_tag",
    { project_id: 1, tag_name: "v1.5.0-rc1", ref: "main", message: "RC" },
    "POST",
    `${P}/repository/tags`,
    {
      expect: /v1\.5\.0-rc1/,
    },
  ),
  r("delete_tag", { project_id: 1, tag_name: "v1.5.0-rc1" }, "DELETE", `${P}/repository/tags/v1.5.0-rc1`),
  r(
    "create_release",
    { project_id: 1, tag_name: "v1.4.0", name: "Widgets 1.4", description: "Faster" },
    "POST",
    `${P}/releases`,
    {
      expect: /"name":"Widgets 1\.4"/,
    },
  ),
  r("list_releases", { project_id: 1 }, "GET", `${P}/releases`, { expect: /v1\.4\.0/ }),
  r("get_release", { project_id: 1, tag_name: "v1.4.0" }, "GET", `${P}/releases/v1.4.0`, {
    expect: /Faster/,
  }),
  r(
    "update_release",
    { project_id: 1, tag_name: "v1.4.0", description: "Much faster" },
    "PUT",
    `${P}/releases/v1.4.0`,
    {
      expect: /Much faster/,
    },
  ),
  r("delete_release", { project_id: 1, tag_name: "v1.4.0" }, "DELETE", `${P}/releases/v1.4.0`),
  // wiki
  r(
    "create_wiki_page",
    { project_id: 1, title: "Release process", content: "1. tag\n" },
    "POST",
    `${P}/wikis`,
    {
      expect: /"slug":"Release-process"/,
    },
  ),
  r("list_wiki_pages", { project_id: 1, with_content: true }, "GET", `${P}/wikis`, { expect: /1\. tag/ }),
  r("get_wiki_page", { project_id: 1, slug: "Release-process" }, "GET", `${P}/wikis/Release-process`, {
    expect: /1\. tag/,
  }),
  r(
    "update_wiki_page",
    { project_id: 1, slug: "Release-process", content: "1. tag\n2. release\n" },
    "PUT",
    `${P}/wikis/Release-process`,
    {
      expect: /2\. release/,
    },
  ),
  r("delete_wiki_page", { project_id: 1, slug: "Release-process" }, "DELETE", `${P}/wikis/Release-process`),
  // merge requests
  r("list_merge_requests", { project_id: 1, state: "opened" }, "GET", `${P}/merge_requests`, {
    expect: /Cache widget layouts/,
  }),
  r("get_merge_request", { project_id: 1, merge_request_iid: 1 }, "GET", MR1, {
    expect: /"diff_refs"/,
    save: (b, c) => {
      c.refs = b.diff_refs;
    },
  }),
  r("get_merge_request_diffs", { project_id: 1, merge_request_iid: 1, per_page: 1 }, "GET", `${MR1}/diffs`, {
    expect: /"next_page":2/,
  }),
  r("get_merge_request_changes", { project_id: 1, merge_request_iid: 1 }, "GET", `${MR1}/changes`, {
    expect: /"changes"/,
  }),
  r("list_merge_request_commits", { project_id: 1, merge_request_iid: 1 }, "GET", `${MR1}/commits`, {
    expect: /Cache widget layouts/,
  }),
  r("list_merge_request_pipelines", { project_id: 1, merge_request_iid: 1 }, "GET", `${MR1}/pipelines`, {
    expect: /"status":"failed"/,
  }),
  r("get_merge_request_conflicts", { project_id: 1, merge_request_iid: 1 }, "GET", `${MR1}/conflicts`, {
    expect: /"files":\[\]/,
  }),
  r(
    "create_merge_request",
    {
      project_id: 1,
      source_branch: "feature/table",
      target_branch: "main",
      title: "Docs table",
      draft: true,
      reviewer_ids: [2],
    },
    "POST",
    `${P}/merge_requests`,
    { expect: /"draft":true/ },
  ),
  r(
    "update_merge_request",
    { project_id: 1, merge_request_iid: 1, reviewer_ids: [2, 3], add_labels: "perf", draft: false },
    "PUT",
    MR1,
    { expect: /carol/ },
  ),
  r("mr_discussions", { project_id: 1, merge_request_iid: 1 }, "GET", `${MR1}/discussions`, {
    expect: /bounded/,
  }),
  r("get_merge_request_notes", { project_id: 1, merge_request_iid: 1 }, "GET", `${MR1}/notes`, {
    expect: /bounded/,
  }),
  r(
    "create_merge_request_note",
    { project_id: 1, merge_request_iid: 1, body: "LGTM" },
    "POST",
    `${MR1}/notes`,
    {
      expect: /LGTM/,
    },
  ),
  r(
    "create_merge_request_thread",
    (c) => ({
      project_id: 1,
      merge_request_iid: 1,
      body: "Bound this cache",
      position: {
        ...c.refs,
        position_type: "text",
        new_path: "src/widget.ts",
        old_path: "src/widget.ts",
        new_line: 6,
      },
    }),
    "POST",
    `${MR1}/discussions`,
    {
      expect: /"type":"DiffNote"[\s\S]*"new_line":6/,
      save: (b, c) => {
        c.thread = b.id;
      },
    },
  ),
  r(
    "create_merge_request_discussion_note",
    (c) => ({ project_id: 1, merge_request_iid: 1, discussion_id: c.thread, body: "Done" }),
    "POST",
    (c) => `${MR1}/discussions/${c.thread}/notes`,
    {
      expect: /Done/,
      save: (b, c) => {
        c.reply = b.id;
      },
    },
  ),
  r(
    "update_merge_request_discussion_note",
    (c) => ({
      project_id: 1,
      merge_request_iid: 1,
      discussion_id: c.thread,
      note_id: c.reply,
      body: "Done, bounded",
    }),
    "PUT",
    (c) => `${MR1}/discussions/${c.thread}/notes/${c.reply}`,
    { expect: /"body":"Done, bounded"/ },
  ),
  r(
    "delete_merge_request_discussion_note",
    (c) => ({ project_id: 1, merge_request_iid: 1, discussion_id: c.thread, note_id: c.reply }),
    "DELETE",
    (c) => `${MR1}/discussions/${c.thread}/notes/${c.reply}`,
    { expect: /^Done\.$/ },
  ),
  // the two-step review, versions, approval state, notes by id, draft notes
  r(
    "get_merge_request_approval_state",
    { project_id: 1, merge_request_iid: 1 },
    "GET",
    `${MR1}/approval_state`,
    {
      expect: /"rule_type":"any_approver"/,
    },
  ),
  r("list_merge_request_diffs", { project_id: 1, merge_request_iid: 1, per_page: 1 }, "GET", `${MR1}/diffs`, {
    expect: /"diff":"@@[\s\S]*"next_page":2/,
  }),
  r("list_merge_request_changed_files", { project_id: 1, merge_request_iid: 1 }, "GET", `${MR1}/diffs`, {
    expect: /^(?![\s\S]*"diff":)[\s\S]*"new_path":"src\/widget\.ts"/,
  }),
  r(
    "get_merge_request_file_diff",
    { project_id: 1, merge_request_iid: 1, file_path: "src/widget.ts" },
    "GET",
    `${MR1}/diffs`,
    { expect: /"diff":"@@[\s\S]*cache/ },
  ),
  r("list_merge_request_versions", { project_id: 1, merge_request_iid: 1 }, "GET", `${MR1}/versions`, {
    expect: /"head_commit_sha"/,
    save: (b, c) => {
      c.version = b.items[0].id;
    },
  }),
  r(
    "get_merge_request_version",
    (c) => ({ project_id: 1, merge_request_iid: 1, version_id: c.version }),
    "GET",
    (c) => `${MR1}/versions/${c.version}`,
    { expect: /"commits"[\s\S]*"diffs"/ },
  ),
  r(
    "create_note",
    { project_id: 1, noteable_type: "merge_request", noteable_iid: 1, body: "A plain comment" },
    "POST",
    `${MR1}/notes`,
    {
      expect: /"noteable_type":"MergeRequest"/,
      save: (b, c) => {
        c.mrNote = b.id;
      },
    },
  ),
  r(
    "get_merge_request_note",
    (c) => ({ project_id: 1, merge_request_iid: 1, note_id: c.mrNote }),
    "GET",
    (c) => `${MR1}/notes/${c.mrNote}`,
    { expect: /A plain comment/ },
  ),
  r(
    "update_merge_request_note",
    (c) => ({ project_id: 1, merge_request_iid: 1, note_id: c.mrNote, body: "An edited comment" }),
    "PUT",
    (c) => `${MR1}/notes/${c.mrNote}`,
    { expect: /An edited comment/ },
  ),
  r(
    "delete_merge_request_note",
    (c) => ({ project_id: 1, merge_request_iid: 1, note_id: c.mrNote }),
    "DELETE",
    (c) => `${MR1}/notes/${c.mrNote}`,
    { expect: /^Done\.$/ },
  ),
  ...["first", "second", "third"].map((n) =>
    r(
      "create_draft_note",
      { project_id: 1, merge_request_iid: 1, note: `${n} draft` },
      "POST",
      `${MR1}/draft_notes`,
      {
        expect: new RegExp(`"note":"${n} draft"`),
        save: (b, c) => {
          c[`draft_${n}`] = b.id;
        },
      },
    ),
  ),
  r("list_draft_notes", { project_id: 1, merge_request_iid: 1 }, "GET", `${MR1}/draft_notes`, {
    expect: /first draft[\s\S]*second draft/,
  }),
  r(
    "get_draft_note",
    (c) => ({ project_id: 1, merge_request_iid: 1, draft_note_id: c.draft_first }),
    "GET",
    (c) => `${MR1}/draft_notes/${c.draft_first}`,
    { expect: /first draft/ },
  ),
  r(
    "update_draft_note",
    (c) => ({
      project_id: 1,
      merge_request_iid: 1,
      draft_note_id: c.draft_first,
      note: "first draft, edited",
    }),
    "PUT",
    (c) => `${MR1}/draft_notes/${c.draft_first}`,
    { expect: /first draft, edited/ },
  ),
  r(
    "publish_draft_note",
    (c) => ({ project_id: 1, merge_request_iid: 1, draft_note_id: c.draft_first }),
    "PUT",
    (c) => `${MR1}/draft_notes/${c.draft_first}/publish`,
    { expect: /^Done\.$/ },
  ),
  r(
    "delete_draft_note",
    (c) => ({ project_id: 1, merge_request_iid: 1, draft_note_id: c.draft_second }),
    "DELETE",
    (c) => `${MR1}/draft_notes/${c.draft_second}`,
    { expect: /^Done\.$/ },
  ),
  r(
    "bulk_publish_draft_notes",
    { project_id: 1, merge_request_iid: 1 },
    "POST",
    `${MR1}/draft_notes/bulk_publish`,
    {
      expect: /^Done\.$/,
    },
  ),
  r(
    "resolve_merge_request_thread",
    (c) => ({ project_id: 1, merge_request_iid: 1, discussion_id: c.thread }),
    "PUT",
    (c) => `${MR1}/discussions/${c.thread}`,
    { expect: /"resolved":true/ },
  ),
  r(
    "approve_merge_request",
    { project_id: 1, merge_request_iid: 2 },
    "POST",
    `${P}/merge_requests/2/approve`,
    {
      expect: /"approved":true/,
    },
  ),
  r(
    "get_merge_request_approvals",
    { project_id: 1, merge_request_iid: 2 },
    "GET",
    `${P}/merge_requests/2/approvals`,
    {
      expect: /alice/,
    },
  ),
  r(
    "unapprove_merge_request",
    { project_id: 1, merge_request_iid: 2 },
    "POST",
    `${P}/merge_requests/2/unapprove`,
  ),
  r(
    "merge_merge_request",
    {
      project_id: 1,
      merge_request_iid: 2,
      should_remove_source_branch: true,
      merge_commit_message: "Merge the typo fix",
    },
    "PUT",
    `${P}/merge_requests/2/merge`,
    { expect: /"state":"merged"/ },
  ),
  // CI
  r("list_pipelines", { project_id: 1, ref: "main" }, "GET", `${P}/pipelines`, {
    expect: /"status":"success"/,
  }),
  r("get_pipeline", { project_id: 1, pipeline_id: 1 }, "GET", `${P}/pipelines/1`, {
    expect: /"status":"success"/,
  }),
  r("list_pipeline_jobs", { project_id: 1, pipeline_id: 1 }, "GET", `${P}/pipelines/1/jobs`, {
    save: (b, c) => {
      c.build = b.items.find((j: { name: string }) => j.name === "build").id;
    },
  }),
  r(
    "get_pipeline_job",
    (c) => ({ project_id: 1, job_id: c.build }),
    "GET",
    (c) => `${P}/jobs/${c.build}`,
    {
      needs: ["build"],
      expect: /"name":"build"/,
    },
  ),
  r(
    "get_pipeline_job_output",
    (c) => ({ project_id: 1, job_id: c.build, tail_lines: 1 }),
    "GET",
    (c) => `${P}/jobs/${c.build}/trace`,
    {
      needs: ["build"],
      expect: /^Job succeeded\n$/,
    },
  ),
  r(
    "list_job_artifacts",
    (c) => ({ project_id: 1, job_id: c.build }),
    "GET",
    (c) => `${P}/jobs/${c.build}`,
    {
      needs: ["build"],
      expect: /"file_type":"archive"/,
    },
  ),
  r(
    "get_job_artifact_file",
    (c) => ({ project_id: 1, job_id: c.build, artifact_path: "build/summary.txt" }),
    "GET",
    (c) => `${P}/jobs/${c.build}/artifacts/build/summary.txt`,
    { needs: ["build"], expect: /: success/ },
  ),
  r(
    "retry_pipeline_job",
    (c) => ({ project_id: 1, job_id: c.build }),
    "POST",
    (c) => `${P}/jobs/${c.build}/retry`,
    {
      needs: ["build"],
      expect: /"status":"(created|pending)"/,
      save: (b, c) => {
        c.retried = b.id;
      },
    },
  ),
  r(
    "cancel_pipeline_job",
    (c) => ({ project_id: 1, job_id: c.retried }),
    "POST",
    (c) => `${P}/jobs/${c.retried}/cancel`,
    {
      expect: /"status":"canceled"/,
    },
  ),
  r("retry_pipeline", { project_id: 1, pipeline_id: 2 }, "POST", `${P}/pipelines/2/retry`),
  r(
    "create_pipeline",
    { project_id: 1, ref: "main", variables: [{ key: "SIM_FAIL_JOB", value: "lint" }] },
    "POST",
    `${P}/pipeline`,
    {
      save: (b, c) => {
        c.pipeline = b.id;
      },
    },
  ),
  r(
    "cancel_pipeline",
    (c) => ({ project_id: 1, pipeline_id: c.pipeline }),
    "POST",
    (c) => `${P}/pipelines/${c.pipeline}/cancel`,
    {
      expect: /"status":"canceled"/,
    },
  ),
  r(
    "play_pipeline_job",
    (c) => ({ project_id: 1, job_id: c.manual }),
    "POST",
    (c) => `${P}/jobs/${c.manual}/play`,
    {
      expect: /"status":"pending"/,
    },
  ),
  // protected branches, commit statuses, to-dos, namespaces
  r("list_protected_branches", { project_id: 1 }, "GET", `${P}/protected_branches`, {
    expect: /"name":"main"/,
  }),
  r(
    "protect_branch",
    { project_id: 1, name: "release/*", push_access_level: 0 },
    "POST",
    `${P}/protected_branches`,
    { expect: /"name":"release\/\*"[\s\S]*"access_level":0/ },
  ),
  r(
    "get_protected_branch",
    { project_id: 1, name: "release/*" },
    "GET",
    `${P}/protected_branches/release%2F*`,
    {
      expect: /"allow_force_push":false/,
    },
  ),
  r(
    "unprotect_branch",
    { project_id: 1, name: "release/*" },
    "DELETE",
    `${P}/protected_branches/release%2F*`,
    {
      expect: /^Done\.$/,
    },
  ),
  r(
    "create_commit_status",
    { project_id: 1, sha: "main", state: "success", name: "ext-check" },
    "POST",
    `${P}/statuses/main`,
    { expect: /"status":"success"/ },
  ),
  r("list_commit_statuses", { project_id: 1, sha: "main" }, "GET", `${P}/repository/commits/main/statuses`, {
    expect: /"name":"ext-check"/,
  }),
  r("mark_all_todos_done", {}, "POST", `${A}/todos/mark_as_done`, { expect: /^Done\.$/ }),
  r("verify_namespace", { namespace: "acme" }, "GET", `${A}/namespaces/acme/exists`, {
    expect: /"exists":true[\s\S]*"acme1"/,
  }),
  // search and GraphQL
  r("search", { scope: "issues", search: "render" }, "GET", `${A}/search`, { expect: /render slowly/ }),
  r(
    "search",
    { scope: "merge_requests", search: "cache", group_id: "acme" },
    "GET",
    `${A}/groups/acme/search`,
    {
      expect: /Cache widget layouts/,
    },
  ),
  r("search", { scope: "blobs", search: "innerHTML", project_id: 1 }, "GET", `${P}/search`, {
    expect: /widget/,
  }),
  r(
    "graphql_query",
    {
      query:
        "query($p: ID!) { currentUser { username } project(fullPath: $p) { name issues(state: opened) { count nodes { iid title } } } }",
      variables: { p: "acme/widgets" },
    },
    "POST",
    "/api/graphql",
    { expect: /"username":"alice"[\s\S]*"name":"Widgets"/ },
  ),
  r(
    "execute_graphql",
    {
      query:
        "mutation($id: NoteableID!, $body: String!) { createNote(input: {noteableId: $id, body: $body}) { note { body } errors } }",
      variables: { id: "gid://gitlab/Issue/1", body: "via GraphQL" },
    },
    "POST",
    "/api/graphql",
    { expect: /"body":"via GraphQL"/ },
  ),
  // emoji reactions, CI/CD variables, milestone items and group milestones, CI beside pipelines
  ...rowsA,
  ...tableRows,
  // pipeline schedules and triggers, environment and deployment changes
  ...rowsC,
  ...rowsD,
];

type Result = { isError?: boolean; content: Array<{ text: string }>; structuredContent?: unknown };

describe("every tool against the forge simulator (one row per tool)", () => {
  let forge: Forge;
  let mcp: RunningForgeMcp;
  let client: Client;
  const c: Ctx = {};
  // The simulator runs in this process: its fault rules and request log are set and read here
  // directly, not through its control API (a handful of requests per row, about 1,700 in all).
  let mark = 0;
  const clearLog = () => {
    mark = forge.sim.log.last;
  };
  const log = async () => forge.sim.log.since(mark).filter((e) => !e.path.startsWith("/_sim"));
  // one validator for every row's outputSchema: a new one per row cost more than the call it checks
  const validator = new AjvJsonSchemaValidator();

  beforeAll(async () => {
    forge = await startForge();
    await forge.seed({
      pipelines: [
        {
          project: "acme/widgets",
          ref: "main",
          jobs: [{ name: "deploy", stage: "deploy", status: "manual" }],
        },
      ],
      ...tableSeed,
    });
    const jobs = (await (
      await fetch(`${forge.apiUrl}/projects/1/jobs?scope=manual`, {
        headers: { "private-token": "sim-forge-pat" },
      })
    ).json()) as Array<{ id: number; name: string }>;
    c.manual = jobs.find((j) => j.name === "deploy")!.id;
    await prepareA(forge.origin, forge.seed, c);
    // after table-a's set-ups, whose rows read the first environment of the list
    await forge.seed(tableSeedC);
    await prepareD(forge.origin, forge.seed, c);
    mcp = await startForgeMcp({
      MCP_TRANSPORT: "http",
      FORGE_TOKEN: "sim-forge-pat",
      FORGE_API_URL: forge.apiUrl,
      FORGE_TOOLSETS: "all",
    });
    client = new Client({ name: "table", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
    await mcp?.close();
    await forge?.close();
  });

  // each tool's outputSchema (read tools have one), from tools/list, once
  let schemas: Map<string, unknown> | undefined;
  const listed = async () =>
    (schemas ??= new Map(
      (await client.listTools()).tools.filter((t) => t.outputSchema).map((t) => [t.name, t.outputSchema]),
    ));

  it("has a row for every tool in the registry, and tools/list serves them all", async () => {
    const registry = Object.values(TOOLSETS)
      .flat()
      .map((t) => t.name)
      .sort();
    expect([...new Set(rows.map((x) => x.tool))].sort()).toEqual(registry);
    // and the meta tools, which are always listed
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(
      [...registry, "search_tools", "discover_tools"].sort(),
    );
  });

  it.each(rows.map((row, i) => [i + 1, row.tool, row] as const))("%i %s", async (_n, name, row) => {
    await ensure(row.needs, forge.origin, c);
    const args = typeof row.args === "function" ? row.args(c) : row.args;
    const path = typeof row.path === "function" ? row.path(c) : row.path;
    const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const before = (typeof row.before === "function" ? row.before(c) : (row.before ?? [])).sort();
    /** The forge calls seen: the tool's look-ups first (in any order), then the row's own request. */
    const split = <T>(xs: T[]) => [xs.slice(0, before.length), xs.slice(before.length)] as const;
    const own = `${row.method} ${path}`;
    const calls = (typeof row.calls === "function" ? row.calls(c) : row.calls) ?? [own];

    // 1. The forge refuses exactly this request: the tool relays it as isError, nothing else happens.
    forge.sim.faults.set({
      rules: [
        {
          method: row.method,
          path: `^${escaped}$`,
          action: { type: "status", status: 422, body: { message: `simulated refusal of ${name}` } },
        },
      ],
    });
    clearLog();
    const failed = (await client.callTool({ name, arguments: args })) as Result;
    forge.sim.faults.clear();
    expect(failed.isError).toBe(true);
    expect(failed.content[0]!.text).toBe(`Forge error 422: simulated refusal of ${name}`);
    if (row.calls) {
      const upToFault = calls.slice(0, calls.indexOf(own) + 1);
      expect((await log()).map((e) => `${e.method} ${e.path} ${e.status === 422 ? 422 : "ok"}`)).toEqual(
        upToFault.map((x) => `${x} ${x === own ? 422 : "ok"}`),
      );
    } else {
      const [lookups, failedCall] = split(await log());
      expect(lookups.map((e) => `${e.method} ${e.path}`).sort()).toEqual(before);
      expect(failedCall.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
        `${row.method} ${path} 422`,
      ]);
    }

    // 2. For real: the row's forge request (or its calls), and the answer the row expects.
    clearLog();
    const ok = (await client.callTool({ name, arguments: args })) as Result;
    const text = ok.content[0]!.text;
    expect(ok.isError, text).toBeFalsy();
    if (row.calls) {
      const seen = await log();
      expect(seen.map((e) => `${e.method} ${e.path}`)).toEqual(calls);
      for (const e of seen) expect(e.status).toBeLessThan(400);
    } else {
      const [looked, calls] = split(await log());
      expect(looked.map((e) => `${e.method} ${e.path}`).sort()).toEqual(before);
      expect(calls.map((e) => `${e.method} ${e.path}`)).toEqual([`${row.method} ${path}`]);
      expect(calls[0]!.status).toBeLessThan(300);
    }
    if (row.expect) expect(text).toMatch(row.expect);
    // 3. A read tool's answer is structuredContent as well, valid against the outputSchema it lists
    const schema = (await listed()).get(name);
    if (schema) {
      expect(ok.structuredContent, name).toBeTypeOf("object");
      expect(validator.getValidator(schema as never)(ok.structuredContent).valid).toBe(true);
    }
    if (row.save) row.save(text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : text, c);
  });
});
