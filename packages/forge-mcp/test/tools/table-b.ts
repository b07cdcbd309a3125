/**
 * Rows of tools/table.test.ts for work items, group wikis and iterations, webhooks, uploads and
 * downloads, release evidence, tag signatures, code search, vulnerabilities and the dependency
 * proxy, with the records they need seeded into the forge simulator (`tableSeed`).
 */

type Args = Record<string, unknown>;
export type Ctx = Record<string, any>;
export interface Row {
  tool: string;
  args: Args | ((c: Ctx) => Args);
  method: string;
  path: string | ((c: Ctx) => string);
  expect?: RegExp;
  save?: (body: any, c: Ctx) => void;
  /** Forge calls the tool makes before the row's own (in any order), as "METHOD path". */
  before?: string[] | ((c: Ctx) => string[]);
  /** Context values the row uses that an earlier row leaves; made by table-a.ts's set-ups when missing. */
  needs?: string[];
  /**
   * Every forge request of a tool that needs more than one ("METHOD path", in order; the row's own
   * request among them): the fault on the row's request must end the call there.
   */
  calls?: string[] | ((c: Ctx) => string[]);
}

const A = "/api/v4";
const P = `${A}/projects/1`;
const G = `${A}/groups/acme`;
const GQL = "/api/graphql";
const twice = [`POST ${GQL}`, `POST ${GQL}`];
/** One row: the tool, its arguments, its forge request, and what else the row says. */
export const r = (
  tool: string,
  args: Row["args"],
  method: string,
  path: Row["path"],
  more: Partial<Row> = {},
): Row => ({
  tool,
  args,
  method,
  path,
  ...more,
});

export const tableSeed = {
  vulnerabilities: [
    { project: "acme/widgets", title: "SQL injection in search", severity: "high", report_type: "sast" },
    {
      project: "acme/widgets",
      title: "Outdated lodash",
      severity: "medium",
      report_type: "dependency_scanning",
    },
  ],
  dependency_proxy: [{ group: "acme", blobs: [{ file_name: "sha256:abc", size: 1024 }] }],
  custom_fields: [
    {
      group: "acme",
      name: "Customer",
      field_type: "single_select",
      options: ["Globex", "Initech"],
      work_item_types: ["issue"],
    },
    { group: "acme", name: "Effort", field_type: "number", work_item_types: ["task"] },
  ],
  releases: [{ project: "acme/widgets", tag_name: "v0.9.0", ref: "main", name: "Widgets 0.9" }],
  release_links: [
    {
      project: "acme/widgets",
      tag_name: "v0.9.0",
      name: "app.tar.gz",
      url: "https://downloads.example.com/widgets/app-0.9.tar.gz",
      direct_asset_path: "/bin/app.tar.gz",
    },
  ],
  tag_signatures: [{ project: "acme/widgets", tag_name: "v0.9.0", signature_type: "X509" }],
  group_wiki: [{ group: "acme", title: "Handbook", content: "# Handbook" }],
  iterations: [{ group: "acme", title: "Sprint 1", start_date: "2020-01-01", due_date: "2099-12-31" }],
  hooks: [
    {
      project: "acme/widgets",
      url: "https://hooks.example.com/widgets",
      events: { issues_events: true },
      deliveries: [
        { trigger: "issue_hooks", response_status: 200 },
        { trigger: "push_hooks", response_status: 500 },
      ],
    },
  ],
};

export const tableRows: Row[] = [
  // code search (scope=blobs)
  r("search_code", { search: "innerHTML", extension: "md" }, "GET", `${A}/search`, { expect: /guide\.md/ }),
  r("search_project_code", { project_id: 1, search: "innerHTML", ref: "main" }, "GET", `${P}/search`, {
    expect: /widget\.ts/,
  }),
  r("search_group_code", { group_id: "acme", search: "innerHTML" }, "GET", `${G}/search`, {
    expect: /widget/,
  }),
  // group wikis and iterations, creating a group
  r("list_group_wiki_pages", { group_id: "acme" }, "GET", `${G}/wikis`, { expect: /"slug":"Handbook"/ }),
  r("get_group_wiki_page", { group_id: "acme", slug: "Handbook" }, "GET", `${G}/wikis/Handbook`, {
    expect: /"content":"# Handbook"/,
  }),
  r("create_group_wiki_page", { group_id: "acme", title: "On call", content: "Rota" }, "POST", `${G}/wikis`, {
    expect: /"slug":"On-call"/,
  }),
  r(
    "update_group_wiki_page",
    { group_id: "acme", slug: "On-call", content: "Rota v2" },
    "PUT",
    `${G}/wikis/On-call`,
    {
      expect: /Rota v2/,
    },
  ),
  r("delete_group_wiki_page", { group_id: "acme", slug: "On-call" }, "DELETE", `${G}/wikis/On-call`, {
    expect: /^Done\.$/,
  }),
  r("list_group_iterations", { group_id: "acme", state: "current" }, "GET", `${G}/iterations`, {
    expect: /"title":"Sprint 1"[\s\S]*"state":2/,
  }),
  r("create_group", { name: "Acme Design", path: "design", parent_id: 1 }, "POST", `${A}/groups`, {
    expect: /"full_path":"acme\/design"/,
  }),
  // webhooks and their deliveries
  r("list_webhooks", { project_id: 1 }, "GET", `${P}/hooks`, {
    expect: /"url":"https:\/\/hooks\.example\.com\/widgets"[\s\S]*"issues_events":true/,
    save: (b, c) => {
      c.hook = b.items[0].id;
    },
  }),
  r(
    "list_webhook_events",
    (c) => ({ project_id: 1, hook_id: c.hook, status: "server_failure", summary: true }),
    "GET",
    (c) => `${P}/hooks/${c.hook}/events`,
    {
      expect: /"trigger":"push_hooks","response_status":500/,
      save: (b, c) => {
        c.hookEvent = b.items[0].id;
      },
    },
  ),
  r(
    "get_webhook_event",
    (c) => ({ project_id: 1, hook_id: c.hook, event_id: c.hookEvent, page: 1 }),
    "GET",
    (c) => `${P}/hooks/${c.hook}/events`,
    { expect: /"request_headers"/ },
  ),
  // uploads and downloads, release evidence, tag signatures
  r(
    "upload_markdown",
    { project_id: 1, filename: "notes.txt", content: Buffer.from("hello from a file\n").toString("base64") },
    "POST",
    `${P}/uploads`,
    {
      expect: /"markdown":"\[notes\]\(\/uploads\/[0-9a-zA-Z]{32}\/notes\.txt\)"/,
      save: (b, c) => {
        c.upload = b.url.split("/")[2];
      },
    },
  ),
  r(
    "download_attachment",
    (c) => ({ project_id: 1, secret: c.upload, filename: "notes.txt" }),
    "GET",
    (c) => `${P}/uploads/${c.upload}/notes.txt`,
    { expect: /"encoding":"utf-8","content":"hello from a file\\n"/ },
  ),
  r(
    "download_release_asset",
    { project_id: 1, tag_name: "v0.9.0", direct_asset_path: "/bin/app.tar.gz" },
    "GET",
    `${P}/releases/v0.9.0/downloads/bin/app.tar.gz`,
    {
      expect: /"redirect":"https:\/\/downloads\.example\.com\/widgets\/app-0\.9\.tar\.gz","fetched":false/,
      calls: [`GET ${P}/releases/v0.9.0/downloads/bin/app.tar.gz`],
    },
  ),
  r(
    "create_release_evidence",
    { project_id: 1, tag_name: "v0.9.0" },
    "POST",
    `${P}/releases/v0.9.0/evidence`,
    {
      expect: /^true$/,
    },
  ),
  r(
    "get_tag_signature",
    { project_id: 1, tag_name: "v0.9.0" },
    "GET",
    `${P}/repository/tags/v0.9.0/signature`,
    {
      expect: /"signature_type":"X509","verification_status":"verified"/,
    },
  ),
  // one issue link, description patches
  r(
    "create_issue_link",
    { project_id: 1, issue_iid: 1, target_project_id: 1, target_issue_iid: 3, link_type: "relates_to" },
    "POST",
    `${P}/issues/1/links`,
  ),
  r("list_issue_links", { project_id: 1, issue_iid: 3 }, "GET", `${P}/issues/3/links`, {
    save: (b, c) => {
      c.link3 = b.items[0].issue_link_id;
    },
  }),
  r(
    "get_issue_link",
    (c) => ({ project_id: 1, issue_iid: 3, issue_link_id: c.link3 }),
    "GET",
    (c) => `${P}/issues/3/links/${c.link3}`,
    {
      expect:
        /"source_issue":\{"id":\d+,"iid":1,[\s\S]*"target_issue":\{"id":\d+,"iid":3,[\s\S]*"link_type":"relates_to"/,
    },
  ),
  r(
    "update_issue_description_patch",
    {
      project_id: 1,
      issue_iid: 3,
      patch_type: "search_replace",
      patch: "<<<<<<< SEARCH\nthrows\n=======\nthrows a TypeError\n>>>>>>> REPLACE",
    },
    "PUT",
    `${P}/issues/3`,
    {
      expect: /throws a TypeError when the title is empty/,
      calls: [`GET ${P}/issues/3`, `PUT ${P}/issues/3`],
    },
  ),
  // users, work items, incidents' timelines (GraphQL)
  r("get_users", { usernames: ["alice", "bob", "nobody"] }, "POST", GQL, {
    expect:
      /^\{"items":\[\{"id":"gid:\/\/gitlab\/User\/\d+","username":"alice"[^\]]*"username":"bob"[^\]]*\]\}$/,
  }),
  r("list_work_items", { project_id: "acme/widgets", state: "opened", first: 5 }, "POST", GQL, {
    expect: /"workItemType":\{"name":"Issue"\}[\s\S]*"pageInfo"/,
  }),
  r(
    "create_work_item",
    {
      project_id: 1,
      title: "Pager storm",
      type: "incident",
      description: "Alerts fire",
      labels: ["bug"],
      assignee_usernames: ["bob"],
    },
    "POST",
    GQL,
    {
      expect: /"title":"Pager storm"/,
      calls: twice,
      save: (b, c) => {
        c.incident = Number(b.iid);
      },
    },
  ),
  r("get_work_item", (c) => ({ project_id: 1, iid: c.incident }), "POST", GQL, {
    expect: /"name":"Incident"[\s\S]*"description":"Alerts fire"[\s\S]*"username":"bob"[\s\S]*"title":"bug"/,
  }),
  r(
    "update_work_item",
    {
      project_id: 1,
      iid: 1,
      title: "Widgets render slowly (tracked)",
      status: "gid://gitlab/WorkItems::Statuses::SystemDefined::Status/2",
    },
    "POST",
    GQL,
    { expect: /"title":"Widgets render slowly \(tracked\)"[\s\S]*"name":"In progress"/, calls: twice },
  ),
  r("list_work_item_statuses", { project_id: 1 }, "POST", GQL, {
    expect: /"work_item_type":"Issue","statuses":\[[^\]]*"name":"In progress"/,
  }),
  r("list_custom_field_definitions", { project_id: "acme/widgets" }, "POST", GQL, {
    expect:
      /^\{"work_item_type":"Issue","custom_fields":\[\{"id":"[^"]+","name":"Customer","fieldType":"SINGLE_SELECT","selectOptions":\[\{"id":"[^"]+","value":"Globex"\}/,
  }),
  r("convert_work_item_type", { project_id: 1, iid: 2, new_type: "task" }, "POST", GQL, {
    expect: /"workItemType":\{"name":"Task"\}/,
    calls: twice,
  }),
  r(
    "create_work_item_note",
    (c) => ({ project_id: 1, iid: c.incident, body: "Paged the on-call" }),
    "POST",
    GQL,
    {
      expect: /"body":"Paged the on-call"/,
      calls: twice,
    },
  ),
  r("list_work_item_notes", (c) => ({ project_id: 1, iid: c.incident }), "POST", GQL, {
    expect: /"body":"Paged the on-call"[\s\S]*"username":"alice"/,
  }),
  r(
    "create_timeline_event",
    (c) => ({
      project_id: 1,
      incident_iid: c.incident,
      note: "Alert fired",
      occurred_at: "2026-11-26T09:00:00Z",
      tag_names: ["Start time"],
    }),
    "POST",
    GQL,
    { expect: /"note":"Alert fired"[\s\S]*"name":"Start time"/, calls: twice },
  ),
  r("get_timeline_events", (c) => ({ project_id: 1, incident_iid: c.incident }), "POST", GQL, {
    expect: /"note":"Alert fired","occurredAt":"2026-11-26T09:00:00Z"/,
    calls: twice,
  }),
  r(
    "move_work_item",
    (c) => ({ project_id: "acme/widgets", iid: c.incident, target_project_id: "acme/platform/infra" }),
    "POST",
    GQL,
    { expect: /"webUrl":"[^"]*\/acme\/platform\/infra\/-\/issues\/\d+"/ },
  ),
  // vulnerabilities and the dependency proxy (GraphQL; the cache purge is REST)
  r("list_project_vulnerabilities", { project_id: 1, severity: "high" }, "POST", GQL, {
    expect:
      /^\{"nodes":\[\{"id":"gid:\/\/gitlab\/Vulnerability\/\d+","title":"SQL injection in search"[^\]]*\]/,
    save: (b, c) => {
      c.vuln = Number(b.nodes[0].id.split("/").pop());
    },
  }),
  r("get_vulnerability", (c) => ({ vulnerability_id: c.vuln }), "POST", GQL, {
    expect: /"severity":"HIGH","state":"DETECTED","reportType":"SAST"/,
  }),
  r("confirm_vulnerability", (c) => ({ vulnerability_id: c.vuln, comment: "Reproduced" }), "POST", GQL, {
    expect: /"state":"CONFIRMED"/,
  }),
  r(
    "dismiss_vulnerability",
    (c) => ({ vulnerability_id: `gid://gitlab/Vulnerability/${c.vuln}`, reason: "false_positive" }),
    "POST",
    GQL,
    { expect: /"state":"DISMISSED","reportType":"SAST","dismissalReason":"FALSE_POSITIVE"/ },
  ),
  r("get_dependency_proxy_settings", { group_id: "acme" }, "POST", GQL, {
    expect: /"enabled":true,[\s\S]*"blob_count":1,"total_size":"1024 B"/,
  }),
  r("list_dependency_proxy_blobs", { group_id: "acme" }, "POST", GQL, { expect: /"fileName":"sha256:abc"/ }),
  r("update_dependency_proxy_settings", { group_id: "acme", enabled: false }, "POST", GQL, {
    expect: /^\{"enabled":false,"identity":null\}$/,
  }),
  r("purge_dependency_proxy_cache", { group_id: "acme" }, "DELETE", `${G}/dependency_proxy/cache`, {
    expect: /^Done\.$/,
  }),
];
