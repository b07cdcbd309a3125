import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { selectTools, toolExposure } from "../src/tools/index.js";

/**
 * A gitlab-mcp operator's environment file starts forge-mcp with the same effect, or is refused
 * with a line naming what differs (docs/forge-mcp.md, "Moving from gitlab-mcp"). One row per kind
 * of deployment gitlab-mcp documents.
 */

/** `KEY=value` lines, `#` comments and blank lines, optional quotes: what `docker --env-file` reads. */
function envFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = /^\s*([A-Z0-9_]+)=(.*)$/.exec(line);
    if (m) env[m[1]!] = m[2]!.trim().replace(/^"(.*)"$/, "$1");
  }
  return env;
}

const names = (c: ReturnType<typeof loadConfig>) => selectTools(c).map((t) => t.name);

describe("a gitlab-mcp environment file", () => {
  it("remote OAuth for a team (callback proxy, groups, modify, toolsets, deny regex) starts with the same effect", () => {
    const c = loadConfig(
      envFile(`
# gitlab-mcp behind https://mcp.example.com
STREAMABLE_HTTP=true
HOST=0.0.0.0
PORT=3002
GITLAB_MCP_OAUTH=true
GITLAB_OAUTH_CALLBACK_PROXY=true
MCP_SERVER_URL=https://mcp.example.com
GITLAB_API_URL=https://gitlab.example.com/api/v4
GITLAB_OAUTH_APP_ID=abc123
GITLAB_OAUTH_SCOPES=api,read_api
GITLAB_OAUTH_ALLOWED_GROUPS=my-org/engineering,my-org/security
GITLAB_PERMISSION_MODE=modify
GITLAB_TOOLSETS=issues,merge_requests,pipelines
GITLAB_TOOLS=get_project
GITLAB_DENIED_TOOLS_REGEX="^merge_merge_request$"
MCP_TRUST_PROXY=true
`),
    );
    expect(c).toMatchObject({
      transport: "http",
      host: "0.0.0.0",
      port: 3002,
      remoteOAuth: true,
      callbackProxy: true,
      forgeApiUrl: "https://gitlab.example.com/api/v4",
      oauthAppId: "abc123",
      oauthScopes: ["api", "read_api"],
      allowedGroups: ["my-org/engineering", "my-org/security"],
      permission: "modify",
      trustProxy: 1,
      warnings: [],
    });
    const tools = names(c);
    expect(tools).toContain("get_project");
    expect(tools).toContain("create_issue");
    expect(tools).not.toContain("delete_issue");
    expect(tools).not.toContain("merge_merge_request");
    expect(tools).not.toContain("list_projects");
  });

  it("remote authorization with several instances starts with the same effect", () => {
    const c = loadConfig(
      envFile(`
STREAMABLE_HTTP=true
REMOTE_AUTHORIZATION=true
ENABLE_DYNAMIC_API_URL=true
GITLAB_API_URL=https://gitlab.com/api/v4
GITLAB_ALLOWED_HOSTS=gitlab.example.com,https://gitlab.company.com:8443/api/v4
GITLAB_READ_ONLY_MODE=true
`),
    );
    expect(c).toMatchObject({
      transport: "http",
      remoteAuthorization: true,
      forgeOrigins: ["https://gitlab.com", "https://gitlab.example.com", "https://gitlab.company.com:8443"],
      permission: "readonly",
      warnings: [],
    });
    expect(selectTools(c).every((t) => !t.write)).toBe(true);
  });

  it("local stdio with a token, allowed projects and the legacy switches starts with the same effect", () => {
    const dir = mkdtempSync(join(tmpdir(), "forge-mcp-env-"));
    writeFileSync(join(dir, "token"), "glpat-from-a-file\n");
    const c = loadConfig({
      ...envFile(`
GITLAB_API_URL=https://gitlab.example.com/api/v4
GITLAB_ALLOWED_PROJECT_IDS=12,34
GITLAB_TOOLSETS=issues
USE_PIPELINE=true
`),
      GITLAB_PERSONAL_ACCESS_TOKEN_FILE: join(dir, "token"),
    });
    expect(c).toMatchObject({
      transport: "stdio",
      forgeToken: "glpat-from-a-file",
      allowedProjects: ["12", "34"],
      toolsets: ["issues", "pipelines"],
      warnings: [],
    });
  });

  it.each([
    [
      "GITLAB_TOOL_POLICY_APPROVE=create_issue",
      /GITLAB_TOOL_POLICY_APPROVE \(gitlab-mcp\) has no equivalent here: per-tool confirmation is not served; FORGE_MCP_CONFIRM_DESTRUCTIVE/,
    ],
    [
      "GITLAB_TOOL_POLICY_HIDDEN=delete_issue",
      /GITLAB_TOOL_POLICY_HIDDEN \(gitlab-mcp\) has no equivalent here: .*GITLAB_DENIED_TOOLS_REGEX/,
    ],
    [
      "STREAMABLE_HTTP_AUTH_TOKEN=s3cret",
      /STREAMABLE_HTTP_AUTH_TOKEN \(gitlab-mcp\) has no equivalent here: .*REMOTE_AUTHORIZATION=true/,
    ],
    [
      "GITLAB_OAUTH_CLIENT_SECRET=s3cret",
      /GITLAB_OAUTH_CLIENT_SECRET \(gitlab-mcp\) has no equivalent here: confidential OAuth applications/,
    ],
    [
      "GITLAB_AUTH_COOKIE_PATH=/home/me/.gitlab-cookies-s3cret",
      /GITLAB_AUTH_COOKIE_PATH \(gitlab-mcp\) has no equivalent here: browser session cookies are not read/,
    ],
    [
      "SSE=true\nSSE_AUTH_TOKEN=s3cret",
      /SSE_AUTH_TOKEN \(gitlab-mcp\) has no equivalent here: a shared bearer token on the SSE endpoint is not served/,
    ],
    [
      "GITLAB_CA_CERT_PATH=/etc/ca.pem",
      /GITLAB_CA_CERT_PATH \(gitlab-mcp\) has no equivalent here: use NODE_EXTRA_CA_CERTS/,
    ],
  ])("%s is refused with a line naming what differs and what to do", (line, message) => {
    const env = envFile(`GITLAB_PERSONAL_ACCESS_TOKEN=t\n${line}`);
    expect(() => loadConfig(env)).toThrow(message);
    try {
      loadConfig(env);
    } catch (err) {
      expect((err as Error).message).not.toContain("s3cret");
      expect((err as Error).message).not.toContain("\n");
    }
  });

  it("variables without effect here start with one warning naming them", () => {
    const c = loadConfig(
      envFile(
        "GITLAB_PERSONAL_ACCESS_TOKEN=t\nMAX_REQUESTS_PER_MINUTE=60\nLOG_FORMAT=json\nGITLAB_PROJECT_ID=5",
      ),
    );
    expect(c.warnings).toEqual([
      "gitlab-mcp variables with no effect in forge-mcp (ignored): LOG_FORMAT, MAX_REQUESTS_PER_MINUTE",
    ]);
    // GITLAB_PROJECT_ID has gitlab-mcp's effect: the default project
    expect(c.defaultProject).toBe("5");
  });
});

/**
 * One row per variable of gitlab-mcp's configuration reference not covered by a whole file above:
 * the variable (on top of a minimal environment) and the effect it has here.
 */
describe("each gitlab-mcp variable", () => {
  const SECRET32 = Buffer.alloc(32, 7).toString("base64");
  const oauth = "GITLAB_MCP_OAUTH=true\nGITLAB_OAUTH_APP_ID=app\nMCP_SERVER_URL=https://mcp.example.com\n";
  it.each<[string, string, Record<string, unknown>]>([
    ["GITLAB_TOKEN", "GITLAB_TOKEN=glpat-1", { forgeToken: "glpat-1", forgeTokenKind: "bearer" }],
    ["GITLAB_JOB_TOKEN", "GITLAB_JOB_TOKEN=job-1", { forgeToken: "job-1", forgeTokenKind: "job" }],
    ["GITLAB_USE_OAUTH", "GITLAB_USE_OAUTH=true\nGITLAB_OAUTH_CLIENT_ID=app", { localOAuth: true }],
    ["GITLAB_OAUTH_CLIENT_ID", "GITLAB_USE_OAUTH=true\nGITLAB_OAUTH_CLIENT_ID=app", { oauthAppId: "app" }],
    [
      "GITLAB_OAUTH_REDIRECT_URI",
      "GITLAB_USE_OAUTH=true\nGITLAB_OAUTH_CLIENT_ID=app\nGITLAB_OAUTH_REDIRECT_URI=http://127.0.0.1:7777/cb",
      { localOAuthRedirectUri: "http://127.0.0.1:7777/cb" },
    ],
    ["GITLAB_ALLOWED_GROUPS", `${oauth}GITLAB_ALLOWED_GROUPS=acme/eng`, { allowedGroups: ["acme/eng"] }],
    [
      "OAUTH_STATELESS_MODE",
      `${oauth}GITLAB_OAUTH_CALLBACK_PROXY=true\nOAUTH_STATELESS_MODE=true\nOAUTH_STATELESS_SECRET=${SECRET32}`,
      { stateless: true },
    ],
    [
      "OAUTH_STATELESS_SECRET",
      `${oauth}GITLAB_OAUTH_CALLBACK_PROXY=true\nOAUTH_STATELESS_MODE=true\nOAUTH_STATELESS_SECRET=${SECRET32}`,
      { statelessSecret: Buffer.alloc(32, 7) },
    ],
    [
      "MCP_ALLOWED_HOSTS",
      "STREAMABLE_HTTP=true\nMCP_ALLOWED_HOSTS=mcp.example.com",
      { allowedHosts: expect.arrayContaining(["mcp.example.com"]) },
    ],
    [
      "MCP_ALLOWED_ORIGINS",
      "STREAMABLE_HTTP=true\nMCP_ALLOWED_ORIGINS=https://a.example",
      { allowedOrigins: expect.arrayContaining(["https://a.example"]) },
    ],
    [
      "OAUTH_REGISTER_RATE_LIMIT_PER_HOUR",
      "OAUTH_REGISTER_RATE_LIMIT_PER_HOUR=5",
      { registerRateLimitPerHour: 5 },
    ],
    ["USE_GITLAB_WIKI", "GITLAB_TOOLSETS=issues\nUSE_GITLAB_WIKI=true", { toolsets: ["issues", "wiki"] }],
    ["USE_MILESTONE", "GITLAB_TOOLSETS=issues\nUSE_MILESTONE=true", { toolsets: ["issues", "milestones"] }],
    ["LOG_LEVEL", "LOG_LEVEL=debug", { logLevel: "debug" }],
    [
      "OAUTH_STATELESS_SECRET_PREVIOUS",
      `${oauth}GITLAB_OAUTH_CALLBACK_PROXY=true\nOAUTH_STATELESS_MODE=true\nOAUTH_STATELESS_SECRET=${SECRET32}\nOAUTH_STATELESS_SECRET_PREVIOUS=${Buffer.alloc(32, 8).toString("base64")}`,
      { statelessSecretPrevious: Buffer.alloc(32, 8) },
    ],
    // Node itself reads it for every TLS connection, forge calls included
    ["NODE_TLS_REJECT_UNAUTHORIZED", "NODE_TLS_REJECT_UNAUTHORIZED=0", {}],
  ])("%s takes effect", (_name, lines, effect) => {
    // a token row is the only token; the other rows sit on a personal access token
    const token = /^GITLAB_(JOB_)?TOKEN=/.test(lines) ? "" : "GITLAB_PERSONAL_ACCESS_TOKEN=t\n";
    const c = loadConfig(envFile(`${token}${lines}`));
    expect(c).toMatchObject({ ...effect, warnings: [] });
  });

  it.each([
    [
      "GITLAB_OAUTH_TOKEN_PATH=/home/me/.gitlab-token",
      /GITLAB_OAUTH_TOKEN_PATH \(gitlab-mcp\) has no equivalent here: stored token files/,
    ],
    [
      "GITLAB_OAUTH_TOKEN_SCRIPT=/usr/local/bin/token",
      /GITLAB_OAUTH_TOKEN_SCRIPT \(gitlab-mcp\) has no equivalent here: token scripts are not run/,
    ],
  ])("%s is refused with a line naming what to use", (line, message) => {
    expect(() => loadConfig(envFile(`GITLAB_PERSONAL_ACCESS_TOKEN=t\n${line}`))).toThrow(message);
  });

  it.each([
    "GITLAB_ALLOW_UNAUTHENTICATED_TOOL_DISCOVERY=true",
    "SESSION_TIMEOUT_SECONDS=600",
    "MAX_SESSIONS=10",
    "GITLAB_DISABLE_VERSION_CHECK=true",
    "MCP_SERVER_NAME=gitlab",
    "GITLAB_POOL_MAX_SIZE=50",
    "OAUTH_STATELESS_CLIENT_TTL_SECONDS=60",
    "OAUTH_STATELESS_PENDING_TTL_SECONDS=60",
    "OAUTH_STATELESS_STORED_TTL_SECONDS=60",
    "OAUTH_STATELESS_SESSION_TTL_SECONDS=60",
    "GITLAB_OAUTH_TOKEN_SCRIPT_TIMEOUT_SECONDS=5",
    "SSE_DANGEROUSLY_ALLOW_UNAUTHENTICATED_REMOTE=true",
    "MCP_DANGEROUSLY_ALLOW_INSECURE_ISSUER_URL=true",
    "GITLAB_IS_OLD=true",
    "HTTP_PROXY=http://proxy.example:3128",
    "HTTPS_PROXY=http://proxy.example:3128",
    "NO_PROXY=gitlab.example.com",
    "SSE_AUTH_TOKEN=s3cret",
  ])("%s starts with a warning naming it (no effect here)", (line) => {
    const name = line.split("=")[0]!;
    const c = loadConfig(envFile(`GITLAB_PERSONAL_ACCESS_TOKEN=t\n${line}`));
    expect(c.warnings).toEqual([`gitlab-mcp variables with no effect in forge-mcp (ignored): ${name}`]);
    expect(c.warnings.join("")).not.toContain("s3cret");
  });
});

/**
 * gitlab-mcp 2.1.64's project scope and masking variables: one row each, the variable (on top of a
 * personal access token, or of REMOTE_AUTHORIZATION where it needs one) and what it turns on. What
 * each does to tool calls: test/forge/project-scope.test.ts and test/tools/masking.test.ts.
 */
describe("gitlab-mcp 2.1.64's scope and masking variables", () => {
  const dir = mkdtempSync(join(tmpdir(), "forge-mcp-mask-env-"));
  writeFileSync(
    join(dir, "rules.json"),
    JSON.stringify({ rules: [{ id: "k", type: "keyword", match: "hunter2", replacement: "[k]" }] }),
  );
  writeFileSync(
    join(dir, "policy.json"),
    JSON.stringify({
      version: 1,
      policyGroups: { team: {} },
      bindings: [{ gitlabInstance: "https://gitlab.com", policyGroup: "team", projectIds: [7] }],
    }),
  );
  writeFileSync(
    join(dir, ".gitlab-mcp-mask.json"),
    JSON.stringify({ rules: [{ id: "w", type: "keyword", match: "swordfish", replacement: "[w]" }] }),
  );
  // a workspace without .gitlab-mcp-mask.json: the built-in rules alone
  const empty = mkdtempSync(join(tmpdir(), "forge-mcp-mask-empty-"));
  const remote = "STREAMABLE_HTTP=true\nREMOTE_AUTHORIZATION=true\n";
  /** What the configuration masks "hunter2 swordfish 10.0.0.1" to, for project 7 of gitlab.com. */
  const masked = (c: ReturnType<typeof loadConfig>) => {
    const m = toolExposure(c).mask?.select({
      apiUrl: "https://gitlab.com/api/v4",
      projects: [7],
      projectTool: true,
    });
    return m === undefined ? undefined : "refused" in m ? m.refused : m.text("hunter2 swordfish 10.0.0.1");
  };
  it.each<[string, string, (c: ReturnType<typeof loadConfig>) => void]>([
    [
      "ENABLE_STRICT_PROJECT_SCOPE",
      "GITLAB_ALLOWED_PROJECT_IDS=12\nENABLE_STRICT_PROJECT_SCOPE=true",
      (c) => expect(c).toMatchObject({ strictProjectScope: true, allowedProjects: ["12"] }),
    ],
    [
      "ENABLE_DYNAMIC_PROJECT_SCOPE",
      `${remote}ENABLE_DYNAMIC_PROJECT_SCOPE=true`,
      (c) => expect(c).toMatchObject({ dynamicProjectScope: true, remoteAuthorization: true }),
    ],
    [
      "GITLAB_MASKING_ENABLED",
      `GITLAB_MASKING_ENABLED=true\nGITLAB_MASKING_WORKSPACE_DIR=${empty}`,
      (c) => expect(masked(c)).toBe("hunter2 swordfish [IP address]"),
    ],
    [
      "GITLAB_MASKING_CONFIG",
      `GITLAB_MASKING_ENABLED=true\nGITLAB_MASKING_CONFIG=${join(dir, "rules.json")}`,
      (c) => expect(masked(c)).toBe("[k] swordfish [IP address]"),
    ],
    [
      "GITLAB_MASKING_POLICY_FILE",
      `GITLAB_MASKING_ENABLED=true\nGITLAB_MASKING_WORKSPACE_DIR=${empty}\nGITLAB_MASKING_POLICY_FILE=${join(dir, "policy.json")}`,
      (c) => expect(masked(c)).toBe("hunter2 swordfish [IP address]"),
    ],
    [
      "GITLAB_MASKING_WORKSPACE_DIR",
      `GITLAB_MASKING_ENABLED=true\nGITLAB_MASKING_WORKSPACE_DIR=${dir}`,
      (c) => expect(masked(c)).toBe("hunter2 [w] [IP address]"),
    ],
  ])("%s takes effect", (_name, lines, effect) => {
    const token = lines.includes("REMOTE_AUTHORIZATION") ? "" : "GITLAB_PERSONAL_ACCESS_TOKEN=t\n";
    const c = loadConfig(envFile(`${token}${lines}`));
    expect(c.warnings).toEqual([]);
    effect(c);
  });

  it.each([
    [
      "ENABLE_DYNAMIC_PROJECT_SCOPE=true",
      /ENABLE_DYNAMIC_PROJECT_SCOPE=true needs REMOTE_AUTHORIZATION=true/,
    ],
  ])("%s alone is refused with a line naming what it needs", (line, message) => {
    expect(() => loadConfig(envFile(`GITLAB_PERSONAL_ACCESS_TOKEN=t\n${line}`))).toThrow(message);
  });

  it("ENABLE_STRICT_PROJECT_SCOPE without a project list starts with a warning (nothing to keep to)", () => {
    const c = loadConfig(envFile("GITLAB_PERSONAL_ACCESS_TOKEN=t\nENABLE_STRICT_PROJECT_SCOPE=true"));
    expect(c.warnings).toEqual([expect.stringMatching(/ENABLE_STRICT_PROJECT_SCOPE has no effect without/)]);
  });
});

describe("NAME_FILE secrets", () => {
  const dir = mkdtempSync(join(tmpdir(), "forge-mcp-secrets-"));
  it.each([
    ["FORGE_TOKEN_FILE", "forgeToken", "pat-1"],
    ["METRICS_BEARER_TOKEN_FILE", "metricsToken", "a-long-metrics-token-1234"],
    ["REDIS_URL_FILE", "redisUrl", "rediss://:pw@redis.example:6380"],
  ])("%s reads the value from the file, trimmed", (key, field, value) => {
    const path = join(dir, key);
    writeFileSync(path, `${value}\n`);
    expect(loadConfig({ [key]: path })[field as "forgeToken"]).toBe(value);
  });

  it("refuses an unreadable file (naming the path, not a value) and a variable set both ways", () => {
    expect(() => loadConfig({ FORGE_TOKEN_FILE: join(dir, "missing") })).toThrow(
      /FORGE_TOKEN_FILE: cannot read .*missing \(ENOENT\)/,
    );
    writeFileSync(join(dir, "t"), "x");
    expect(() => loadConfig({ FORGE_TOKEN: "y", FORGE_TOKEN_FILE: join(dir, "t") })).toThrow(
      /FORGE_TOKEN and FORGE_TOKEN_FILE are both set/,
    );
  });
});
