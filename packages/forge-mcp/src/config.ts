import { readFileSync } from "node:fs";
import { z } from "zod";

/**
 * Environment → typed configuration. Every variable may also be spelled with a `GITLAB_` prefix in
 * place of `FORGE_` (and a few gitlab-mcp names are accepted verbatim), so an existing GitLab MCP
 * deployment moves over without touching its environment. Invalid configuration throws a
 * ConfigError whose message is one line naming the variable, the rule and the fix.
 */

export class ConfigError extends Error {
  override name = "ConfigError";
}

export type Transport = "http" | "stdio";

export const PERMISSION_MODES = ["readonly", "modify", "full"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export interface Config {
  transport: Transport;
  host: string;
  port: number;
  trustProxy: boolean | number | string;
  /** REST base, e.g. https://gitlab.com/api/v4 */
  forgeApiUrl: string;
  /** Instance root where /oauth/* lives (forgeApiUrl without /api/v4). */
  forgeRootUrl: string;
  forgeTimeoutMs: number;
  tokenInfoQueryFallback: boolean;
  /** permission === "readonly" (kept for the scope policy and older callers). */
  readOnly: boolean;
  /** FORGE_PERMISSION_MODE / GITLAB_PERMISSION_MODE: readonly, modify (no destructive tools), full. */
  permission: PermissionMode;
  toolsets: string[] | undefined;
  /** GITLAB_TOOLS / FORGE_TOOLS: single tools served on top of the toolsets (gitlab-mcp's meaning). */
  extraTools: string[];
  /** GITLAB_DENIED_TOOLS_REGEX / FORGE_DENIED_TOOLS_REGEX: tools whose name matches are never served. */
  deniedTools: RegExp | undefined;
  /** GITLAB_ALLOWED_PROJECT_IDS / FORGE_ALLOWED_PROJECT_IDS: ids or full paths; empty = every project. */
  allowedProjects: string[];
  /**
   * The project_id a tool call may omit (gitlab-mcp's default project): the one entry of
   * GITLAB_ALLOWED_PROJECT_IDS, or GITLAB_PROJECT_ID without an allow-list.
   */
  defaultProject: string | undefined;
  /** GITLAB_OAUTH_ALLOWED_GROUPS / FORGE_OAUTH_ALLOWED_GROUPS: group full paths; empty = anyone. */
  allowedGroups: string[];
  /** REMOTE_AUTHORIZATION: each /mcp request carries its user's own forge token (src/oauth/remote-auth.ts). */
  remoteAuthorization: boolean;
  /**
   * ENABLE_DYNAMIC_API_URL with GITLAB_ALLOWED_HOSTS (FORGE_ALLOWED_API_URLS): the forge origins a
   * request may select with X-GitLab-API-URL (FORGE_API_URL's always); undefined when not enabled.
   */
  forgeOrigins: string[] | undefined;
  /** METRICS_PORT: /metrics on a listener of its own (on METRICS_HOST, default HOST). */
  metricsPort: number | undefined;
  metricsHost: string;
  /** METRICS_BEARER_TOKEN: /metrics needs it; without METRICS_PORT it is served on the main port. */
  metricsToken: string | undefined;
  /** FORGE_TOOLSETS names we do not serve (warned about at start-up). */
  unknownToolsets: string[];
  /** Start-up warnings (gitlab-mcp variables that have no effect here), logged by main. */
  warnings: string[];
  /** Personal access token for stdio mode. */
  forgeToken: string | undefined;
  /** How forgeToken travels: `job` for GITLAB_JOB_TOKEN (sent as JOB-TOKEN), else a bearer. */
  forgeTokenKind: "bearer" | "job";
  remoteOAuth: boolean;
  callbackProxy: boolean;
  consentPage: boolean;
  mcpServerUrl: string;
  oauthAppId: string | undefined;
  oauthScopes: string[];
  /** FORGE_MCP_STEP_UP: sign in with `read_api`, ask for `api` at the first writing tool. */
  stepUp: boolean;
  /** FORGE_MCP_CONFIRM_DESTRUCTIVE: ask the person before a destructive tool (tools/confirm.ts). */
  confirmDestructive: "elicit" | "refuse" | "off";
  registerRateLimitPerHour: number;
  /** Per client IP: forge token-info calls for tokens in neither cache, per minute. */
  verifyRateLimitPerMinute: number;
  /** Per client IP: client metadata document fetches (cache misses), per minute. */
  clientMetadataFetchesPerMinute: number;
  /** TEST ONLY: client metadata documents may be fetched from loopback addresses. */
  cimdAllowLoopbackForTests: boolean;
  /** Per client IP: forge calls relayed by /token (refresh, passthrough code) and /revoke, per minute. */
  relayRateLimitPerMinute: number;
  /** MCP_ALLOWED_HOSTS / MCP_ALLOWED_ORIGINS: DNS-rebinding allow-lists beyond the defaults. */
  allowedHosts: string[];
  /** REDIS_CONNECT_TIMEOUT_MS: how long start-up waits for Redis before it stops with an error. */
  redisConnectTimeoutMs: number;
  /** REDIS_TIMEOUT_MS: the longest one store call may take once running; then 503 (or the fail-open). */
  redisTimeoutMs: number;
  allowedOrigins: string[];
  redirectUriAllowlist: string[];
  stateless: boolean;
  statelessSecret: Buffer | undefined;
  statelessSecretPrevious: Buffer | undefined;
  redisUrl: string | undefined;
  localOAuth: boolean;
  localOAuthRedirectUri: string;
  replicaName: string | undefined;
  logLevel: string;
}

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

type Env = Record<string, string | undefined>;

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

/** Reads FORGE_X, falling back to GITLAB_X and then to any extra legacy names. */
function pick(env: Env, name: string, ...aliases: string[]): string | undefined {
  const names = [name];
  if (name.startsWith("FORGE_")) names.push(`GITLAB_${name.slice("FORGE_".length)}`);
  names.push(...aliases);
  for (const n of names) {
    const v = env[n];
    if (v !== undefined && v.trim() !== "") return v.trim();
  }
  return undefined;
}

const bool = (name: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      const s = v.toLowerCase();
      if (["true", "1", "yes", "on"].includes(s)) return true;
      if (["false", "0", "no", "off"].includes(s)) return false;
      ctx.addIssue({ code: "custom", message: `${name} must be true or false, got "${v}"` });
      return z.NEVER;
    });

const int = (name: string, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({
          code: "custom",
          message: `${name} must be an integer from ${min} to ${max}, got "${v}"`,
        });
        return z.NEVER;
      }
      return n;
    });

const url = (name: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      if (!URL.canParse(v) || !/^https?:$/.test(new URL(v).protocol)) {
        ctx.addIssue({ code: "custom", message: `${name} must be an http(s) URL, got "${v}"` });
        return z.NEVER;
      }
      return v.replace(/\/+$/, "");
    });

const secret = (name: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      const buf = Buffer.from(v, "base64");
      if (buf.length !== 32 || !/^[A-Za-z0-9+/_-]+=*$/.test(v)) {
        ctx.addIssue({
          code: "custom",
          message: `${name} must be 32 random bytes, base64-encoded (it decodes to ${buf.length} bytes); generate one with: openssl rand -base64 32`,
        });
        return z.NEVER;
      }
      return buf;
    });

const EnvSchema = z.object({
  FORGE_MCP_OAUTH: bool("FORGE_MCP_OAUTH"),
  FORGE_OAUTH_CALLBACK_PROXY: bool("FORGE_OAUTH_CALLBACK_PROXY"),
  FORGE_OAUTH_CONSENT: bool("FORGE_OAUTH_CONSENT"),
  MCP_SERVER_URL: url("MCP_SERVER_URL"),
  FORGE_OAUTH_APP_ID: z.string().optional(),
  FORGE_OAUTH_SCOPES: z.string().optional(),
  FORGE_MCP_STEP_UP: bool("FORGE_MCP_STEP_UP"),
  FORGE_MCP_CONFIRM_DESTRUCTIVE: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || ["elicit", "refuse", "off"].includes(v),
      'FORGE_MCP_CONFIRM_DESTRUCTIVE must be "elicit", "refuse" or "off"',
    ),
  OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: int("OAUTH_REGISTER_RATE_LIMIT_PER_HOUR", 1, 1_000_000),
  MCP_TOKEN_VERIFY_RATE_LIMIT_PER_MINUTE: int("MCP_TOKEN_VERIFY_RATE_LIMIT_PER_MINUTE", 1, 1_000_000),
  OAUTH_CLIENT_METADATA_FETCH_RATE_LIMIT_PER_MINUTE: int(
    "OAUTH_CLIENT_METADATA_FETCH_RATE_LIMIT_PER_MINUTE",
    1,
    1_000_000,
  ),
  FORGE_MCP_CIMD_ALLOW_LOOPBACK_FOR_TESTS: bool("FORGE_MCP_CIMD_ALLOW_LOOPBACK_FOR_TESTS"),
  OAUTH_TOKEN_RELAY_RATE_LIMIT_PER_MINUTE: int("OAUTH_TOKEN_RELAY_RATE_LIMIT_PER_MINUTE", 1, 1_000_000),
  MCP_ALLOWED_HOSTS: z.string().optional(),
  REDIS_CONNECT_TIMEOUT_MS: int("REDIS_CONNECT_TIMEOUT_MS", 100, 600_000),
  REDIS_TIMEOUT_MS: int("REDIS_TIMEOUT_MS", 50, 60_000),
  MCP_ALLOWED_ORIGINS: z.string().optional(),
  OAUTH_REDIRECT_URI_ALLOWLIST: z.string().optional(),
  OAUTH_STATELESS_MODE: bool("OAUTH_STATELESS_MODE"),
  OAUTH_STATELESS_SECRET: secret("OAUTH_STATELESS_SECRET"),
  OAUTH_STATELESS_SECRET_PREVIOUS: secret("OAUTH_STATELESS_SECRET_PREVIOUS"),
  REDIS_URL: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || /^rediss?:\/\//.test(v),
      "REDIS_URL must start with redis:// or rediss://",
    ),
  FORGE_USE_OAUTH: bool("FORGE_USE_OAUTH"),
  FORGE_OAUTH_REDIRECT_URI: url("FORGE_OAUTH_REDIRECT_URI"),
  FORGE_API_URL: url("FORGE_API_URL"),
  FORGE_TIMEOUT_MS: int("FORGE_TIMEOUT_MS", 100, 600_000),
  FORGE_TOKEN_INFO_QUERY_FALLBACK: bool("FORGE_TOKEN_INFO_QUERY_FALLBACK"),
  FORGE_TOKEN: z.string().optional(),
  FORGE_JOB_TOKEN: z.string().optional(),
  FORGE_PROJECT_ID: z.string().optional(),
  FORGE_READ_ONLY: bool("FORGE_READ_ONLY"),
  FORGE_PERMISSION_MODE: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || (PERMISSION_MODES as readonly string[]).includes(v),
      'FORGE_PERMISSION_MODE (GITLAB_PERMISSION_MODE) must be "readonly", "modify" or "full"',
    ),
  FORGE_TOOLSETS: z.string().optional(),
  FORGE_TOOLS: z.string().optional(),
  FORGE_DENIED_TOOLS_REGEX: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      try {
        return new RegExp(v);
      } catch (err) {
        ctx.addIssue({
          code: "custom",
          message: `FORGE_DENIED_TOOLS_REGEX (GITLAB_DENIED_TOOLS_REGEX) is not a valid regular expression (${(err as Error).message}): fix the pattern, e.g. "^delete_|^merge_"`,
        });
        return z.NEVER;
      }
    }),
  FORGE_ALLOWED_PROJECT_IDS: z.string().optional(),
  FORGE_OAUTH_ALLOWED_GROUPS: z.string().optional(),
  REMOTE_AUTHORIZATION: bool("REMOTE_AUTHORIZATION"),
  ENABLE_DYNAMIC_API_URL: bool("ENABLE_DYNAMIC_API_URL"),
  FORGE_ALLOWED_API_URLS: z.string().optional(),
  METRICS_PORT: int("METRICS_PORT", 0, 65535),
  METRICS_HOST: z.string().optional(),
  METRICS_BEARER_TOKEN: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || v.length >= 16,
      "METRICS_BEARER_TOKEN must be at least 16 characters; generate one with: openssl rand -hex 24",
    ),
  HOST: z.string().optional(),
  PORT: int("PORT", 0, 65535),
  MCP_TRUST_PROXY: z.string().optional(),
  MCP_TRANSPORT: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || v === "http" || v === "stdio",
      'MCP_TRANSPORT must be "http" or "stdio"',
    ),
  MCP_REPLICA_NAME: z.string().optional(),
  LOG_LEVEL: z.string().optional(),
});

const list = (v: string | undefined): string[] =>
  (v ?? "")
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

function parseTrustProxy(v: string | undefined): boolean | number | string {
  if (v === undefined || v === "false") return false;
  // Express's `true` takes the LEFTMOST X-Forwarded-For entry, which the client writes itself;
  // `true` here means one proxy hop: the address that proxy saw, the rightmost entry.
  if (v === "true") return 1;
  if (/^\d+$/.test(v)) return Number(v);
  return v; // express understands "loopback", CIDR lists, ...
}

/** A GITLAB_ALLOWED_HOSTS entry (`gitlab.example.com`, `host:8443`, or a URL) → the origin it allows. */
export function originOf(entry: string): string | undefined {
  const withScheme = /^https?:\/\//i.test(entry) ? entry : `https://${entry}`;
  return URL.canParse(withScheme) ? new URL(withScheme).origin : undefined;
}

const isLoopback = (u: URL) => ["127.0.0.1", "localhost", "[::1]"].includes(u.hostname);

/** The variables that may be read from a file (`NAME_FILE`): the secrets and what names them. */
export const FILE_VARIABLES = [
  "FORGE_TOKEN",
  "GITLAB_TOKEN",
  "GITLAB_PERSONAL_ACCESS_TOKEN",
  "FORGE_JOB_TOKEN",
  "GITLAB_JOB_TOKEN",
  "OAUTH_STATELESS_SECRET",
  "OAUTH_STATELESS_SECRET_PREVIOUS",
  "REDIS_URL",
  "METRICS_BEARER_TOKEN",
  "FORGE_OAUTH_APP_ID",
  "GITLAB_OAUTH_APP_ID",
];

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
  const raw = {
    FORGE_MCP_OAUTH: pick(env, "FORGE_MCP_OAUTH"),
    FORGE_OAUTH_CALLBACK_PROXY: pick(env, "FORGE_OAUTH_CALLBACK_PROXY"),
    FORGE_OAUTH_CONSENT: pick(env, "FORGE_OAUTH_CONSENT"),
    MCP_SERVER_URL: pick(env, "MCP_SERVER_URL"),
    FORGE_OAUTH_APP_ID: pick(env, "FORGE_OAUTH_APP_ID", "GITLAB_OAUTH_CLIENT_ID"),
    FORGE_OAUTH_SCOPES: pick(env, "FORGE_OAUTH_SCOPES"),
    FORGE_MCP_STEP_UP: pick(env, "FORGE_MCP_STEP_UP"),
    FORGE_MCP_CONFIRM_DESTRUCTIVE: pick(env, "FORGE_MCP_CONFIRM_DESTRUCTIVE")?.toLowerCase(),
    OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: pick(env, "OAUTH_REGISTER_RATE_LIMIT_PER_HOUR"),
    MCP_TOKEN_VERIFY_RATE_LIMIT_PER_MINUTE: pick(env, "MCP_TOKEN_VERIFY_RATE_LIMIT_PER_MINUTE"),
    OAUTH_CLIENT_METADATA_FETCH_RATE_LIMIT_PER_MINUTE: pick(
      env,
      "OAUTH_CLIENT_METADATA_FETCH_RATE_LIMIT_PER_MINUTE",
    ),
    FORGE_MCP_CIMD_ALLOW_LOOPBACK_FOR_TESTS: pick(env, "FORGE_MCP_CIMD_ALLOW_LOOPBACK_FOR_TESTS"),
    OAUTH_TOKEN_RELAY_RATE_LIMIT_PER_MINUTE: pick(env, "OAUTH_TOKEN_RELAY_RATE_LIMIT_PER_MINUTE"),
    MCP_ALLOWED_HOSTS: pick(env, "MCP_ALLOWED_HOSTS"),
    REDIS_CONNECT_TIMEOUT_MS: pick(env, "REDIS_CONNECT_TIMEOUT_MS"),
    REDIS_TIMEOUT_MS: pick(env, "REDIS_TIMEOUT_MS"),
    MCP_ALLOWED_ORIGINS: pick(env, "MCP_ALLOWED_ORIGINS"),
    OAUTH_REDIRECT_URI_ALLOWLIST: pick(env, "OAUTH_REDIRECT_URI_ALLOWLIST"),
    OAUTH_STATELESS_MODE: pick(env, "OAUTH_STATELESS_MODE"),
    OAUTH_STATELESS_SECRET: pick(env, "OAUTH_STATELESS_SECRET"),
    OAUTH_STATELESS_SECRET_PREVIOUS: pick(env, "OAUTH_STATELESS_SECRET_PREVIOUS"),
    REDIS_URL: pick(env, "REDIS_URL"),
    FORGE_USE_OAUTH: pick(env, "FORGE_USE_OAUTH"),
    FORGE_OAUTH_REDIRECT_URI: pick(env, "FORGE_OAUTH_REDIRECT_URI"),
    FORGE_API_URL: pick(env, "FORGE_API_URL"),
    FORGE_TIMEOUT_MS: pick(env, "FORGE_TIMEOUT_MS"),
    FORGE_TOKEN_INFO_QUERY_FALLBACK: pick(env, "FORGE_TOKEN_INFO_QUERY_FALLBACK"),
    FORGE_TOKEN: pick(env, "FORGE_TOKEN", "GITLAB_PERSONAL_ACCESS_TOKEN"),
    FORGE_JOB_TOKEN: pick(env, "FORGE_JOB_TOKEN"),
    FORGE_PROJECT_ID: pick(env, "FORGE_PROJECT_ID"),
    FORGE_READ_ONLY: pick(env, "FORGE_READ_ONLY", "GITLAB_READ_ONLY_MODE"),
    FORGE_TOOLSETS: pick(env, "FORGE_TOOLSETS"),
    FORGE_PERMISSION_MODE: pick(env, "FORGE_PERMISSION_MODE")?.toLowerCase(),
    FORGE_TOOLS: pick(env, "FORGE_TOOLS"),
    FORGE_DENIED_TOOLS_REGEX: pick(env, "FORGE_DENIED_TOOLS_REGEX"),
    FORGE_ALLOWED_PROJECT_IDS: pick(env, "FORGE_ALLOWED_PROJECT_IDS"),
    FORGE_OAUTH_ALLOWED_GROUPS: pick(env, "FORGE_OAUTH_ALLOWED_GROUPS", "GITLAB_ALLOWED_GROUPS"),
    REMOTE_AUTHORIZATION: pick(env, "REMOTE_AUTHORIZATION", "FORGE_REMOTE_AUTHORIZATION"),
    ENABLE_DYNAMIC_API_URL: pick(env, "ENABLE_DYNAMIC_API_URL", "FORGE_DYNAMIC_API_URL"),
    FORGE_ALLOWED_API_URLS: pick(env, "FORGE_ALLOWED_API_URLS", "GITLAB_ALLOWED_HOSTS"),
    METRICS_PORT: pick(env, "METRICS_PORT"),
    METRICS_HOST: pick(env, "METRICS_HOST"),
    METRICS_BEARER_TOKEN: pick(env, "METRICS_BEARER_TOKEN"),
    HOST: pick(env, "HOST"),
    PORT: pick(env, "PORT"),
    MCP_TRUST_PROXY: pick(env, "MCP_TRUST_PROXY"),
    MCP_TRANSPORT: pick(env, "MCP_TRANSPORT"),
    MCP_REPLICA_NAME: pick(env, "MCP_REPLICA_NAME"),
    LOG_LEVEL: pick(env, "LOG_LEVEL"),
  };
  const parsed = EnvSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ConfigError(first?.message ?? "invalid configuration");
  }
  const e = parsed.data;
  const remoteOAuth = e.FORGE_MCP_OAUTH ?? false;
  const remoteAuthorization = e.REMOTE_AUTHORIZATION ?? false;
  const compat = gitlabMcpCompat(env);
  const transport: Transport =
    (e.MCP_TRANSPORT as Transport | undefined) ??
    (remoteOAuth || remoteAuthorization || compat.http ? "http" : "stdio");
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
  if (e.ENABLE_DYNAMIC_API_URL && !remoteAuthorization)
    throw new ConfigError(
      "ENABLE_DYNAMIC_API_URL=true needs REMOTE_AUTHORIZATION=true (a request's forge is chosen with the request's own token)",
    );
  let forgeOrigins: string[] | undefined;
  if (e.ENABLE_DYNAMIC_API_URL) {
    forgeOrigins = [];
    for (const entry of list(e.FORGE_ALLOWED_API_URLS)) {
      const o = originOf(entry);
      if (!o)
        throw new ConfigError(
          `GITLAB_ALLOWED_HOSTS (FORGE_ALLOWED_API_URLS): "${entry}" is neither a host nor an http(s) URL`,
        );
      forgeOrigins.push(o);
    }
  }
  const host = e.HOST ?? "127.0.0.1";
  const port = e.PORT ?? 3000;
  const forgeApiUrl = e.FORGE_API_URL ?? "https://gitlab.com/api/v4";
  const forgeRootUrl = forgeApiUrl.replace(/\/api\/v4$/, "");
  if (forgeOrigins) forgeOrigins.unshift(new URL(forgeApiUrl).origin);
  const mcpServerUrl = e.MCP_SERVER_URL ?? `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const stateless = e.OAUTH_STATELESS_MODE ?? false;

  if (remoteOAuth) {
    if (!e.FORGE_OAUTH_APP_ID) {
      throw new ConfigError(
        "FORGE_MCP_OAUTH=true needs FORGE_OAUTH_APP_ID (the Application ID of the forge OAuth application)",
      );
    }
    if (!e.MCP_SERVER_URL) {
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
  if (stateless && !e.OAUTH_STATELESS_SECRET) {
    throw new ConfigError(
      "OAUTH_STATELESS_MODE=true needs OAUTH_STATELESS_SECRET (32 random bytes, base64; generate with: openssl rand -base64 32)",
    );
  }
  const stepUp = e.FORGE_MCP_STEP_UP ?? false;
  const oauthScopes = (e.FORGE_OAUTH_SCOPES ?? (stepUp ? "read_api api" : "api"))
    .split(/[\s,]+/)
    .filter(Boolean);
  if (stepUp && !remoteOAuth)
    throw new ConfigError(
      "FORGE_MCP_STEP_UP=true needs FORGE_MCP_OAUTH=true (step-up re-authorizes a signed-in client)",
    );
  if (stepUp && !(oauthScopes.includes("read_api") && oauthScopes.includes("api")))
    throw new ConfigError(
      `FORGE_MCP_STEP_UP=true needs both read_api and api in FORGE_OAUTH_SCOPES (sign-in asks for read_api, writing tools for api), got "${oauthScopes.join(" ")}"`,
    );
  const named = parseToolsets(e.FORGE_TOOLSETS);
  const { unknown: unknownToolsets } = named;
  // the USE_* flags add to an explicit list; without one every default toolset is served anyway
  const toolsets = named.toolsets && [...new Set([...named.toolsets, ...compat.toolsets])];
  // GITLAB_READ_ONLY_MODE=true wins over a permission mode, as in gitlab-mcp
  const permission: PermissionMode = e.FORGE_READ_ONLY
    ? "readonly"
    : ((e.FORGE_PERMISSION_MODE as PermissionMode | undefined) ?? "full");
  const allowedProjects = list(e.FORGE_ALLOWED_PROJECT_IDS);
  for (const p of allowedProjects)
    if (!/^\d+$/.test(p) && !/^[\w.-]+(\/[\w.-]+)+$/.test(p))
      throw new ConfigError(
        `FORGE_ALLOWED_PROJECT_IDS (GITLAB_ALLOWED_PROJECT_IDS): "${p}" is neither a numeric project id nor a full path like group/project`,
      );
  // gitlab-mcp's default project: the one entry of the allow-list, else GITLAB_PROJECT_ID (which
  // gitlab-mcp ignores when an allow-list is set)
  const projectId = e.FORGE_PROJECT_ID;
  if (projectId !== undefined && !/^\d+$/.test(projectId) && !/^[\w.-]+(\/[\w.-]+)+$/.test(projectId))
    throw new ConfigError(
      `FORGE_PROJECT_ID (GITLAB_PROJECT_ID): "${projectId}" is neither a numeric project id nor a full path like group/project`,
    );
  const defaultProject =
    allowedProjects.length > 0 ? (allowedProjects.length === 1 ? allowedProjects[0] : undefined) : projectId;
  const allowedGroups = list(e.FORGE_OAUTH_ALLOWED_GROUPS).map((g) => g.replace(/^\/+|\/+$/g, ""));
  if (allowedGroups.length > 0 && !remoteOAuth)
    throw new ConfigError(
      "FORGE_OAUTH_ALLOWED_GROUPS (GITLAB_OAUTH_ALLOWED_GROUPS) needs FORGE_MCP_OAUTH=true (the group gate checks who signs in)",
    );
  const warnings = [...compat.warnings];
  if (projectId !== undefined && allowedProjects.length > 0)
    warnings.push(
      "GITLAB_PROJECT_ID has no effect with GITLAB_ALLOWED_PROJECT_IDS (as in gitlab-mcp): the default project is the allow-list's when it names one project",
    );
  const allowlist = (e.OAUTH_REDIRECT_URI_ALLOWLIST ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    transport,
    host,
    port,
    trustProxy: parseTrustProxy(e.MCP_TRUST_PROXY),
    forgeApiUrl,
    forgeRootUrl,
    forgeTimeoutMs: e.FORGE_TIMEOUT_MS ?? 15_000,
    tokenInfoQueryFallback: e.FORGE_TOKEN_INFO_QUERY_FALLBACK ?? false,
    readOnly: permission === "readonly",
    permission,
    toolsets,
    extraTools: list(e.FORGE_TOOLS),
    deniedTools: e.FORGE_DENIED_TOOLS_REGEX,
    allowedProjects,
    defaultProject,
    allowedGroups,
    remoteAuthorization,
    forgeOrigins,
    metricsPort: e.METRICS_PORT,
    metricsHost: e.METRICS_HOST ?? host,
    metricsToken: e.METRICS_BEARER_TOKEN,
    unknownToolsets,
    warnings,
    // a personal access token wins over a job token, as in gitlab-mcp
    forgeToken: e.FORGE_TOKEN ?? e.FORGE_JOB_TOKEN,
    forgeTokenKind: e.FORGE_TOKEN === undefined && e.FORGE_JOB_TOKEN !== undefined ? "job" : "bearer",
    remoteOAuth,
    callbackProxy: e.FORGE_OAUTH_CALLBACK_PROXY ?? false,
    consentPage: e.FORGE_OAUTH_CONSENT ?? true,
    mcpServerUrl,
    oauthAppId: e.FORGE_OAUTH_APP_ID,
    oauthScopes,
    stepUp,
    confirmDestructive:
      (e.FORGE_MCP_CONFIRM_DESTRUCTIVE as Config["confirmDestructive"] | undefined) ?? "elicit",
    registerRateLimitPerHour: e.OAUTH_REGISTER_RATE_LIMIT_PER_HOUR ?? 20,
    verifyRateLimitPerMinute: e.MCP_TOKEN_VERIFY_RATE_LIMIT_PER_MINUTE ?? 60,
    clientMetadataFetchesPerMinute: e.OAUTH_CLIENT_METADATA_FETCH_RATE_LIMIT_PER_MINUTE ?? 10,
    cimdAllowLoopbackForTests: e.FORGE_MCP_CIMD_ALLOW_LOOPBACK_FOR_TESTS ?? false,
    relayRateLimitPerMinute: e.OAUTH_TOKEN_RELAY_RATE_LIMIT_PER_MINUTE ?? 30,
    allowedHosts: list(e.MCP_ALLOWED_HOSTS),
    redisConnectTimeoutMs: e.REDIS_CONNECT_TIMEOUT_MS ?? 10_000,
    redisTimeoutMs: e.REDIS_TIMEOUT_MS ?? 2000,
    allowedOrigins: list(e.MCP_ALLOWED_ORIGINS),
    redirectUriAllowlist: allowlist,
    stateless,
    statelessSecret: e.OAUTH_STATELESS_SECRET,
    statelessSecretPrevious: e.OAUTH_STATELESS_SECRET_PREVIOUS,
    redisUrl: e.REDIS_URL,
    localOAuth: e.FORGE_USE_OAUTH ?? false,
    localOAuthRedirectUri: e.FORGE_OAUTH_REDIRECT_URI ?? "http://127.0.0.1:7171/callback",
    replicaName: e.MCP_REPLICA_NAME,
    logLevel: e.LOG_LEVEL ?? "info",
  };
}
