import type { Page } from "../forge/api.js";

/**
 * What a tool's answer holds, decided once per forge resource kind (issue, merge request,
 * pipeline, …) rather than per tool: each kind keeps the fields a model reads or a next call
 * needs (ids, iids, titles, states, web URLs, people's usernames, labels, timestamps, SHAs, branch
 * names) and drops the rest (avatars, API links, `assignee` beside `assignees`, counters the
 * model never asks about) and their nulls and empty values. Every answer, of a kind or not, loses
 * a person inside another object becomes `{id, username}`. The same table gives each read tool
 * its outputSchema, so what a tool returns and what it declares cannot drift apart.
 * `full_response: true` returns the forge's whole objects instead (they validate against the
 * same schema: every kind's schema admits more properties).
 */

/** One kept field: its JSON type, or another kind (one object, or a list of them). */
type Field =
  | "string"
  | "integer"
  | "number"
  | "boolean"
  | "strings"
  | "any"
  | { one: string }
  | { many: string };

const userRef = { id: "integer", username: "string" } as const;
const pipelineRef = {
  id: "integer",
  iid: "integer",
  project_id: "integer",
  sha: "string",
  ref: "string",
  status: "string",
  web_url: "string",
} as const;
const commitRef = {
  id: "string",
  short_id: "string",
  title: "string",
  author_name: "string",
  authored_date: "string",
  committed_date: "string",
  web_url: "string",
} as const;
const milestoneRef = {
  id: "integer",
  iid: "integer",
  title: "string",
  state: "string",
  due_date: "string",
} as const;

/** What issues and merge requests both keep. */
const tracked = {
  id: "integer",
  iid: "integer",
  project_id: "integer",
  title: "string",
  description: "string",
  state: "string",
  created_at: "string",
  updated_at: "string",
  closed_at: "string",
  closed_by: { one: "user_ref" },
  author: { one: "user_ref" },
  assignees: { many: "user_ref" },
  labels: "strings",
  milestone: { one: "milestone_ref" },
  user_notes_count: "integer",
  web_url: "string",
} as const;

/** The resource kinds and the fields each keeps, in the order the forge writes them. */
const KINDS = {
  user_ref: userRef,
  pipeline_ref: pipelineRef,
  commit_ref: commitRef,
  milestone_ref: milestoneRef,
  namespace_ref: { id: "integer", full_path: "string", kind: "string" },
  project_ref: { id: "integer", path_with_namespace: "string" },
  issue: {
    ...tracked,
    issue_type: "string",
    due_date: "string",
    confidential: "boolean",
    discussion_locked: "boolean",
  },
  merge_request: {
    ...tracked,
    merged_by: { one: "user_ref" },
    merged_at: "string",
    target_branch: "string",
    source_branch: "string",
    reviewers: { many: "user_ref" },
    source_project_id: "integer",
    target_project_id: "integer",
    draft: "boolean",
    detailed_merge_status: "string",
    sha: "string",
    merge_commit_sha: "string",
    squash_commit_sha: "string",
    has_conflicts: "boolean",
    blocking_discussions_resolved: "boolean",
    changes_count: "any",
    head_pipeline: { one: "pipeline_ref" },
    diff_refs: "any",
    merge_error: "string",
  },
  pipeline: {
    id: "integer",
    iid: "integer",
    project_id: "integer",
    sha: "string",
    ref: "string",
    status: "string",
    source: "string",
    name: "string",
    created_at: "string",
    updated_at: "string",
    started_at: "string",
    finished_at: "string",
    duration: "number",
    coverage: "any",
    user: { one: "user_ref" },
    yaml_errors: "string",
    web_url: "string",
  },
  job: {
    id: "integer",
    name: "string",
    stage: "string",
    status: "string",
    ref: "string",
    tag: "boolean",
    allow_failure: "boolean",
    failure_reason: "string",
    created_at: "string",
    started_at: "string",
    finished_at: "string",
    duration: "number",
    coverage: "any",
    user: { one: "user_ref" },
    commit: { one: "commit_ref" },
    pipeline: { one: "pipeline_ref" },
    artifacts: "any",
    web_url: "string",
  },
  project: {
    id: "integer",
    name: "string",
    path: "string",
    path_with_namespace: "string",
    description: "string",
    default_branch: "string",
    visibility: "string",
    topics: "strings",
    web_url: "string",
    http_url_to_repo: "string",
    ssh_url_to_repo: "string",
    namespace: { one: "namespace_ref" },
    forked_from_project: { one: "project_ref" },
    created_at: "string",
    last_activity_at: "string",
    archived: "boolean",
    empty_repo: "boolean",
    open_issues_count: "integer",
    permissions: "any",
  },
  user: {
    id: "integer",
    username: "string",
    name: "string",
    state: "string",
    bot: "boolean",
    email: "string",
    public_email: "string",
    is_admin: "boolean",
    created_at: "string",
    web_url: "string",
  },
  member: {
    id: "integer",
    username: "string",
    name: "string",
    state: "string",
    access_level: "integer",
    expires_at: "string",
    web_url: "string",
  },
  commit: {
    id: "string",
    short_id: "string",
    title: "string",
    message: "string",
    author_name: "string",
    author_email: "string",
    authored_date: "string",
    committed_date: "string",
    parent_ids: "strings",
    stats: "any",
    status: "string",
    last_pipeline: { one: "pipeline_ref" },
    web_url: "string",
  },
  note: {
    id: "integer",
    type: "string",
    body: "string",
    author: { one: "user_ref" },
    created_at: "string",
    updated_at: "string",
    system: "boolean",
    noteable_type: "string",
    noteable_iid: "integer",
    resolvable: "boolean",
    resolved: "boolean",
    resolved_by: { one: "user_ref" },
    internal: "boolean",
    position: "any",
  },
  discussion: { id: "string", individual_note: "boolean", notes: { many: "note" } },
  branch: {
    name: "string",
    commit: { one: "commit_ref" },
    merged: "boolean",
    protected: "boolean",
    default: "boolean",
    can_push: "boolean",
    web_url: "string",
  },
  tag: {
    name: "string",
    message: "string",
    target: "string",
    commit: { one: "commit_ref" },
    protected: "boolean",
  },
  file: {
    file_name: "string",
    file_path: "string",
    size: "integer",
    encoding: "string",
    content: "string",
    ref: "string",
    blob_id: "string",
    commit_id: "string",
    last_commit_id: "string",
  },
  milestone: {
    id: "integer",
    iid: "integer",
    project_id: "integer",
    group_id: "integer",
    title: "string",
    description: "string",
    state: "string",
    start_date: "string",
    due_date: "string",
    expired: "boolean",
    web_url: "string",
  },
  label: { id: "integer", name: "string", color: "string", description: "string", priority: "integer" },
  group: {
    id: "integer",
    name: "string",
    path: "string",
    full_path: "string",
    description: "string",
    visibility: "string",
    parent_id: "integer",
    web_url: "string",
  },
} satisfies Record<string, Record<string, Field>>;

export type Kind = keyof typeof KINDS;
const fieldsOf = (kind: string): Record<string, Field> => KINDS[kind as Kind];
// each kind's fields as [name, field] pairs, made once: slim runs per object of every answer
const entriesByKind = new Map<string, Array<[string, Field]>>();
const fieldEntries = (kind: string): Array<[string, Field]> => {
  const known = entriesByKind.get(kind);
  if (known) return known;
  const made = Object.entries(fieldsOf(kind));
  entriesByKind.set(kind, made);
  return made;
};

/** What a read tool returns: one object of a kind, a page of them, or an object of no kind. */
export type Output = { one: Kind } | { many: Kind } | "object";

/**
 * Which kind each tool returns (by its own name; its aliases share it). A read tool not named
 * here answers an object of no kind: compacted (no nulls, people as {id, username}), never
 * pruned; a write tool not named here answers the forge's object as it came.
 */
export const OUTPUTS: Record<string, Output> = {
  get_issue: { one: "issue" },
  list_issues: { many: "issue" },
  my_issues: { many: "issue" },
  get_milestone_issue: { many: "issue" },
  get_group_milestone_issue: { many: "issue" },
  get_merge_request: { one: "merge_request" },
  list_merge_requests: { many: "merge_request" },
  get_milestone_merge_requests: { many: "merge_request" },
  get_group_milestone_merge_requests: { many: "merge_request" },
  get_pipeline: { one: "pipeline" },
  list_pipelines: { many: "pipeline" },
  list_merge_request_pipelines: { many: "pipeline" },
  get_pipeline_job: { one: "job" },
  list_pipeline_jobs: { many: "job" },
  wait_for_pipeline: { one: "pipeline" },
  wait_for_job: { one: "job" },
  list_group_merge_requests: { many: "merge_request" },
  get_project: { one: "project" },
  list_projects: { many: "project" },
  search_repositories: { many: "project" },
  list_group_projects: { many: "project" },
  whoami: { one: "user" },
  get_user: { one: "user" },
  list_users: { many: "user" },
  list_project_members: { many: "member" },
  list_group_members: { many: "member" },
  get_commit: { one: "commit" },
  list_commits: { many: "commit" },
  list_merge_request_commits: { many: "commit" },
  get_merge_request_note: { one: "note" },
  get_merge_request_notes: { many: "note" },
  list_issue_notes: { many: "note" },
  list_issue_discussions: { many: "discussion" },
  mr_discussions: { many: "discussion" },
  get_branch: { one: "branch" },
  list_branches: { many: "branch" },
  get_tag: { one: "tag" },
  list_tags: { many: "tag" },
  get_file_contents: { one: "file" },
  get_milestone: { one: "milestone" },
  list_milestones: { many: "milestone" },
  get_group_milestone: { one: "milestone" },
  list_group_milestones: { many: "milestone" },
  get_label: { one: "label" },
  list_labels: { many: "label" },
  get_group: { one: "group" },
  list_groups: { many: "group" },
  // writes answering the object they made or changed: slim as well (no outputSchema: they are not reads)
  create_issue: { one: "issue" },
  update_issue: { one: "issue" },
  create_merge_request: { one: "merge_request" },
  update_merge_request: { one: "merge_request" },
  merge_merge_request: { one: "merge_request" },
  create_issue_note: { one: "note" },
  update_issue_note: { one: "note" },
  create_merge_request_note: { one: "note" },
  update_merge_request_note: { one: "note" },
  create_pipeline: { one: "pipeline" },
  retry_pipeline: { one: "pipeline" },
  cancel_pipeline: { one: "pipeline" },
  retry_pipeline_job: { one: "job" },
  cancel_pipeline_job: { one: "job" },
  play_pipeline_job: { one: "job" },
  create_branch: { one: "branch" },
  create_tag: { one: "tag" },
  create_label: { one: "label" },
  update_label: { one: "label" },
  create_milestone: { one: "milestone" },
  edit_milestone: { one: "milestone" },
};

export function outputOf(toolName: string): Output {
  return OUTPUTS[toolName] ?? "object";
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const empty = (v: unknown) =>
  v === null ||
  v === undefined ||
  v === "" ||
  (Array.isArray(v) && v.length === 0) ||
  (isRecord(v) && Object.keys(v).length === 0);

/** A person as another object names them (author, assignee, …): who, and their id for the next call. */
const isPerson = (v: Record<string, unknown>) => typeof v.username === "string" && "avatar_url" in v;

/**
 * An answer of no kind, made smaller without losing what it says: nulls go, as do avatar URLs
 * and API links; `assignee` goes where `assignees` lists the same people; a person nested in
 * another object becomes {id, username}. Empty lists and strings stay: in an object of no known
 * kind they may be the answer (`errors: []`, `files: []`).
 */
export function compact(v: unknown, nested = false): unknown {
  if (Array.isArray(v)) return v.map((x) => compact(x, nested));
  if (!isRecord(v)) return v;
  if (nested && isPerson(v)) return { id: v.id, username: v.username };
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === null || x === undefined || k === "avatar_url" || k === "_links") continue;
    if (k === "assignee" && Array.isArray(v.assignees)) continue;
    out[k] = compact(x, true);
  }
  return out;
}

/** One object of a kind, pruned to the kind's fields (a value of another shape is left compacted). */
export function slim(kind: string, v: unknown): unknown {
  if (!isRecord(v)) return compact(v);
  const out: Record<string, unknown> = {};
  for (const [k, f] of fieldEntries(kind)) {
    const x = v[k];
    if (empty(x)) continue;
    const c =
      typeof f === "object"
        ? "one" in f
          ? slim(f.one, x)
          : Array.isArray(x)
            ? x.map((y) => slim(f.many, y))
            : compact(x, true)
        : compact(x, true);
    if (!empty(c)) out[k] = c;
  }
  return out;
}

/** The forge's pagination, as one line of the answer: the next page (or its token), and the total when known. */
function nextOf(page: Page | undefined): Record<string, number | string> {
  const next: Record<string, number | string> = {};
  if (!page) return next;
  if (page.next_page) next.next_page = page.next_page;
  if (page.next_page_token) next.next_page_token = page.next_page_token;
  if (Object.keys(next).length && page.total !== null) next.total = page.total;
  return next;
}

/**
 * A read tool's answer as structured content (always an object, as MCP requires): an object as
 * it is, a list as {items, next_page?, next_page_token?, total?}, text as {text}. Slimmed by the
 * tool's kind unless `full` (then the forge's objects unchanged).
 */
export function shape(output: Output, data: unknown, page: Page | undefined, full: boolean) {
  const kind = output === "object" ? undefined : "one" in output ? output.one : output.many;
  const one = (x: unknown) => (full ? x : kind ? slim(kind, x) : compact(x));
  if (typeof data === "string") return { text: data };
  if (Array.isArray(data)) return { items: data.map(one), ...nextOf(page) };
  const body = one(data);
  return isRecord(body) ? body : { value: body };
}

// Every field may be null: a full_response answer is the forge's object, nulls and all, and
// validates against the same schema as the slim one.
function fieldSchema(f: Field): Record<string, unknown> {
  if (f === "any") return {};
  if (f === "strings") return { type: ["array", "null"], items: { type: "string" } };
  if (typeof f === "string") return { type: [f, "null"] };
  const kind = "one" in f ? f.one : f.many;
  // a reference (a person, a pipeline, a milestone inside another object) is only said to be an
  // object: its few fields are the kind's own, and spelling them out in every tool's schema would
  // cost tools/list more than it tells a client
  const item = kind.endsWith("_ref") ? { type: "object" } : kindSchema(kind);
  if ("one" in f) return { ...item, type: ["object", "null"] };
  return { type: ["array", "null"], items: item };
}

function kindSchema(kind: string): Record<string, unknown> {
  const fields = fieldsOf(kind);
  return {
    type: "object",
    properties: Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, fieldSchema(f)])),
  };
}

// the next page to ask for (page, or page_token for keyset lists), and how many in all
const PAGE_PROPS = {
  next_page: { type: "integer" },
  next_page_token: { type: "string" },
  total: { type: "integer" },
};

/** A read tool's outputSchema: the JSON Schema its structured content validates against. */
export function outputSchema(output: Output): Record<string, unknown> {
  if (output === "object") return { type: "object" };
  if ("one" in output) return kindSchema(output.one);
  return {
    type: "object",
    properties: { items: { type: "array", items: kindSchema(output.many) }, ...PAGE_PROPS },
    required: ["items"],
  };
}
