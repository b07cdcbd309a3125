import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOLSETS } from "../../src/tools/index.js";
import { type Kind, OUTPUTS, slim } from "../../src/tools/results.js";
import { forgeWithToolClient } from "../forge-and-mcp.js";

/**
 * Slim results and structured output (issue 39 items 3 and 4), on the forge simulator's own
 * objects: one row per resource kind (the fields it keeps, the ones it drops); the official
 * clients (SDK 1.x and 2.x, which both validate structuredContent against the listed
 * outputSchema) calling the daily read tools; every read tool's outputSchema compiling.
 */

const f = forgeWithToolClient("results", { FORGE_TOOLSETS: "all" });
const rest = async (path: string) => {
  const r = await fetch(`${f.forge.apiUrl}${path}`, { headers: { "private-token": "sim-forge-pat" } });
  expect(r.status, path).toBe(200);
  return r.json();
};
const first = (x: unknown) => (Array.isArray(x) ? x[0] : x);

/** Every key anywhere in a value (nested objects and lists included), and whether it holds a null. */
function walk(v: unknown, keys = new Set<string>(), nulls: string[] = [], at = ""): [Set<string>, string[]] {
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) walk(x, keys, nulls, `${at}[${i}]`);
  } else if (v && typeof v === "object")
    for (const [k, x] of Object.entries(v)) {
      keys.add(k);
      if (x === null) nulls.push(`${at}.${k}`);
      walk(x, keys, nulls, `${at}.${k}`);
    }
  return [keys, nulls];
}
/** A dotted path's value (`author.username`). */
const at = (v: any, path: string) => path.split(".").reduce((o, k) => o?.[k], v);

// kind, the forge's object (REST path; a list's first item), fields kept (dotted: nested), fields dropped
const KINDS: Array<[Kind, string, string[], string[]]> = [
  [
    "issue",
    "/projects/1/issues/1",
    [
      "id",
      "iid",
      "project_id",
      "title",
      "state",
      "web_url",
      "labels",
      "created_at",
      "author.username",
      "author.id",
    ],
    [
      "assignee",
      "_links",
      "time_stats",
      "task_completion_status",
      "references",
      "upvotes",
      "closed_at",
      "author.avatar_url",
      "author.name",
    ],
  ],
  [
    "merge_request",
    "/projects/1/merge_requests/1",
    [
      "iid",
      "title",
      "state",
      "sha",
      "source_branch",
      "target_branch",
      "head_pipeline.id",
      "diff_refs.base_sha",
      "reviewers.0.username",
      "web_url",
      "detailed_merge_status",
    ],
    [
      "assignee",
      "pipeline",
      "merge_user",
      "time_stats",
      "references",
      "squash_on_merge",
      "merge_status",
      "user",
      "assignees",
    ],
  ],
  [
    "pipeline",
    "/projects/1/pipelines/2",
    ["id", "iid", "project_id", "sha", "ref", "status", "source", "web_url", "created_at"],
    ["name"],
  ],
  [
    "job",
    "/projects/1/pipelines/1/jobs",
    ["id", "name", "stage", "status", "ref", "web_url", "pipeline.id", "commit.id"],
    ["runner", "project"],
  ],
  [
    "project",
    "/projects/1",
    [
      "id",
      "path_with_namespace",
      "default_branch",
      "web_url",
      "visibility",
      "namespace.full_path",
      "http_url_to_repo",
    ],
    [
      "_links",
      "avatar_url",
      "readme_url",
      "name_with_namespace",
      "issues_access_level",
      "ci_default_git_depth",
      "tag_list",
      "namespace.avatar_url",
      "namespace.web_url",
    ],
  ],
  ["user", "/user", ["id", "username", "name", "state", "web_url"], ["avatar_url", "locked"]],
  ["member", "/projects/1/members/all", ["id", "username", "access_level"], ["avatar_url", "locked"]],
  [
    "commit",
    "/projects/1/repository/commits/main",
    ["id", "short_id", "title", "author_name", "committed_date", "web_url"],
    ["committer_email", "trailers", "parent_ids"],
  ],
  [
    "note",
    "/projects/1/issues/1/notes",
    ["id", "body", "author.username", "created_at", "noteable_iid"],
    ["attachment", "author.avatar_url"],
  ],
  [
    "discussion",
    "/projects/1/merge_requests/1/discussions",
    ["id", "notes.0.id", "notes.0.body", "notes.0.author.username"],
    ["notes.0.author.avatar_url", "notes.0.attachment"],
  ],
  [
    "branch",
    "/projects/1/repository/branches/main",
    ["name", "commit.id", "default", "protected", "web_url"],
    ["developers_can_merge", "commit.parent_ids"],
  ],
  [
    "tag",
    "/projects/1/repository/tags",
    ["name", "target", "commit.id"],
    ["commit.parent_ids", "commit.trailers"],
  ],
  [
    "file",
    "/projects/1/repository/files/README.md?ref=main",
    ["file_path", "content", "blob_id", "last_commit_id"],
    ["content_sha256", "execute_filemode"],
  ],
  [
    "label",
    "/projects/1/labels",
    ["id", "name", "color"],
    ["text_color", "description_html", "subscribed", "description"],
  ],
  ["group", "/groups/acme", ["id", "full_path", "web_url"], ["avatar_url", "projects"]],
];

describe("slim results, one row per resource kind", () => {
  it("names only tools in its table of kinds (a misspelt name would leave a tool unslimmed)", () => {
    const names = new Set(
      Object.values(TOOLSETS)
        .flat()
        .map((t) => t.name),
    );
    expect(Object.keys(OUTPUTS).filter((n) => !names.has(n))).toEqual([]);
  });

  it.each(KINDS)("%s keeps what a model needs and drops the rest", async (kind, path, kept, dropped) => {
    const whole = first(await rest(path));
    const s = slim(kind, whole) as Record<string, unknown>;
    for (const k of kept) expect(at(s, k), `${kind} keeps ${k}`).toEqual(at(whole, k));
    for (const k of dropped) expect(at(s, k), `${kind} drops ${k}`).toBeUndefined();
    // nowhere an avatar, a null, or a person with more than their id and username
    const [keys, nulls] = walk(s);
    expect(keys.has("avatar_url")).toBe(false);
    expect(nulls).toEqual([]);
    for (const p of ["author", "closed_by", "merged_by", "user"]) {
      const person = s[p] as Record<string, unknown> | undefined;
      if (person && kind !== "user") expect(Object.keys(person).sort()).toEqual(["id", "username"]);
    }
  });
});

/** The six daily calls, and a few more read tools a working day uses. */
const DAILY: Array<[string, Record<string, unknown>]> = [
  ["list_issues", { project_id: 1 }],
  ["get_issue", { project_id: 1, issue_iid: 1 }],
  ["list_merge_requests", { project_id: 1 }],
  ["get_merge_request", { project_id: 1, merge_request_iid: 1 }],
  ["list_pipelines", { project_id: 1 }],
  ["get_project", { project_id: "acme/widgets" }],
  ["list_pipeline_jobs", { project_id: 1, pipeline_id: 1 }],
  ["mr_discussions", { project_id: 1, merge_request_iid: 1 }],
  ["get_file_contents", { project_id: 1, file_path: "README.md" }],
  ["list_commits", { project_id: 1 }],
  ["whoami", {}],
  ["get_repository_tree", { project_id: 1 }],
];

type Answer = { isError?: boolean; content: Array<{ type: string; text: string }>; structuredContent?: any };

describe("structured output", () => {
  // each official client lists the tools once (both validate only against an outputSchema they listed)
  const v2 = new ClientV2({ name: "results-v2", version: "1.0.0" });
  beforeAll(async () => {
    await f.client.listTools();
    await v2.connect(new TransportV2(new URL(`${f.mcp.url}/mcp`)));
    await v2.listTools();
  });
  afterAll(() => v2.close());

  it.each(DAILY)(
    "%s answers structuredContent the official clients validate, its text the same",
    async (name, args) => {
      // SDK 1.x
      const v1 = (await f.client.callTool({ name, arguments: args })) as Answer;
      expect(v1.isError, v1.content[0]?.text).toBeFalsy();
      expect(v1.structuredContent).toBeTypeOf("object");
      const text = v1.content[0]!.text;
      if (typeof v1.structuredContent.text === "string") expect(text).toBe(v1.structuredContent.text);
      else expect(JSON.parse(text)).toEqual(v1.structuredContent);
      // SDK 2.x over its own transport: validates as well, and sees the same answer
      const answer = (await v2.callTool({ name, arguments: args })) as Answer;
      expect(answer.structuredContent).toEqual(v1.structuredContent);
    },
  );

  it("an outputSchema refuses an answer it does not admit (the check the clients run)", async () => {
    // the guard the rows above rely on: the client really validates what forge-mcp declares
    const { tools } = await f.client.listTools();
    const schema = tools.find((t) => t.name === "get_issue")!.outputSchema!;
    const check = new AjvJsonSchemaValidator().getValidator(schema as never);
    expect(check({ iid: "one" }).valid).toBe(false);
    expect(check({ iid: 1 }).valid).toBe(true);
  });
});

describe("paging and full_response", () => {
  it("a list says its next page in one field, and stops saying it on the last page", async () => {
    const p1 = (await f.raw("list_issues", { project_id: 1, per_page: 2 })) as Answer;
    expect(p1.structuredContent).toMatchObject({ next_page: 2, total: 3 });
    expect(p1.structuredContent.items).toHaveLength(2);
    const p2 = (await f.raw("list_issues", { project_id: 1, per_page: 2, page: 2 })) as Answer;
    expect(Object.keys(p2.structuredContent)).toEqual(["items"]);
  });

  it("full_response: true answers the forge's whole object, still valid against the schema", async () => {
    await f.client.listTools(); // so the client validates this answer too
    const whole = await rest("/projects/1/issues/1");
    const r = (await f.raw("get_issue", { project_id: 1, issue_iid: 1, full_response: true })) as Answer;
    expect(r.structuredContent).toEqual(whole);
    expect(JSON.parse(r.content[0]!.text)).toEqual(whole);
    const slimmed = (await f.raw("get_issue", { project_id: 1, issue_iid: 1 })) as Answer;
    expect(r.content[0]!.text.length).toBeGreaterThan(2 * slimmed.content[0]!.text.length);
    // and the forge is not asked for a full_response parameter
    const list = (await f.raw("list_issues", { project_id: 1, full_response: true })) as Answer;
    expect(list.structuredContent.items[0]).toHaveProperty("_links");
  });
});

describe("write results", () => {
  // after the lists above: this adds an issue to project 1
  it("a write answers the object it made slim by its kind, as text only", async () => {
    const r = (await f.raw("create_issue", { project_id: 1, title: "Slim answers" })) as Answer;
    const made = JSON.parse(r.content[0]!.text);
    expect(made).toMatchObject({ title: "Slim answers", state: "opened", author: { username: "alice" } });
    expect(Object.keys(made.author).sort()).toEqual(["id", "username"]);
    expect(made.iid).toBeTypeOf("number");
    expect(made.web_url).toMatch(/\/-\/issues\//);
    const [keys, nulls] = walk(made);
    expect([...keys].filter((k) => ["_links", "avatar_url", "assignee", "time_stats"].includes(k))).toEqual(
      [],
    );
    expect(nulls).toEqual([]);
    expect(r.structuredContent).toBeUndefined();
  });
});

// Last: compiling every schema holds this process's event loop for seconds, and the server runs in
// this process too; a call right after it may meet a keep-alive socket the server closes late
// (ECONNRESET), which says nothing about forge-mcp.
describe("every read tool's outputSchema", () => {
  it("every read tool declares an outputSchema that compiles, and no write tool does", async () => {
    const ajv = new AjvJsonSchemaValidator();
    const { tools } = await f.client.listTools();
    const read = tools.filter((t) => t.annotations?.readOnlyHint && t.name !== "discover_tools");
    expect(read.length).toBeGreaterThan(100);
    for (const t of read) {
      expect(t.outputSchema, t.name).toMatchObject({ type: "object" });
      expect(() => ajv.getValidator(t.outputSchema as never), t.name).not.toThrow();
    }
    for (const t of tools.filter((t) => !t.annotations?.readOnlyHint))
      expect(t.outputSchema, t.name).toBeUndefined();
  });
});
