import { readFileSync } from "node:fs";
import { ConfigError, type Env, type PermissionMode } from "./config-readers.js";
import { FILE_VARIABLES, type InputKey, readSettings, type Settings } from "./config-variables.js";

export { ConfigError, PERMISSION_MODES, type PermissionMode } from "./config-readers.js";
export { FILE_VARIABLES } from "./config-variables.js";

/**
 * Environment → typed configuration. Every variable may also be spelled with a `GITLAB_` prefix in
 * place of `FORGE_` (and a few gitlab-mcp names are accepted verbatim), so an existing GitLab MCP
 * deployment moves over without touching its environment. Invalid configuration throws a
 * ConfigError whose message is one line naming the variable, the rule and the fix. What each
 * variable is, and how it is read, is one row of ./config-variables.ts; this module derives what
 * depends on several of them.
 */

export type Transport = "http" | "stdio";

/** The Config fields derived from several variables (or with a default that depends on another). */
interface Derived {
  transport: Transport;
  /** Instance root where /oauth/* lives (forgeApiUrl without /api/v4). */
  forgeRootUrl: string;
  /** permission === "readonly" (kept for the scope policy and older callers). */
  readOnly: boolean;
  /** readonly, modify (no destructive tools), full; FORGE_READ_ONLY=true wins over FORGE_PERMISSION_MODE. */
  permission: PermissionMode;
  toolsets: string[] | undefined;
  /** FORGE_TOOLSETS names we do not serve (warned about at start-up). */
  unknownToolsets: string[];
  /**
   * The project_id a tool call may omit (gitlab-mcp's default project): the one entry of
   * GITLAB_ALLOWED_PROJECT_IDS, or GITLAB_PROJECT_ID without an allow-list.
   */
  defaultProject: string | undefined;
  /**
   * ENABLE_DYNAMIC_API_URL with GITLAB_ALLOWED_HOSTS (FORGE_ALLOWED_API_URLS): the forge origins a
   * request may select with X-GitLab-API-URL (FORGE_API_URL's always); undefined when not enabled.
   */
  forgeOrigins: string[] | undefined;
  metricsHost: string;
  /** Start-up warnings (gitlab-mcp variables that have no effect here), logged by main. */
  warnings: string[];
  /** Personal access token (or job token) for stdio mode. */
  forgeToken: string | undefined;
  /** How forgeToken travels: `job` for GITLAB_JOB_TOKEN (sent as JOB-TOKEN), else a bearer. */
  forgeTokenKind: "bearer" | "job";
  mcpServerUrl: string;
  oauthScopes: string[];
}

/** The configuration: each variable's value by its table key, and what is derived from them. */
export type Config = Omit<Settings, InputKey | keyof Derived> & Derived;

/** Every toolset's name, in the order tools/list and the docs show them (tools/index.ts fills each). */
export const TOOLSET_NAMES = [
  "projects",
  "issues",
  "merge_requests",
  "pipelines",
  "repository",
  "users",
  "groups",
  "labels",
  "milestones",
  "tags",
  "releases",
  "wiki",
  "search",
  "variables",
  "graphql",
  "webhooks",
  "workitems",
  "vulnerabilities",
  "dependency_proxy",
  "orbit",
] as const;
export type Toolset = (typeof TOOLSET_NAMES)[number];

/**
 * gitlab-mcp's toolset names that map onto one of ours, so its GITLAB_TOOLSETS values and
 * discover_tools categories carry over.
 */
export const TOOLSET_ALIASES: Readonly<Record<string, Toolset>> = {
  repositories: "repository",
  branches: "repository",
  ci: "pipelines",
};

/**
 * FORGE_TOOLSETS → our toolset names (gitlab-mcp's names accepted, `all` = every toolset including
 * graphql, `none` = no toolset: only the single tools of GITLAB_TOOLS) and the names we do not serve, which are warned about rather than refused: a
 * gitlab-mcp configuration naming a toolset we lack must still start.
 */
export function parseToolsets(raw: string | undefined): {
  toolsets: string[] | undefined;
  unknown: string[];
} {
  if (raw === undefined) return { toolsets: undefined, unknown: [] };
  const out = new Set<string>();
  const unknown: string[] = [];
  for (const name of raw
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)) {
    if (name === "all") for (const t of TOOLSET_NAMES) out.add(t);
    else if (name === "none")
      continue; // only GITLAB_TOOLS' single tools
    else if ((TOOLSET_NAMES as readonly string[]).includes(name)) out.add(name);
    else if (TOOLSET_ALIASES[name]) out.add(TOOLSET_ALIASES[name]);
    else unknown.push(name);
  }
  return { toolsets: [...out], unknown };
}

const truthy = (v: string | undefined) =>
  v !== undefined && ["true", "1", "yes"].includes(v.trim().toLowerCase());

/** gitlab-mcp's legacy switches that turn a toolset on. */
const LEGACY_TOOLSET_FLAGS: Record<string, string> = {
  USE_GITLAB_WIKI: "wiki",
  USE_MILESTONE: "milestones",
  USE_PIPELINE: "pipelines",
};
/** gitlab-mcp variables with no effect here: named in a start-up warning. */
const IGNORED = [
  "SSE_AUTH_TOKEN",
  "GITLAB_ALLOW_UNAUTHENTICATED_TOOL_DISCOVERY",
  "SESSION_TIMEOUT_SECONDS",
  "GITLAB_DISABLE_VERSION_CHECK",
  "LOG_FORMAT",
  "MCP_SERVER_NAME",
  "MAX_SESSIONS",
  "MAX_REQUESTS_PER_MINUTE",
  "GITLAB_POOL_MAX_SIZE",
  "OAUTH_STATELESS_CLIENT_TTL_SECONDS",
  "OAUTH_STATELESS_PENDING_TTL_SECONDS",
  "OAUTH_STATELESS_STORED_TTL_SECONDS",
  "OAUTH_STATELESS_SESSION_TTL_SECONDS",
  "GITLAB_OAUTH_TOKEN_SCRIPT_TIMEOUT_SECONDS",
  "SSE_DANGEROUSLY_ALLOW_UNAUTHENTICATED_REMOTE",
  "MCP_DANGEROUSLY_ALLOW_INSECURE_ISSUER_URL",
  "GITLAB_IS_OLD",
  // gitlab-mcp sends forge calls through them; Node 20's fetch, which forge-mcp uses, does not
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
];
/**
 * gitlab-mcp variables whose effect forge-mcp does not have and whose absence would serve more or
 * guard less than the operator asked: start-up stops with a line naming each and what to do.
 */
const REFUSED: Record<string, string> = {
  GITLAB_TOOL_POLICY_APPROVE:
    "per-tool confirmation is not served; FORGE_MCP_CONFIRM_DESTRUCTIVE asks before every destructive tool, or leave tools out with GITLAB_DENIED_TOOLS_REGEX",
  GITLAB_TOOL_POLICY_HIDDEN:
    "hidden-but-callable tools are not served; leave them out with GITLAB_DENIED_TOOLS_REGEX or list the wanted ones with FORGE_TOOLSETS=none and GITLAB_TOOLS",
  STREAMABLE_HTTP_AUTH_TOKEN:
    "a shared bearer token on /mcp is not served; use FORGE_MCP_OAUTH=true or REMOTE_AUTHORIZATION=true so each caller is known",
  GITLAB_OAUTH_CLIENT_SECRET:
    "confidential OAuth applications are not served; make the forge application public (not confidential) and remove the secret",
  GITLAB_CA_CERT_PATH:
    "use NODE_EXTRA_CA_CERTS=<path> (Node reads it at start) for a forge with a private CA",
  GITLAB_OAUTH_TOKEN_PATH: "stored token files are not read; use FORGE_TOKEN(_FILE) or FORGE_USE_OAUTH=true",
  GITLAB_AUTH_COOKIE_PATH:
    "browser session cookies are not read; use FORGE_TOKEN(_FILE), GITLAB_JOB_TOKEN or FORGE_USE_OAUTH=true",
  GITLAB_OAUTH_TOKEN_SCRIPT: "token scripts are not run; use FORGE_TOKEN(_FILE) or FORGE_USE_OAUTH=true",
};

/**
 * A gitlab-mcp environment, read so that moving over keeps working: STREAMABLE_HTTP=true (and
 * SSE=true, with a warning: only Streamable HTTP is served) select HTTP, the USE_* flags add
 * their toolsets, restrictions we cannot honour stop start-up, and the rest is named as ignored.
 */
const SSE_AUTH_REFUSAL =
  "a shared bearer token on the SSE endpoint is not served (SSE=true serves Streamable HTTP at /mcp); use FORGE_MCP_OAUTH=true or REMOTE_AUTHORIZATION=true so each caller is known";

function gitlabMcpCompat(env: Env): { http: boolean; toolsets: string[]; warnings: string[] } {
  const refused = Object.keys(REFUSED).filter((n) => env[n]?.trim());
  // SSE=true is served as Streamable HTTP: a token that guarded gitlab-mcp's SSE endpoint would guard nothing
  if (truthy(env.SSE) && env.SSE_AUTH_TOKEN?.trim()) refused.push("SSE_AUTH_TOKEN");
  if (refused.length > 0)
    throw new ConfigError(
      refused
        .map((n) => `${n} (gitlab-mcp) has no equivalent here: ${REFUSED[n] ?? SSE_AUTH_REFUSAL}`)
        .join("; "),
    );
  const warnings: string[] = [];
  if (truthy(env.SSE))
    warnings.push(
      "SSE=true (gitlab-mcp): the legacy SSE transport is not served; clients use Streamable HTTP at /mcp",
    );
  const ignored = IGNORED.filter((n) => env[n]?.trim());
  if (ignored.length > 0)
    warnings.push(`gitlab-mcp variables with no effect in forge-mcp (ignored): ${ignored.join(", ")}`);
  return {
    http: truthy(env.STREAMABLE_HTTP) || truthy(env.SSE),
    toolsets: Object.entries(LEGACY_TOOLSET_FLAGS)
      .filter(([flag]) => truthy(env[flag]))
      .map(([, t]) => t),
    warnings,
  };
}

/** A GITLAB_ALLOWED_HOSTS entry (`gitlab.example.com`, `host:8443`, or a URL) → the origin it allows. */
export function originOf(entry: string): string | undefined {
  const withScheme = /^https?:\/\//i.test(entry) ? entry : `https://${entry}`;
  return URL.canParse(withScheme) ? new URL(withScheme).origin : undefined;
}

const isLoopback = (u: URL) => ["127.0.0.1", "localhost", "[::1]"].includes(u.hostname);

/**
 * `NAME_FILE=/path` stands for `NAME=<the file's content, trimmed>` (Docker and Kubernetes
 * secrets), for the names of FILE_VARIABLES; NAME set as well is refused as ambiguous. An
 * unreadable file stops start-up naming the variable and the path, never content.
 */
export function withFileSecrets(env: Env, read: (path: string) => string = readFileText): Env {
  const out: Env = { ...env };
  for (const name of FILE_VARIABLES) {
    const key = `${name}_FILE`;
    const path = env[key];
    if (!path?.trim()) continue;
    if (env[name]?.trim())
      throw new ConfigError(`${name} and ${key} are both set: keep one (${key} reads the value from a file)`);
    let value: string;
    try {
      value = read(path.trim());
    } catch (err) {
      throw new ConfigError(
        `${key}: cannot read ${path.trim()} (${(err as NodeJS.ErrnoException).code ?? "error"}): point it at a readable file holding the value of ${name}`,
      );
    }
    out[name] = value.trim();
  }
  return out;
}

const readFileText = (path: string) => readFileSync(path, "utf8");

export function loadConfig(rawEnv: Env = process.env): Config {
  const env = withFileSecrets(rawEnv);
  const {
    jobToken,
    projectId,
    readOnlyMode,
    dynamicApiUrl,
    allowedApiUrls,
    transport: transportSetting,
    permission: permissionMode,
    toolsets: toolsetList,
    forgeToken: personalToken,
    mcpServerUrl: serverUrl,
    oauthScopes: scopeList,
    metricsHost,
    ...settings
  } = readSettings(env);
  const { remoteOAuth, remoteAuthorization, host, port, forgeApiUrl, stateless, stepUp } = settings;
  const compat = gitlabMcpCompat(env);
  const transport: Transport =
    transportSetting ?? (remoteOAuth || remoteAuthorization || compat.http ? "http" : "stdio");
  if (remoteOAuth && transport === "stdio") {
    throw new ConfigError("FORGE_MCP_OAUTH=true needs MCP_TRANSPORT=http (remote OAuth is served over HTTP)");
  }
  if (remoteAuthorization && transport === "stdio")
    throw new ConfigError(
      "REMOTE_AUTHORIZATION=true needs MCP_TRANSPORT=http (each HTTP request carries its user's token)",
    );
  if (remoteAuthorization && remoteOAuth)
    throw new ConfigError(
      "REMOTE_AUTHORIZATION=true and FORGE_MCP_OAUTH=true are two ways to know the user: choose one (remove one of them)",
    );
  if (dynamicApiUrl && !remoteAuthorization)
    throw new ConfigError(
      "ENABLE_DYNAMIC_API_URL=true needs REMOTE_AUTHORIZATION=true (a request's forge is chosen with the request's own token)",
    );
  let forgeOrigins: string[] | undefined;
  if (dynamicApiUrl) {
    forgeOrigins = [];
    for (const entry of allowedApiUrls) {
      const o = originOf(entry);
      if (!o)
        throw new ConfigError(
          `GITLAB_ALLOWED_HOSTS (FORGE_ALLOWED_API_URLS): "${entry}" is neither a host nor an http(s) URL`,
        );
      forgeOrigins.push(o);
    }
  }
  const forgeRootUrl = forgeApiUrl.replace(/\/api\/v4$/, "");
  if (forgeOrigins) forgeOrigins.unshift(new URL(forgeApiUrl).origin);
  const mcpServerUrl = serverUrl ?? `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

  if (remoteOAuth) {
    if (!settings.oauthAppId) {
      throw new ConfigError(
        "FORGE_MCP_OAUTH=true needs FORGE_OAUTH_APP_ID (the Application ID of the forge OAuth application)",
      );
    }
    if (!serverUrl) {
      throw new ConfigError("FORGE_MCP_OAUTH=true needs MCP_SERVER_URL (the public base URL of this server)");
    }
    const u = new URL(mcpServerUrl);
    if (u.protocol !== "https:" && !isLoopback(u)) {
      throw new ConfigError(
        `MCP_SERVER_URL must be https (or a loopback URL for local testing), got "${mcpServerUrl}"`,
      );
    }
    if (u.search || u.hash) throw new ConfigError("MCP_SERVER_URL must not carry a query or fragment");
  }
  if (stateless && !settings.statelessSecret) {
    throw new ConfigError(
      "OAUTH_STATELESS_MODE=true needs OAUTH_STATELESS_SECRET (32 random bytes, base64; generate with: openssl rand -base64 32)",
    );
  }
  const named = parseToolsets(toolsetList);
  const { unknown: unknownToolsets } = named;
  // the USE_* flags add to an explicit list; without one every default toolset is served anyway
  const toolsets = named.toolsets && [...new Set([...named.toolsets, ...compat.toolsets])];
  // GITLAB_READ_ONLY_MODE=true wins over a permission mode, as in gitlab-mcp
  const permission: PermissionMode = readOnlyMode ? "readonly" : permissionMode;
  const readOnly = permission === "readonly";
  // least privilege by default: a read-only server asks the forge for read_api only (step-up is
  // off in read-only mode: no tool writes); scopes the operator set are asked for as they are
  const oauthScopes = (scopeList ?? (readOnly ? "read_api" : stepUp ? "read_api api" : "api"))
    .split(/[\s,]+/)
    .filter(Boolean);
  if (stepUp && !remoteOAuth)
    throw new ConfigError(
      "FORGE_MCP_STEP_UP=true needs FORGE_MCP_OAUTH=true (step-up re-authorizes a signed-in client)",
    );
  if (
    stepUp &&
    !(readOnly && scopeList === undefined) &&
    !(oauthScopes.includes("read_api") && oauthScopes.includes("api"))
  )
    throw new ConfigError(
      `FORGE_MCP_STEP_UP=true needs both read_api and api in FORGE_OAUTH_SCOPES (sign-in asks for read_api, writing tools for api), got "${oauthScopes.join(" ")}"`,
    );
  const { allowedProjects, allowedGroups } = settings;
  for (const p of allowedProjects)
    if (!/^\d+$/.test(p) && !/^[\w.-]+(\/[\w.-]+)+$/.test(p))
      throw new ConfigError(
        `FORGE_ALLOWED_PROJECT_IDS (GITLAB_ALLOWED_PROJECT_IDS): "${p}" is neither a numeric project id nor a full path like group/project`,
      );
  // gitlab-mcp's default project: the one entry of the allow-list, else GITLAB_PROJECT_ID (which
  // gitlab-mcp ignores when an allow-list is set)
  if (projectId !== undefined && !/^\d+$/.test(projectId) && !/^[\w.-]+(\/[\w.-]+)+$/.test(projectId))
    throw new ConfigError(
      `FORGE_PROJECT_ID (GITLAB_PROJECT_ID): "${projectId}" is neither a numeric project id nor a full path like group/project`,
    );
  const defaultProject =
    allowedProjects.length > 0 ? (allowedProjects.length === 1 ? allowedProjects[0] : undefined) : projectId;
  if (allowedGroups.length > 0 && !remoteOAuth)
    throw new ConfigError(
      "FORGE_OAUTH_ALLOWED_GROUPS (GITLAB_OAUTH_ALLOWED_GROUPS) needs FORGE_MCP_OAUTH=true (the group gate checks who signs in)",
    );
  if (settings.dynamicProjectScope && !remoteAuthorization)
    throw new ConfigError(
      "ENABLE_DYNAMIC_PROJECT_SCOPE=true needs REMOTE_AUTHORIZATION=true (the project list travels with each request)",
    );
  const warnings = [...compat.warnings];
  if (settings.strictProjectScope && allowedProjects.length === 0 && !settings.dynamicProjectScope)
    warnings.push(
      "ENABLE_STRICT_PROJECT_SCOPE has no effect without GITLAB_ALLOWED_PROJECT_IDS (or ENABLE_DYNAMIC_PROJECT_SCOPE): no project list to keep to",
    );
  if (projectId !== undefined && allowedProjects.length > 0)
    warnings.push(
      "GITLAB_PROJECT_ID has no effect with GITLAB_ALLOWED_PROJECT_IDS (as in gitlab-mcp): the default project is the allow-list's when it names one project",
    );
  return {
    ...settings,
    transport,
    forgeRootUrl,
    readOnly,
    permission,
    toolsets,
    unknownToolsets,
    defaultProject,
    forgeOrigins,
    metricsHost: metricsHost ?? host,
    warnings,
    // a personal access token wins over a job token, as in gitlab-mcp
    forgeToken: personalToken ?? jobToken,
    forgeTokenKind: personalToken === undefined && jobToken !== undefined ? "job" : "bearer",
    mcpServerUrl,
    oauthScopes,
  };
}
