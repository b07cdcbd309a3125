import { request } from "node:http";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onForgeCall } from "../src/forge/http.js";
import { MCP_BODY_LIMIT } from "../src/mcp-lane.js";
import { advanceForgeClock } from "./forge-and-mcp.js";
import { APP_ID, type Forge, forgeLogSeq, seedApp, startForge } from "./forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "./helpers.js";
import { statelessEnv } from "./stateless-helpers.js";

/**
 * The /mcp lane (src/mcp-lane.ts) against the Express route it stands in front of: every row is
 * sent, in the same order, to a forge-mcp with the lane and to one without it (`lane: false`),
 * same configuration, same forge simulator, and the two answers must be the same: status, every
 * response header but the ones that legitimately vary, the body (parsed JSON when JSON, else the
 * text), and the side effects that can be seen from here (the forge calls the request made, the
 * token verifier's forge calls, tool calls answered by the tool dispatcher, the server's log
 * lines, and per mode the metrics counters). Each row also says whether the lane answers it
 * itself, and the lane's counter must agree: a comparison of two Express answers would prove
 * nothing about the lane. One block per server mode; the rows include the attack rows of the
 * specs (docs/forge-mcp.md, docs/forge-mcp-oauth.md): the lane must never be wider than the route.
 */

const ACCEPT = "application/json, text/event-stream";
const METRICS = "lane-metrics-token";
/** A project the simulator seeds; an issue iid it does not have (so a delete changes nothing). */
const PROJECT = "acme/widgets";
const NO_ISSUE = 987654;

// OAuth tokens seeded at the forge for our application (and one for another application)
const API = "lane-oauth-api";
const READ = "lane-oauth-read";
const OTHER_APP = "lane-oauth-other-app";
const EXPIRING = "lane-oauth-expiring";
// a CI job token of a running job (REMOTE_AUTHORIZATION's JOB-TOKEN)
const JOB = "lane-job-token-running";
/** Stands for the simulator's API URL in a row's header (the simulator starts after the rows are built). */
const FORGE_API = "<forge-api>";

interface Row {
  name: string;
  method?: string;
  path?: string;
  /** Over the mode's default headers; null removes one; a list sends the header more than once. */
  headers?: Record<string, string | string[] | null>;
  /** A Buffer or string is sent as is; anything else as JSON; undefined: no body. */
  body?: unknown;
  /** Sent without Content-Length (Transfer-Encoding: chunked). */
  chunked?: boolean;
  /** The status both answer (what the row is about, so a row cannot drift into another case). */
  status: number;
  /** Whether the lane answers it itself (else it hands it to the app). */
  lane: boolean;
  /** Run once before the row is sent to either server. */
  before?: () => Promise<void>;
  /** The server asks its client to confirm (elicitation on the event stream): answer it so. */
  confirm?: "accept" | "decline";
}

interface Mode {
  name: string;
  env: () => Record<string, string>;
  prefix?: string;
  /**
   * One clock standing still for both servers: a budget's window starts at the same instant in
   * each, so their Retry-After agree to the second.
   */
  stillClock?: boolean;
  /** Headers every row carries unless it overrides them (the mode's credential). */
  auth?: Record<string, string>;
  rows: Row[];
}

const rpc = (id: unknown, method: string, params?: unknown) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params === undefined ? {} : { params }),
});
const call = (id: unknown, name: string, args: Record<string, unknown> = {}) =>
  rpc(id, "tools/call", { name, arguments: args });
const WHOAMI = call(1, "whoami");
const INITIALIZE = rpc(1, "initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "lane-diff", version: "1" },
});
const WHOAMI_TEXT = JSON.stringify(WHOAMI);
/** A whoami call with these headers over the mode's: the rows of the Host, Origin and Accept checks. */
const whoamiWith = (name: string, headers: Row["headers"], status: number, lane: boolean): Row => ({
  name,
  headers,
  body: WHOAMI,
  status,
  lane,
});
const padded = (size: number) => {
  // a whoami call whose _meta pads the body to exactly `size` bytes
  const head =
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":{"pad":"';
  const tail = '"}}}';
  return head + "x".repeat(size - head.length - tail.length) + tail;
};

/** JSON-RPC shapes every mode with a working credential answers the same either way. */
const SHAPES: Row[] = [
  { name: "a simple call", body: WHOAMI, status: 200, lane: true },
  { name: "a simple call with a string id", body: call("abc", "whoami"), status: 200, lane: true },
  {
    name: "a call with _meta",
    body: rpc(2, "tools/call", { name: "whoami", arguments: {}, _meta: { progressToken: 5 } }),
    status: 200,
    lane: true,
  },
  {
    name: "a call without arguments",
    body: rpc(3, "tools/call", { name: "whoami" }),
    status: 200,
    lane: true,
  },
  {
    name: "a reading tool with arguments",
    body: call(4, "get_project", { project_id: PROJECT }),
    status: 200,
    lane: true,
  },
  { name: "a batch", body: [WHOAMI, call(2, "whoami")], status: 200, lane: false },
  {
    name: "a notification",
    body: { jsonrpc: "2.0", method: "notifications/initialized" },
    status: 202,
    lane: false,
  },
  { name: "a response object", body: { jsonrpc: "2.0", id: 9, result: {} }, status: 202, lane: false },
  { name: "initialize", body: INITIALIZE, status: 200, lane: false },
  { name: "an unknown method", body: rpc(6, "no/such", {}), status: 200, lane: true },
  { name: "an unknown tool", body: call(7, "no_such_tool"), status: 200, lane: true },
  {
    name: "invalid arguments",
    body: call(8, "get_issue", { project_id: PROJECT, issue_iid: "x" }),
    status: 200,
    lane: true,
  },
  {
    name: "discover_tools (an event stream)",
    body: call(10, "discover_tools", { toolset: "wiki" }),
    status: 200,
    lane: false,
  },
  {
    name: "a destructive tool (its issue does not exist)",
    body: call(11, "delete_issue", { project_id: PROJECT, issue_iid: NO_ISSUE }),
    status: 200,
    lane: true,
  },
  { name: "jsonrpc 1.0", body: { ...WHOAMI, jsonrpc: "1.0" }, status: 400, lane: false },
  { name: "a null id", body: { ...WHOAMI, id: null }, status: 400, lane: false },
  { name: "a member JSON-RPC does not define", body: { ...WHOAMI, extra: 1 }, status: 400, lane: false },
  { name: "a fractional id", body: { ...WHOAMI, id: 1.5 }, status: 400, lane: false },
];

/** Destructive tools with a client that can confirm (FORGE_MCP_CONFIRM_DESTRUCTIVE=elicit). */
const DELETE = call(12, "delete_issue", { project_id: PROJECT, issue_iid: NO_ISSUE });
const CONFIRM: Row[] = [
  {
    name: "initialize declaring form elicitation",
    body: { ...INITIALIZE, params: { ...INITIALIZE.params, capabilities: { elicitation: { form: {} } } } },
    status: 200,
    lane: false,
  },
  {
    name: "a destructive tool: the client is asked and declines",
    body: DELETE,
    status: 200,
    lane: false,
    confirm: "decline",
  },
  {
    name: "a destructive tool: the client is asked and accepts (the forge answers 404)",
    body: DELETE,
    status: 200,
    lane: false,
    confirm: "accept",
  },
  { name: "a reading tool meanwhile", body: WHOAMI, status: 200, lane: true },
  { name: "initialize without elicitation", body: INITIALIZE, status: 200, lane: false },
  { name: "a destructive tool: nobody to ask", body: DELETE, status: 200, lane: true },
];

/** The transport's attack rows: Host, Origin, Accept, content types and encodings, bodies, paths. */
const TRANSPORT: Row[] = [
  whoamiWith("a wrong Host", { host: "evil.example" }, 403, false),
  whoamiWith("Host localhost with a port", { host: "localhost:1" }, 200, true),
  whoamiWith("a foreign Origin", { origin: "https://evil.example" }, 403, false),
  whoamiWith("a loopback Origin", { origin: "http://localhost:5173" }, 200, true),
  whoamiWith("the null Origin", { origin: "null" }, 403, false),
  whoamiWith("Accept without an event stream", { accept: "application/json" }, 406, false),
  whoamiWith("Accept without JSON", { accept: "text/event-stream" }, 406, false),
  whoamiWith("no Accept", { accept: null }, 406, false),
  whoamiWith("Accept */*", { accept: "*/*" }, 406, false),
  whoamiWith("text/plain", { "content-type": "text/plain" }, 415, false),
  whoamiWith("no Content-Type", { "content-type": null }, 415, false),
  whoamiWith("charset latin1", { "content-type": "application/json; charset=latin1" }, 415, false),
  {
    name: "charset utf-16 (a UTF-16 body)",
    headers: { "content-type": "application/json; charset=utf-16" },
    body: Buffer.from(`\ufeff${WHOAMI_TEXT}`, "utf16le"),
    status: 200,
    lane: false,
  },
  {
    name: 'charset "utf-8" quoted',
    headers: { "content-type": 'application/json; charset="utf-8"' },
    body: WHOAMI,
    status: 200,
    lane: false,
  },
  whoamiWith(
    "charset UTF-8 and the type in capitals",
    { "content-type": "Application/JSON; Charset=UTF-8" },
    200,
    true,
  ),
  whoamiWith(
    "application/json;charset=utf-8 without a space",
    { "content-type": "application/json;charset=utf-8" },
    200,
    true,
  ),
  whoamiWith(
    "a space before the charset's semicolon, a trailing space",
    { "content-type": "application/json ; charset=utf-8 " },
    200,
    true,
  ),
  whoamiWith("charset utf8 (no hyphen)", { "content-type": "application/json; charset=utf8" }, 415, false),
  whoamiWith(
    "charset given twice",
    { "content-type": "application/json; charset=utf-8; charset=utf-8" },
    200,
    false,
  ),
  whoamiWith("a vendor +json type", { "content-type": "application/vnd.api+json" }, 415, false),
  whoamiWith("a parameter besides charset", { "content-type": "application/json; profile=x" }, 200, false),
  whoamiWith(
    "application/json; with an empty parameter section",
    { "content-type": "application/json;" },
    200,
    false,
  ),
  {
    name: "Content-Encoding gzip (a gzipped body)",
    headers: { "content-encoding": "gzip" },
    body: gzipSync(WHOAMI_TEXT),
    status: 200,
    lane: false,
  },
  whoamiWith("Content-Encoding identity", { "content-encoding": "identity" }, 200, true),
  whoamiWith("Content-Encoding br, a body that is not brotli", { "content-encoding": "br" }, 400, false),
  whoamiWith("Content-Encoding compress (not supported)", { "content-encoding": "compress" }, 415, false),
  whoamiWith("Content-Encoding IDENTITY", { "content-encoding": "IDENTITY" }, 200, true),
  whoamiWith(
    "two MCP-Protocol-Version headers",
    { "mcp-protocol-version": ["2025-06-18", "2025-06-18"] },
    400,
    false,
  ),
  whoamiWith(
    "Content-Length with leading zeros",
    { "content-length": `000${WHOAMI_TEXT.length}` },
    200,
    true,
  ),
  whoamiWith("an Origin with a trailing slash", { origin: "http://localhost:5173/" }, 200, true),
  { name: "HEAD /mcp", method: "HEAD", status: 405, lane: false },
  { name: "OPTIONS /mcp", method: "OPTIONS", status: 200, lane: false },
  { name: "chunked (no Content-Length)", body: WHOAMI, chunked: true, status: 200, lane: false },
  { name: "a body over 4 MiB", body: padded(MCP_BODY_LIMIT + 1), status: 413, lane: false },
  { name: "an empty body", body: "", status: 400, lane: false },
  { name: "a UTF-8 byte order mark", body: `\ufeff${WHOAMI_TEXT}`, status: 200, lane: true },
  { name: "two byte order marks", body: `\ufeff\ufeff${WHOAMI_TEXT}`, status: 400, lane: true },
  { name: "leading whitespace", body: ` \r\n\t${WHOAMI_TEXT}`, status: 200, lane: true },
  { name: "leading no-break space", body: `\u00a0${WHOAMI_TEXT}`, status: 400, lane: true },
  { name: "a JSON primitive", body: "5", status: 400, lane: true },
  { name: "JSON null", body: "null", status: 400, lane: true },
  { name: "a JSON string", body: '"tools/call"', status: 400, lane: true },
  { name: "invalid JSON", body: `${WHOAMI_TEXT.slice(0, -1)},`, status: 400, lane: true },
  { name: "JSON with trailing garbage", body: `${WHOAMI_TEXT}x`, status: 400, lane: true },
  {
    name: "invalid UTF-8 bytes inside a string",
    body: Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":"a'),
      Buffer.from([0xff, 0xc3, 0x28, 0xe2, 0x82]),
      Buffer.from('b","method":"tools/call","params":{"name":"whoami","arguments":{}}}'),
    ]),
    status: 200,
    lane: true,
  },
  whoamiWith("an unsupported MCP-Protocol-Version", { "mcp-protocol-version": "1999-01-01" }, 400, false),
  whoamiWith("an empty MCP-Protocol-Version", { "mcp-protocol-version": "" }, 400, false),
  whoamiWith("a supported MCP-Protocol-Version", { "mcp-protocol-version": "2025-06-18" }, 200, true),
  { name: "/mcp with a query string", path: "/mcp?x=1", body: WHOAMI, status: 200, lane: false },
  { name: "/mcp with a fragment", path: "/mcp#x", body: WHOAMI, status: 200, lane: false },
  whoamiWith("Expect: 100-continue", { expect: "100-continue" }, 200, true),
  { name: "/MCP", path: "/MCP", body: WHOAMI, status: 200, lane: false },
  { name: "/mcp/", path: "/mcp/", body: WHOAMI, status: 200, lane: false },
  { name: "//mcp", path: "//mcp", body: WHOAMI, status: 404, lane: false },
  { name: "GET /mcp", method: "GET", status: 405, lane: false },
  { name: "DELETE /mcp", method: "DELETE", status: 405, lane: false },
  { name: "PUT /mcp", method: "PUT", body: WHOAMI, status: 404, lane: false },
];

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** OAuth rows shared by both step-up settings: the bearer checks, in the order a client meets them. */
const BEARER: Row[] = [
  whoamiWith("no Authorization", { authorization: null }, 401, false),
  {
    name: "an unknown token (a forge call)",
    headers: bearer("lane-unknown"),
    body: WHOAMI,
    status: 401,
    lane: false,
  },
  {
    name: "the unknown token again (refused from the cache)",
    headers: bearer("lane-unknown"),
    body: WHOAMI,
    status: 401,
    lane: false,
  },
  { name: "a token's first use (verified at the forge)", body: WHOAMI, status: 200, lane: false },
  { name: "the verified token", body: WHOAMI, status: 200, lane: true },
  whoamiWith("lowercase bearer", { authorization: `bearer ${API}` }, 200, true),
  whoamiWith("BEARER in capitals", { authorization: `BEARER ${API}` }, 200, true),
  whoamiWith("a double space", { authorization: `Bearer  ${API}` }, 401, false),
  whoamiWith("a tab", { authorization: `Bearer\t${API}` }, 401, false),
  whoamiWith("a trailing word", { authorization: `Bearer ${API} extra` }, 200, true),
  whoamiWith("Basic", { authorization: "Basic dXNlcjpwYXNz" }, 401, false),
  {
    name: "a token of another application",
    headers: bearer(OTHER_APP),
    body: WHOAMI,
    status: 401,
    lane: false,
  },
  { name: "that token again", headers: bearer(OTHER_APP), body: WHOAMI, status: 401, lane: false },
  whoamiWith("a foreign Origin (any origin under OAuth)", { origin: "https://evil.example" }, 200, true),
  whoamiWith("a wrong Host", { host: "evil.example" }, 403, false),
  { name: "invalid JSON, verified token", body: "{", status: 400, lane: true },
  {
    name: "invalid JSON, no token (authenticate first)",
    headers: { authorization: null },
    body: "{",
    status: 401,
    lane: false,
  },
  {
    name: "invalid JSON, unknown token",
    headers: bearer("lane-unknown"),
    body: "{",
    status: 401,
    lane: false,
  },
  { name: "a batch", body: [WHOAMI, call(2, "whoami")], status: 200, lane: false },
  { name: "initialize", body: INITIALIZE, status: 200, lane: false },
  { name: "an unknown tool", body: call(7, "no_such_tool"), status: 200, lane: true },
  { name: "discover_tools", body: call(10, "discover_tools", { toolset: "wiki" }), status: 200, lane: false },
  {
    name: "a writing tool's name in capitals (an unknown tool)",
    body: call(4, "Create_Issue_Note"),
    status: 200,
    lane: true,
  },
  {
    name: "arguments null",
    body: rpc(5, "tools/call", { name: "whoami", arguments: null }),
    status: 200,
    lane: true,
  },
];

const WRITE = call(4, "create_issue_note", { project_id: PROJECT, issue_iid: NO_ISSUE, body: "lane" });

const MODES: Mode[] = [];
let forge: Forge;

MODES.push({
  name: "no credential (no FORGE_TOKEN, no OAuth)",
  env: () => ({ FORGE_API_URL: forge.apiUrl, METRICS_BEARER_TOKEN: METRICS }),
  rows: [
    { name: "a simple call (the forge refuses: a tool error)", body: WHOAMI, status: 200, lane: true },
    { name: "a batch", body: [WHOAMI], status: 200, lane: false },
    whoamiWith("a foreign Origin", { origin: "https://evil.example" }, 403, false),
    { name: "invalid JSON", body: "{", status: 400, lane: true },
  ],
});

MODES.push({
  name: "FORGE_TOKEN (destructive tools: elicit, no client that can answer)",
  env: () => ({
    FORGE_TOKEN: "sim-forge-pat",
    FORGE_API_URL: forge.apiUrl,
    METRICS_BEARER_TOKEN: METRICS,
    MCP_REPLICA_NAME: "lane-a",
  }),
  rows: [...SHAPES, ...CONFIRM, ...TRANSPORT],
});

MODES.push({
  name: "FORGE_MCP_OAUTH passthrough, step-up on",
  env: () => ({
    FORGE_MCP_OAUTH: "true",
    FORGE_OAUTH_APP_ID: APP_ID,
    FORGE_API_URL: forge.apiUrl,
    FORGE_MCP_STEP_UP: "true",
    METRICS_BEARER_TOKEN: METRICS,
    // the rows before the budget's own ask the forge about four tokens
    MCP_TOKEN_VERIFY_RATE_LIMIT_PER_MINUTE: "4",
  }),
  stillClock: true,
  auth: bearer(API),
  rows: [
    ...BEARER,
    { name: "a read-only token's first use", headers: bearer(READ), body: WHOAMI, status: 200, lane: false },
    {
      name: "a read-only token, a reading tool",
      headers: bearer(READ),
      body: call(3, "list_issues", { project_id: PROJECT }),
      status: 200,
      lane: true,
    },
    {
      name: "a read-only token, a writing tool (403 insufficient_scope)",
      headers: bearer(READ),
      body: WRITE,
      status: 403,
      lane: false,
    },
    {
      name: "a read-only token, a batch with a writing tool",
      headers: bearer(READ),
      body: [call(1, "whoami"), WRITE],
      status: 403,
      lane: false,
    },
    {
      name: "a read-only token, a writing tool called with _meta",
      headers: bearer(READ),
      body: rpc(5, "tools/call", {
        name: "create_issue_note",
        arguments: { project_id: PROJECT },
        _meta: {},
      }),
      status: 403,
      lane: false,
    },
    { name: "a write scope token, a writing tool", body: WRITE, status: 200, lane: true },
    {
      name: "a fifth unknown token: 429 and Retry-After, no forge call",
      headers: bearer("lane-unknown-5"),
      body: WHOAMI,
      status: 429,
      lane: false,
    },
    { name: "the verified token, the budget spent", body: WHOAMI, status: 200, lane: true },
  ],
});

MODES.push({
  name: "FORGE_MCP_OAUTH passthrough, step-up off",
  env: () => ({
    FORGE_MCP_OAUTH: "true",
    FORGE_OAUTH_APP_ID: APP_ID,
    FORGE_API_URL: forge.apiUrl,
    METRICS_BEARER_TOKEN: METRICS,
  }),
  auth: bearer(API),
  rows: [
    ...BEARER,
    // without step-up a token needs the write scope to reach /mcp at all
    {
      name: "a read-only token (403: its scope is not accepted)",
      headers: bearer(READ),
      body: WHOAMI,
      status: 403,
      lane: false,
    },
    { name: "the read-only token again", headers: bearer(READ), body: WHOAMI, status: 403, lane: false },
    {
      name: "a read-only token, a writing tool",
      headers: bearer(READ),
      body: WRITE,
      status: 403,
      lane: false,
    },
    {
      name: "a token the forge will expire, first use",
      headers: bearer(EXPIRING),
      body: WHOAMI,
      status: 200,
      lane: false,
    },
    { name: "that token, verified", headers: bearer(EXPIRING), body: WHOAMI, status: 200, lane: true },
    {
      name: "a forge 401 on a tool call (the reauth 401)",
      headers: bearer(EXPIRING),
      body: WHOAMI,
      status: 401,
      lane: true,
      // the token expires at the forge while both servers' verification caches still hold it
      before: () => advanceForgeClock(forge, 600),
    },
    {
      name: "that token after the reauth 401",
      headers: bearer(EXPIRING),
      body: WHOAMI,
      status: 401,
      lane: false,
    },
  ],
});

// callback-proxy mode with sealed stores (the stateless replicas' setup): /mcp's checks are the
// same bearer checks, on a server whose OAuth side is built differently
MODES.push({
  name: "FORGE_OAUTH_CALLBACK_PROXY, OAUTH_STATELESS_MODE",
  env: () => statelessEnv(forge.apiUrl, { METRICS_BEARER_TOKEN: METRICS }),
  auth: bearer(API),
  rows: [...BEARER],
});

const pat = (token: string) => ({ "private-token": token });
MODES.push({
  name: "REMOTE_AUTHORIZATION",
  env: () => ({
    REMOTE_AUTHORIZATION: "true",
    FORGE_API_URL: forge.apiUrl,
    METRICS_BEARER_TOKEN: METRICS,
    // the rows before the budget's own ask the forge about four credentials
    MCP_TOKEN_VERIFY_RATE_LIMIT_PER_MINUTE: "4",
  }),
  stillClock: true,
  auth: pat("sim-forge-pat"),
  rows: [
    whoamiWith("no credential", { "private-token": null }, 401, false),
    { name: "Private-Token, first use (GET /user)", body: WHOAMI, status: 200, lane: false },
    { name: "Private-Token, repeated", body: WHOAMI, status: 200, lane: true },
    {
      name: "JOB-TOKEN, first use (GET /job)",
      headers: { "private-token": null, "job-token": JOB },
      body: call(2, "list_releases", { project_id: "acme/platform/infra" }),
      status: 200,
      lane: false,
    },
    {
      name: "JOB-TOKEN, repeated",
      headers: { "private-token": null, "job-token": JOB },
      body: call(2, "list_releases", { project_id: "acme/platform/infra" }),
      status: 200,
      lane: true,
    },
    whoamiWith("Bearer, first use", { "private-token": null, ...bearer("sim-forge-pat-bob") }, 200, false),
    whoamiWith("Bearer, repeated", { "private-token": null, ...bearer("sim-forge-pat-bob") }, 200, true),
    whoamiWith(
      "lowercase bearer",
      { "private-token": null, authorization: "bearer sim-forge-pat-bob" },
      200,
      true,
    ),
    {
      name: "Private-Token and Bearer (Private-Token wins)",
      headers: bearer("sim-forge-pat-bob"),
      body: WHOAMI,
      status: 200,
      lane: true,
    },
    {
      name: "an unknown token (a forge call)",
      headers: pat("lane-not-a-token"),
      body: WHOAMI,
      status: 401,
      lane: false,
    },
    {
      name: "the unknown token again (cached)",
      headers: pat("lane-not-a-token"),
      body: WHOAMI,
      status: 401,
      lane: false,
    },
    whoamiWith("a bad X-GitLab-API-URL", { "x-gitlab-api-url": "http://169.254.169.254/latest" }, 400, false),
    whoamiWith("an empty X-GitLab-API-URL", { "x-gitlab-api-url": "" }, 200, true),
    whoamiWith("X-GitLab-API-URL naming the configured forge", { "x-gitlab-api-url": FORGE_API }, 200, true),
    whoamiWith(
      "an unknown token at a bad X-GitLab-API-URL (no forge call)",
      { "private-token": "lane-not-a-token-2", "x-gitlab-api-url": "file:///etc/passwd" },
      400,
      false,
    ),
    { name: "a batch", body: [WHOAMI, call(2, "whoami")], status: 200, lane: false },
    { name: "initialize", body: INITIALIZE, status: 200, lane: false },
    { name: "invalid JSON, known token", body: "{", status: 400, lane: true },
    {
      name: "invalid JSON, no credential",
      headers: { "private-token": null },
      body: "{",
      status: 401,
      lane: false,
    },
    whoamiWith("a foreign Origin", { origin: "https://evil.example" }, 403, false),
    {
      name: "a fifth unknown credential: 429 and Retry-After, no forge call",
      headers: pat("lane-not-a-token-5"),
      body: WHOAMI,
      status: 429,
      lane: false,
    },
    { name: "a known credential, the budget spent", body: WHOAMI, status: 200, lane: true },
  ],
});

MODES.push({
  name: "a path prefix in MCP_SERVER_URL (destructive tools: refuse)",
  env: () => ({
    FORGE_TOKEN: "sim-forge-pat",
    FORGE_API_URL: forge.apiUrl,
    FORGE_MCP_CONFIRM_DESTRUCTIVE: "refuse",
    METRICS_BEARER_TOKEN: METRICS,
  }),
  prefix: "/gitlab",
  rows: [
    { name: "the prefix's /mcp", path: "/gitlab/mcp", body: WHOAMI, status: 200, lane: true },
    { name: "/mcp at the root", body: WHOAMI, status: 200, lane: true },
    {
      name: "the prefix's /mcp with a query string",
      path: "/gitlab/mcp?x=1",
      body: WHOAMI,
      status: 200,
      lane: false,
    },
    { name: "the prefix's /MCP", path: "/gitlab/MCP", body: WHOAMI, status: 200, lane: false },
    { name: "/GITLAB/mcp", path: "/GITLAB/mcp", body: WHOAMI, status: 404, lane: false },
    { name: "the prefix's /mcp/", path: "/gitlab/mcp/", body: WHOAMI, status: 200, lane: false },
    { name: "/gitlabmcp", path: "/gitlabmcp", body: WHOAMI, status: 404, lane: false },
    { name: "the prefix alone", path: "/gitlab", body: WHOAMI, status: 404, lane: false },
    { name: "GET the prefix's /mcp", method: "GET", path: "/gitlab/mcp", status: 405, lane: false },
    {
      name: "a wrong Host at the prefix",
      path: "/gitlab/mcp",
      headers: { host: "evil.example" },
      body: WHOAMI,
      status: 403,
      lane: false,
    },
    {
      name: "a destructive tool (refused)",
      path: "/gitlab/mcp",
      body: call(11, "delete_issue", { project_id: PROJECT, issue_iid: NO_ISSUE }),
      status: 200,
      lane: true,
    },
    { name: "invalid JSON at the prefix", path: "/gitlab/mcp", body: "[", status: 400, lane: true },
  ],
});

MODES.push({
  name: "MCP_ALLOWED_HOSTS / MCP_ALLOWED_ORIGINS (destructive tools: off)",
  env: () => ({
    FORGE_TOKEN: "sim-forge-pat",
    FORGE_API_URL: forge.apiUrl,
    MCP_ALLOWED_HOSTS: "mcp.example.com",
    MCP_ALLOWED_ORIGINS: "https://app.example.com",
    FORGE_MCP_CONFIRM_DESTRUCTIVE: "off",
    METRICS_BEARER_TOKEN: METRICS,
  }),
  rows: [
    whoamiWith("an allowed Host", { host: "mcp.example.com" }, 200, true),
    whoamiWith("an allowed Host with a port", { host: "mcp.example.com:8443" }, 200, true),
    whoamiWith("an allowed Host in capitals", { host: "MCP.EXAMPLE.COM" }, 200, true),
    whoamiWith("an allowed Host's subdomain", { host: "a.mcp.example.com" }, 403, false),
    whoamiWith("userinfo before a loopback Host", { host: "evil@127.0.0.1" }, 200, true),
    whoamiWith("a wrong Host", { host: "evil.example" }, 403, false),
    whoamiWith("an allowed Origin", { origin: "https://app.example.com" }, 200, true),
    whoamiWith(
      "an allowed Origin with its default port",
      { origin: "https://app.example.com:443" },
      403,
      false,
    ),
    whoamiWith("an allowed Origin in capitals", { origin: "https://APP.example.com" }, 403, false),
    whoamiWith("a loopback Origin", { origin: "http://127.0.0.1:9" }, 200, true),
    whoamiWith("a foreign Origin", { origin: "https://evil.example" }, 403, false),
    whoamiWith("the null Origin", { origin: "null" }, 403, false),
    {
      name: "a destructive tool (runs: the forge answers 404)",
      body: call(11, "delete_issue", { project_id: PROJECT, issue_iid: NO_ISSUE }),
      status: 200,
      lane: true,
    },
  ],
});

/** What a server answered, with this server's own address replaced by `<server>`. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** The answer to the client's POST of its confirmation (rows with `confirm`). */
  confirmed?: Answer;
}

// Headers that legitimately differ between two servers or two answers: Date (the clock), ETag
// (Express's res.json adds a hash of the body; the lane's and the JSON path's writeHead do not),
// and the framing (Content-Length or chunked, Connection, Keep-Alive), the body being compared.
const VARYING = new Set(["date", "etag", "connection", "keep-alive", "content-length", "transfer-encoding"]);

const ELICITATION = /"id":"(confirm-[0-9a-f-]+)"/;
const CONFIRM_ID = /confirm-[0-9a-f]{8}-[0-9a-f-]{27}/g;

function send(mcp: RunningForgeMcp, mode: Mode, row: Row): Promise<Answer> {
  const base = new URL(mcp.url);
  const headers: Record<string, string | string[]> = {
    "content-type": "application/json",
    accept: ACCEPT,
    ...mode.auth,
  };
  for (const [k, v] of Object.entries(row.headers ?? {})) {
    if (v === null) delete headers[k];
    else headers[k] = Array.isArray(v) ? v : v.replace(FORGE_API, forge.apiUrl);
  }
  const body =
    row.body === undefined
      ? undefined
      : Buffer.isBuffer(row.body)
        ? row.body
        : Buffer.from(typeof row.body === "string" ? row.body : JSON.stringify(row.body));
  if (body && !row.chunked) headers["content-length"] ??= String(body.length);
  const own = (s: string) => s.replaceAll(mcp.url, "<server>");
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        method: row.method ?? "POST",
        path: row.path ?? `${mode.prefix ?? ""}/mcp`,
        headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let confirmed: Promise<Answer> | undefined;
        res.on("data", (c: Buffer) => {
          chunks.push(c);
          // the elicitation request on the stream: the client answers it with a POST of its own
          const text = Buffer.concat(chunks).toString("utf8");
          const asked =
            row.confirm && !confirmed && text.includes("elicitation/create") && ELICITATION.exec(text);
          if (asked) {
            const result =
              row.confirm === "accept"
                ? { action: "accept", content: { confirm: true } }
                : { action: row.confirm };
            const answer = { jsonrpc: "2.0", id: asked[1], result };
            confirmed = send(mcp, mode, { name: "confirmation", body: answer, status: 202, lane: false });
          }
        });
        res.on("error", reject);
        res.on("end", async () => {
          try {
            const out: Record<string, string> = {};
            for (const [k, v] of Object.entries(res.headers))
              if (!VARYING.has(k) && v !== undefined) out[k] = own(Array.isArray(v) ? v.join("\n") : v);
            // a confirmation's id is random (a UUID): the same placeholder for both servers
            const text = own(Buffer.concat(chunks).toString("utf8")).replace(CONFIRM_ID, "confirm-<id>");
            let parsed: unknown = text;
            // JSON is compared parsed (a HEAD answer has the type but no body: compared as text)
            if (text && /^application\/json\b/i.test(res.headers["content-type"] ?? ""))
              parsed = JSON.parse(text);
            const answer: Answer = { status: res.statusCode!, headers: out, body: parsed };
            if (row.confirm) answer.confirmed = await confirmed;
            resolve(answer);
          } catch (err) {
            reject(err);
          }
        });
      },
    );
    req.on("error", reject);
    if (body && row.chunked) req.write(body);
    req.end(row.chunked ? undefined : body);
  });
}

interface Effects {
  /** The forge calls the request made: method, path, and which credential header it carried. */
  forge: string[];
  /** The OAuth verifier's forge calls. */
  verifierCalls: number;
  /** Tool calls the tool dispatcher answered (both ways run it: src/json-calls.ts). */
  direct: number;
  /** The server's log lines: level and message. */
  logs: string[];
}

/** Forge calls forge-mcp told of (src/forge/http.ts, onForgeCall), whichever server made them. */
let forgeCallsTold = 0;
let stopTelling: (() => void) | undefined;

/** The simulator's request log up to here: where the next request's forge calls start. */
let logSeq = 0;

/** The forge calls since the last look (one fetch per request: the requests run one at a time). */
async function forgeSince(): Promise<string[]> {
  const r = (await (await fetch(`${forge.origin}/_sim/log?since=${logSeq}`)).json()) as {
    entries: Array<{ seq: number; method: string; path: string; headers: Record<string, string> }>;
  };
  logSeq = r.entries.at(-1)?.seq ?? logSeq;
  return r.entries.map((e) => {
    const creds = ["authorization", "private-token", "job-token"].filter((h) => e.headers[h] !== undefined);
    return `${e.method} ${e.path} [${creds.join(",")}]`;
  });
}

/** Sends the row to one server and records what it did. */
async function observed(mcp: RunningForgeMcp, mode: Mode, row: Row) {
  const calls = mcp.server.verifier?.forgeCalls ?? 0;
  const direct = mcp.server.mcpPool().direct;
  const lane = mcp.server.mcpPool().lane;
  const logAt = mcp.logs.length;
  const told = forgeCallsTold;
  const answer = await send(mcp, mode, row);
  // every forge call of forge-mcp goes through src/forge/http.ts, which tells its listeners: a
  // request that made none needs no look at the simulator's log (a third of the rows, a fetch each)
  const made = forgeCallsTold - told;
  const forgeCalls = made === 0 ? [] : await forgeSince();
  expect(forgeCalls, "the forge calls the simulator saw are the ones forge-mcp told of").toHaveLength(made);
  const effects: Effects = {
    forge: forgeCalls,
    verifierCalls: (mcp.server.verifier?.forgeCalls ?? 0) - calls,
    direct: mcp.server.mcpPool().direct - direct,
    logs: mcp.logs.slice(logAt).map((l) => {
      const { level, msg } = JSON.parse(l) as { level: unknown; msg: unknown };
      return `${level} ${msg}`;
    }),
  };
  return { answer, effects, laneAnswered: mcp.server.mcpPool().lane - lane };
}

/** The counters of GET /metrics (not the process's own gauges, which differ between servers). */
async function counters(mcp: RunningForgeMcp): Promise<string[]> {
  const r = await fetch(`${mcp.url}/metrics`, { headers: bearer(METRICS) });
  expect(r.status).toBe(200);
  return (await r.text())
    .split("\n")
    .filter((l) => /^forge_mcp_(tool_calls|token_cache_lookups|rate_limited|oauth_requests)_total\{/.test(l))
    .sort();
}

beforeAll(async () => {
  forge = await startForge();
  await seedApp(forge, ["http://127.0.0.1:8765/callback"]);
  await seedApp(forge, ["http://127.0.0.1:8765/callback"], "lane-other-app");
  await forge.seed({
    tokens: [
      { token: API, application: APP_ID, user: "alice", scopes: ["api"] },
      { token: READ, application: APP_ID, user: "alice", scopes: ["read_api"] },
      { token: OTHER_APP, application: "lane-other-app", user: "alice", scopes: ["api"] },
      { token: EXPIRING, application: APP_ID, user: "alice", scopes: ["api"], expires_in: 300 },
    ],
    pipelines: [
      {
        project: "acme/platform/infra",
        ref: "main",
        jobs: [{ name: "release", stage: "deploy", status: "running", token: JOB }],
      },
    ],
  });
  logSeq = await forgeLogSeq(forge);
  stopTelling = onForgeCall(() => {
    forgeCallsTold++;
  });
});
afterAll(async () => {
  stopTelling?.();
  await forge?.close();
});

describe.each(MODES)("the /mcp lane answers as the route does: $name", (mode) => {
  let withLane: RunningForgeMcp;
  let without: RunningForgeMcp;
  beforeAll(async () => {
    const at = Date.now();
    const opts = {
      ...(mode.prefix ? { prefix: mode.prefix } : {}),
      ...(mode.stillClock ? { now: () => at } : {}),
    };
    [withLane, without] = await Promise.all([
      startForgeMcp(mode.env(), opts),
      startForgeMcp(mode.env(), { ...opts, lane: false }),
    ]);
  });
  afterAll(async () => {
    await withLane?.close();
    await without?.close();
  });

  it.each(mode.rows)("$name", async (row) => {
    if (row.before) {
      await row.before();
      logSeq = await forgeLogSeq(forge);
    }
    const a = await observed(withLane, mode, row);
    const b = await observed(without, mode, row);
    expect(a.answer, "the answer with the lane (left) and without (right)").toEqual(b.answer);
    expect(a.effects, "the side effects with the lane and without").toEqual(b.effects);
    expect(a.answer.status).toBe(row.status);
    expect(a.laneAnswered, "whether the lane answered it itself").toBe(row.lane ? 1 : 0);
    expect(b.laneAnswered).toBe(0);
  });

  it("the lane answered the plain calls (the comparison compared the lane), and the metrics agree", async () => {
    expect(withLane.server.mcpPool().lane).toBe(mode.rows.filter((r) => r.lane).length);
    expect(withLane.server.mcpPool().lane).toBeGreaterThan(0);
    expect(without.server.mcpPool().lane).toBe(0);
    // every counter, token-cache hits among them: a credential the lane looks up and then hands to
    // the route is counted once, as without the lane (it was counted twice at first)
    expect(await counters(withLane)).toEqual(await counters(without));
  });
});
