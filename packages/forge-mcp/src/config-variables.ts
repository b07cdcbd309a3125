import {
  atLeast,
  bool,
  type Env,
  gitlabTwin,
  groupPaths,
  int,
  key32,
  list,
  matching,
  oneOf,
  PERMISSION_MODES,
  pattern,
  text,
  trustProxy,
  url,
  type Variable,
} from "./config-readers.js";

/**
 * Every environment variable forge-mcp reads, one row each: its name (a FORGE_ name is also read
 * as GITLAB_, then as its further aliases), the Config field it fills, how it is read and checked,
 * its default, and its line in docs/forge-mcp.md. The settings type, the docs table, server.json's
 * variables and the NAME_FILE list are all derived from these rows (scripts/docs.mjs writes the
 * docs and server.json; test/config-variables.test.ts fails when they drift).
 */

/** In the order they are checked: the first invalid one is the start-up error. */
export const VARIABLES = [
  {
    name: "FORGE_MCP_OAUTH",
    key: "remoteOAuth",
    read: bool(),
    default: "false",
    doc: "`true` enables remote MCP OAuth (implies `MCP_TRANSPORT=http`)",
  },
  {
    name: "FORGE_OAUTH_CALLBACK_PROXY",
    key: "callbackProxy",
    read: bool(),
    default: "false",
    doc: "`true` enables callback proxy mode",
  },
  {
    name: "FORGE_OAUTH_CONSENT",
    key: "consentPage",
    read: bool(),
    default: "true",
    doc: "proxy mode: show our consent page before the forge; `false` redirects at once",
  },
  {
    name: "MCP_SERVER_URL",
    key: "mcpServerUrl",
    read: url(),
    shown: "required with OAuth",
    doc: "public base URL (https, or loopback for testing); the forge callback is `{MCP_SERVER_URL}/callback`. It may carry a path prefix (`https://host/gitlab`): every route then answers under the prefix and at the root (a proxy may forward or strip it), the 401's `resource_metadata` is the RFC 9728 form `https://host/.well-known/oauth-protected-resource/gitlab/mcp`, and the RFC 8414 document is at `/.well-known/oauth-authorization-server/gitlab`; route `/.well-known/*` to forge-mcp as well",
  },
  {
    name: "FORGE_OAUTH_APP_ID",
    aliases: ["GITLAB_OAUTH_CLIENT_ID"],
    key: "oauthAppId",
    read: text(),
    shown: "required with OAuth",
    doc: "Application ID of the forge OAuth application",
    file: true,
  },
  {
    name: "FORGE_OAUTH_SCOPES",
    key: "oauthScopes",
    read: text(),
    shown: "`api` (`read_api` with `FORGE_READ_ONLY`; `read_api api` with `FORGE_MCP_STEP_UP`)",
    doc: 'scopes forge-mcp may request at the forge (space or comma separated), advertised as `scopes_supported`; a 401 from `/mcp` names the scope sign-in asks for (`scope="api"`)',
  },
  {
    name: "FORGE_MCP_STEP_UP",
    key: "stepUp",
    read: bool(),
    default: "false",
    doc: '`true`: sign-in asks for `read_api` only; the first call of a writing tool (its `readOnlyHint` is false) with such a token answers 403 `insufficient_scope` with `scope="api"`, and the client signs the user in again for `api` and retries ([step-up](forge-mcp-oauth.md#12-scopes-and-step-up-authorization)); a 2026-07-28 client that declared form elicitation is asked first, in an `input_required` result. Needs `FORGE_MCP_OAUTH=true`, and both scopes in `FORGE_OAUTH_SCOPES` and in the forge application',
  },
  {
    name: "FORGE_MCP_CONFIRM_DESTRUCTIVE",
    key: "confirmDestructive",
    read: oneOf(
      ["elicit", "refuse", "off"],
      'FORGE_MCP_CONFIRM_DESTRUCTIVE must be "elicit", "refuse" or "off"',
      { anyCase: true },
    ),
    default: "elicit",
    doc: 'before a tool with `destructiveHint` (the `delete_*` tools) calls the forge, ask the person through MCP elicitation (a yes/no form naming the tool and its arguments) when the client declared the `elicitation` capability; declined, cancelled, unanswered (5 minutes) or "no" answers `isError` with no forge call. `elicit`: clients without elicitation run the tool as before; `refuse`: they get `isError` instead; `off`: never ask ([confirming destructive tools](#confirming-destructive-tools))',
  },
  {
    name: "OAUTH_REGISTER_RATE_LIMIT_PER_HOUR",
    key: "registerRateLimitPerHour",
    read: int(1, 1_000_000),
    default: "20",
    doc: "per-client-IP limit on `POST /register`",
  },
  {
    name: "MCP_TOKEN_VERIFY_RATE_LIMIT_PER_MINUTE",
    key: "verifyRateLimitPerMinute",
    read: int(1, 1_000_000),
    default: "60",
    doc: "per client IP: bearer tokens checked at the forge per minute (tokens already in the verified or rejected cache never count); over it, `/mcp` answers 429 with `Retry-After` and makes no forge call",
  },
  {
    name: "OAUTH_CLIENT_METADATA_FETCH_RATE_LIMIT_PER_MINUTE",
    key: "clientMetadataFetchesPerMinute",
    read: int(1, 1_000_000),
    default: "10",
    doc: "per client IP (per replica): client metadata documents fetched per minute (cached documents never count); over it, `/authorize` and `/token` answer 429 with `Retry-After` and fetch nothing",
  },
  {
    name: "FORGE_MCP_CIMD_ALLOW_LOOPBACK_FOR_TESTS",
    key: "cimdAllowLoopbackForTests",
    read: bool(),
    default: "false",
    doc: "**tests only, never in production**: lets client metadata documents be fetched from loopback addresses (127.0.0.0/8, `::1`); start-up logs a warning when it is on",
  },
  {
    name: "OAUTH_TOKEN_RELAY_RATE_LIMIT_PER_MINUTE",
    key: "relayRateLimitPerMinute",
    read: int(1, 1_000_000),
    default: "30",
    doc: "per client IP: forge calls relayed by `/token` (refresh, and the passthrough code exchange) and `/revoke` together, per minute; over it, both answer 429 with `Retry-After` and make no forge call. A refresh token the forge refused, or a token just revoked, is remembered by hash for 30 s and answered again without a forge call. Per process, like the token-check budget",
  },
  {
    name: "MCP_ALLOWED_HOSTS",
    key: "allowedHosts",
    read: list(),
    shown: "loopback names and `MCP_SERVER_URL`'s host",
    doc: "DNS-rebinding protection of `/mcp`: extra `Host` names (no port), comma-separated, or `*`; another `Host` gets 403",
  },
  {
    name: "REDIS_CONNECT_TIMEOUT_MS",
    key: "redisConnectTimeoutMs",
    read: int(100, 600_000),
    default: "10000",
    doc: "start-up waits this long for Redis; an unreachable or silent `REDIS_URL` then stops start-up with one line naming the host and port (never the password)",
  },
  {
    name: "REDIS_TIMEOUT_MS",
    key: "redisTimeoutMs",
    read: int(50, 60_000),
    default: "2000",
    doc: "once running, the longest one Redis call may take; then the request gets its answer without Redis (see [When Redis goes away](#when-redis-goes-away))",
  },
  {
    name: "MCP_ALLOWED_ORIGINS",
    key: "allowedOrigins",
    read: list(),
    shown: "loopback origins (any port) and `MCP_SERVER_URL`'s origin; any origin when forge OAuth is on",
    doc: "extra browser origins allowed at `/mcp`, comma-separated, or `*`; requests without `Origin` (non-browser clients) are not affected",
  },
  {
    name: "OAUTH_REDIRECT_URI_ALLOWLIST",
    key: "redirectUriAllowlist",
    read: list(),
    shown:
      "empty (any https, http loopback on any port, or a native app's private-use scheme such as `cursor://` or `com.example.app:`)",
    doc: "comma-separated patterns matched against the URI's WHATWG-parsed form; `*` matches within its part (in the host and port it never reaches the path), e.g. `https://*.example.com/*,http://127.0.0.1:*/*,cursor://*`. A redirect URI is refused when the parser would rewrite it (a backslash, upper-case host, default port), when it has userinfo or a fragment, and when its scheme is one the browser handles itself (`javascript:`, `data:`, `file:`, \u2026); the same rules hold at `/authorize`",
  },
  {
    name: "OAUTH_STATELESS_MODE",
    key: "stateless",
    read: bool(),
    default: "false",
    doc: "seal client ids, states and proxy codes instead of storing them",
  },
  {
    name: "OAUTH_STATELESS_SECRET",
    key: "statelessSecret",
    read: key32(),
    shown: "required when stateless",
    doc: "32 random bytes, base64 (`openssl rand -base64 32`); the same on every replica",
    secret: true,
  },
  {
    name: "OAUTH_STATELESS_SECRET_PREVIOUS",
    key: "statelessSecretPrevious",
    read: key32(),
    doc: "the previous secret during a rotation; still opens values, never seals",
    secret: true,
  },
  {
    name: "REDIS_URL",
    key: "redisUrl",
    read: matching(/^rediss?:\/\//, "REDIS_URL must start with redis:// or rediss://"),
    doc: "`redis://` URL: exact one-time codes/states, a shared registration limit, and 2025 clients' `notifications/cancelled` reaching a call on another replica",
    secret: true,
  },
  {
    name: "REDIS_KEY_PREFIX",
    key: "redisKeyPrefix",
    read: matching(
      /^[A-Za-z0-9:._-]{1,64}$/,
      "REDIS_KEY_PREFIX must be 1 to 64 letters, digits, `:`, `.`, `_` or `-`",
    ),
    default: "forge-mcp:",
    doc: "what every Redis key and channel of this deployment starts with; give each deployment sharing one Redis its own, so that none sees another's one-time claims, registration counts or cancels",
  },
  {
    name: "FORGE_USE_OAUTH",
    key: "localOAuth",
    read: bool(),
    default: "false",
    doc: "local stdio mode: sign in with the browser instead of a token",
  },
  {
    name: "FORGE_OAUTH_REDIRECT_URI",
    key: "localOAuthRedirectUri",
    read: url(),
    default: "http://127.0.0.1:7171/callback",
    doc: "local mode only: the loopback callback; ignored by the remote provider",
  },
  {
    name: "FORGE_API_URL",
    key: "forgeApiUrl",
    read: url(),
    default: "https://gitlab.com/api/v4",
    doc: "the forge REST base; `/oauth/*` lives at this URL without `/api/v4`",
    registry: { description: "The forge's REST base" },
  },
  {
    name: "FORGE_TIMEOUT_MS",
    key: "forgeTimeoutMs",
    read: int(100, 600_000),
    default: "15000",
    doc: "timeout of every forge call, its answer and body (to within 50 ms)",
  },
  {
    name: "FORGE_TOKEN_INFO_QUERY_FALLBACK",
    key: "tokenInfoQueryFallback",
    read: bool(),
    default: "false",
    doc: "when the forge answers 401 to `/oauth/token/info`, retry with `?access_token=` (for instances whose edge cache strips `Authorization` on `/oauth/*`; off by default because query strings end up in access logs)",
  },
  {
    name: "FORGE_TOKEN",
    aliases: ["GITLAB_PERSONAL_ACCESS_TOKEN"],
    key: "forgeToken",
    read: text(),
    doc: "personal access token for stdio (or http without OAuth)",
    secret: true,
    registry: {
      description:
        "Personal access token of the forge user the tools act as (gitlab-mcp: GITLAB_PERSONAL_ACCESS_TOKEN)",
      required: true,
    },
  },
  {
    name: "FORGE_JOB_TOKEN",
    key: "jobToken",
    input: true,
    read: text(),
    doc: "a CI/CD job token instead of `FORGE_TOKEN` (sent as `JOB-TOKEN`; `FORGE_TOKEN` wins)",
    secret: true,
  },
  {
    name: "FORGE_PROJECT_ID",
    key: "projectId",
    input: true,
    read: text(),
    doc: "the default `project_id` of tool calls that omit it (ignored with `FORGE_ALLOWED_PROJECT_IDS`)",
  },
  {
    name: "FORGE_READ_ONLY",
    aliases: ["GITLAB_READ_ONLY_MODE"],
    key: "readOnlyMode",
    input: true,
    read: bool(),
    default: "false",
    doc: "register no write tools; tokens with `read_api` are accepted, and sign-in asks for `read_api` only (unless `FORGE_OAUTH_SCOPES` is set)",
  },
  {
    name: "FORGE_PERMISSION_MODE",
    key: "permission",
    read: oneOf(
      PERMISSION_MODES,
      'FORGE_PERMISSION_MODE (GITLAB_PERMISSION_MODE) must be "readonly", "modify" or "full"',
      { anyCase: true },
    ),
    default: "full",
    doc: "`readonly` (no writing tool), `modify` (no destructive tool: deletions), `full`; `FORGE_READ_ONLY=true` wins over it. See [Narrowing what the model may do](#narrowing-what-the-model-may-do)",
    registry: { description: "readonly, modify (no destructive tools) or full" },
  },
  {
    name: "FORGE_TOOLSETS",
    key: "toolsets",
    read: text(),
    shown: "the core list",
    doc: "comma list of toolsets listed from the start (see [Tools](#tools)); unset, the core list and `search_tools` (every other tool one search away); gitlab-mcp's names accepted, unknown names warned about; `all` is every toolset, `none` no toolset (only the tools of `FORGE_TOOLS`)",
    registry: { description: "Comma list of toolsets to serve, all, or none" },
  },
  {
    name: "FORGE_TOOLS",
    key: "extraTools",
    read: list(),
    doc: "comma list of single tools served on top of the toolsets (gitlab-mcp's `GITLAB_TOOLS`); names we do not have are warned about",
    registry: { description: "Single tools served on top of the toolsets" },
  },
  {
    name: "FORGE_DENIED_TOOLS_REGEX",
    key: "deniedTools",
    read: pattern(),
    doc: "tools whose name matches this regular expression are never served",
    registry: { description: "Tools whose name matches are never served" },
  },
  {
    name: "FORGE_ALLOWED_PROJECT_IDS",
    key: "allowedProjects",
    read: list(),
    shown: "unset (every project the token reaches)",
    doc: "comma list of project ids or full paths; no tool reaches another project",
    registry: { description: "Comma list of project ids or full paths; no tool reaches another project" },
  },
  {
    name: "ENABLE_STRICT_PROJECT_SCOPE",
    aliases: ["FORGE_STRICT_PROJECT_SCOPE"],
    key: "strictProjectScope",
    read: bool(),
    default: "false",
    doc: "`true`, with a project allow-list (`GITLAB_ALLOWED_PROJECT_IDS`, or a request's `X-GitLab-Allowed-Project-Ids`): what reaches past the listed projects is refused with a message naming the list: searches across the instance (`search_code`, `search` without `project_id`), groups and everything under them (but a group's project list, filtered), namespaces, to-do items, orbit. Lists across projects show only the listed ones either way. See [Project scope](#project-scope)",
  },
  {
    name: "FORGE_OAUTH_ALLOWED_GROUPS",
    aliases: ["GITLAB_ALLOWED_GROUPS"],
    key: "allowedGroups",
    read: groupPaths(),
    shown: "unset (anyone who signs in)",
    doc: "comma list of group full paths; with OAuth, only members of one of them or of a subgroup get a token, and `/mcp` accepts only their tokens",
  },
  {
    name: "REMOTE_AUTHORIZATION",
    aliases: ["FORGE_REMOTE_AUTHORIZATION"],
    key: "remoteAuthorization",
    read: bool(),
    default: "false",
    doc: "`true`: every `/mcp` request carries its user's own forge token (implies `MCP_TRANSPORT=http`; not with `FORGE_MCP_OAUTH`). See [Per-user tokens without OAuth](#per-user-tokens-without-oauth)",
  },
  {
    name: "ENABLE_DYNAMIC_API_URL",
    aliases: ["FORGE_DYNAMIC_API_URL"],
    key: "dynamicApiUrl",
    input: true,
    read: bool(),
    default: "false",
    doc: "with `REMOTE_AUTHORIZATION`: a request may pick its forge with `X-GitLab-API-URL`, among `FORGE_API_URL` and `FORGE_ALLOWED_API_URLS`",
  },
  {
    name: "FORGE_ALLOWED_API_URLS",
    aliases: ["GITLAB_ALLOWED_HOSTS"],
    key: "allowedApiUrls",
    input: true,
    read: list(),
    doc: "comma list of further forges a request may select: hosts (`gitlab.example.com`, https) or URLs (`http://10.0.0.5:8080/api/v4`); compared by origin",
  },
  {
    name: "ENABLE_DYNAMIC_PROJECT_SCOPE",
    aliases: ["FORGE_DYNAMIC_PROJECT_SCOPE"],
    key: "dynamicProjectScope",
    read: bool(),
    default: "false",
    doc: "with `REMOTE_AUTHORIZATION`: a request's `X-GitLab-Allowed-Project-Ids` (comma list of ids or full paths) narrows the projects its tools reach; with `GITLAB_ALLOWED_PROJECT_IDS` a project must be in both lists, so the header never widens it. Without this variable the header is ignored. See [Project scope](#project-scope)",
  },
  {
    name: "FORGE_MASKING_ENABLED",
    key: "maskingEnabled",
    read: bool(),
    default: "false",
    doc: "`true`: every tool's answer (text and structured content, errors too) is masked before the model reads it: GitLab tokens (`glpat-`, `glrt-`, `glptt-`, `gldt-`, `glcbt-`, `glsoat-`, `gloas-`, `glagent-`, `glft-`, `glimt-`) as `[Token masked]`, IPv4 and IPv6 addresses as `[IP address]`, and the operator's rules. See [Masking](#masking)",
  },
  {
    name: "FORGE_MASKING_CONFIG",
    key: "maskingConfig",
    read: text(),
    shown: "`.gitlab-mcp-mask.json` in the workspace, when it exists",
    doc: "a JSON file of masking rules (keywords, regular expressions, the built-ins' switches and replacements), or of a managed policy group's name; gitlab-mcp's format. A relative path is read from `FORGE_MASKING_WORKSPACE_DIR`",
  },
  {
    name: "FORGE_MASKING_POLICY_FILE",
    key: "maskingPolicyFile",
    read: text(),
    doc: "a JSON file of policy groups bound to project ids per forge: each call is masked by its project's group, and refused when no group covers it (gitlab-mcp's managed masking). A project named by path or URL is looked up with the caller's token first (see [Project paths and ids](#project-paths-and-ids))",
  },
  {
    name: "FORGE_MASKING_WORKSPACE_DIR",
    key: "maskingWorkspaceDir",
    read: text(),
    shown: "the working directory",
    doc: "where the masking files' relative paths (and the default `.gitlab-mcp-mask.json`) are read from",
  },
  {
    name: "METRICS_PORT",
    key: "metricsPort",
    read: int(0, 65535),
    shown: "unset (no metrics)",
    doc: "serve `GET /metrics` (Prometheus text) on a listener of its own at this port, on `METRICS_HOST` (default `HOST`); see [Metrics and audit](#metrics-and-audit)",
  },
  {
    name: "METRICS_HOST",
    key: "metricsHost",
    read: text(),
    shown: "`HOST`",
    doc: "the address the `/metrics` listener of `METRICS_PORT` binds to",
  },
  {
    name: "METRICS_BEARER_TOKEN",
    key: "metricsToken",
    read: atLeast(
      16,
      "METRICS_BEARER_TOKEN must be at least 16 characters; generate one with: openssl rand -hex 24",
    ),
    doc: "`/metrics` answers only requests with `Authorization: Bearer <this>` (16+ characters); without `METRICS_PORT` it is then served on the main port",
    secret: true,
  },
  {
    name: "HOST",
    key: "host",
    read: text(),
    default: "127.0.0.1",
    doc: "listen address",
  },
  {
    name: "PORT",
    key: "port",
    read: int(0, 65535),
    default: "3000",
    doc: "listen port",
  },
  {
    name: "MCP_TRUST_PROXY",
    key: "trustProxy",
    read: trustProxy(),
    default: "false",
    doc: "which proxies in front may name the client's address (Express `trust proxy`): a hop count (`1` = one load balancer), `loopback`, or the balancer's addresses/CIDRs (`10.0.0.0/8,fd00::/8`). The client address is then the rightmost `X-Forwarded-For` entry not added by a trusted proxy; entries to its left are written by the client and never used. `true` means `1` (Express's own `true` would take the leftmost entry, which any client can forge to dodge the per-IP limits)",
  },
  {
    name: "MCP_TRANSPORT",
    key: "transport",
    read: oneOf(["http", "stdio"], 'MCP_TRANSPORT must be "http" or "stdio"'),
    shown: "`stdio` (`http` with OAuth)",
    doc: "`http` serves Streamable HTTP at `/mcp`",
  },
  {
    name: "MCP_REPLICA_NAME",
    key: "replicaName",
    read: text(),
    doc: "sent as `x-replica` on every response (diagnostics behind a load balancer)",
  },
  {
    name: "LOG_LEVEL",
    key: "logLevel",
    read: text(),
    default: "info",
    doc: "pino level; logs go to stderr",
  },
] as const satisfies readonly Variable[];

type Row = (typeof VARIABLES)[number];
type ValueOf<R> = R extends { read: (...args: never[]) => infer T }
  ? R extends { default: string }
    ? Exclude<T, undefined>
    : T
  : never;

/** Every variable's value, by its key: what the table alone says, before config.ts derives. */
export type Settings = { [R in Row as R["key"]]: ValueOf<R> };
/** The keys of variables that fill no Config field of their own. */
export type InputKey = Extract<Row, { input: true }>["key"];

const ROWS: readonly Variable[] = VARIABLES;

/** Every name a variable is read under, in the order they are tried. */
export function namesOf(v: Variable): string[] {
  const twin = gitlabTwin(v.name);
  return [v.name, ...(twin ? [twin] : []), ...(v.aliases ?? [])];
}

/** The first of the names that is set to something other than blanks, trimmed. */
function pick(env: Env, names: string[]): string | undefined {
  for (const n of names) {
    const v = env[n];
    if (v !== undefined && v.trim() !== "") return v.trim();
  }
  return undefined;
}

/** Reads every variable in table order; the first invalid one throws its ConfigError. */
export function readSettings(env: Env): Settings {
  const out: Record<string, unknown> = {};
  for (const v of ROWS) out[v.key] = v.read(pick(env, namesOf(v)) ?? v.default, v.name);
  return out as Settings;
}

/** The variables that may be read from a file (`NAME_FILE`): the secrets and what names them. */
export const FILE_VARIABLES: readonly string[] = ROWS.flatMap((v) =>
  v.secret ? namesOf(v) : v.file ? namesOf(v).slice(0, 2) : [],
);

const TABLE_BEGIN =
  "<!-- configuration table: generated from src/config-variables.ts by `node packages/forge-mcp/scripts/docs.mjs`; do not edit -->";
const TABLE_END = "<!-- end of configuration table -->";

/** The configuration table of docs/forge-mcp.md. */
export function variablesTable(): string {
  const rows = ROWS.map((v) => {
    const also = v.aliases?.length ? ` (also ${v.aliases.map((a) => `\`${a}\``).join(", ")})` : "";
    const shown = v.shown ?? (v.default === undefined ? "unset" : `\`${v.default}\``);
    return `| \`${v.name}\`${also} | ${shown} | ${v.doc} |`;
  });
  return [TABLE_BEGIN, "", "| Variable | Default | Meaning |", "|---|---|---|", ...rows, "", TABLE_END].join(
    "\n",
  );
}

/** The document with its configuration table replaced by the table's. */
export function withVariablesTable(doc: string): string {
  const a = doc.indexOf(TABLE_BEGIN);
  const b = doc.indexOf(TABLE_END);
  if (a < 0 || b < a) throw new Error("docs/forge-mcp.md has no generated configuration table markers");
  return doc.slice(0, a) + variablesTable() + doc.slice(b + TABLE_END.length);
}

/** server.json's environmentVariables: the rows with a `registry` entry. */
export function registryVariables(): Record<string, unknown>[] {
  return ROWS.filter((v) => v.registry).map((v) => ({
    name: v.name,
    description: v.registry?.description,
    ...(v.registry?.required ? { isRequired: true } : {}),
    ...(v.secret ? { isSecret: true } : {}),
    ...(v.default !== undefined ? { default: v.default } : {}),
    ...(v.read.choices ? { choices: [...v.read.choices] } : {}),
    format: "string",
  }));
}
