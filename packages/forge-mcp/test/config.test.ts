import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

const base = {
  FORGE_MCP_OAUTH: "true",
  FORGE_OAUTH_APP_ID: "app",
  MCP_SERVER_URL: "https://mcp.example.com",
};

describe("configuration", () => {
  // each variable's own default is the table's (config-variables.test.ts); these are derived
  it("derives the defaults that depend on other variables", () => {
    expect(loadConfig({})).toMatchObject({
      transport: "stdio",
      forgeRootUrl: "https://gitlab.com",
      readOnly: false,
      permission: "full",
      mcpServerUrl: "http://127.0.0.1:3000",
      metricsHost: "127.0.0.1",
      oauthScopes: ["api"],
      toolsets: undefined,
      forgeOrigins: undefined,
      forgeTokenKind: "bearer",
    });
  });

  it("FORGE_MCP_CONFIRM_DESTRUCTIVE: elicit by default, refuse and off (any case)", () => {
    expect(loadConfig({}).confirmDestructive).toBe("elicit");
    expect(loadConfig({ FORGE_MCP_CONFIRM_DESTRUCTIVE: "Refuse" }).confirmDestructive).toBe("refuse");
    expect(loadConfig({ GITLAB_MCP_CONFIRM_DESTRUCTIVE: "off" }).confirmDestructive).toBe("off");
  });

  it("FORGE_MCP_STEP_UP=true asks the forge for read_api and api (api alone without it)", () => {
    expect(loadConfig(base)).toMatchObject({ stepUp: false, oauthScopes: ["api"] });
    expect(loadConfig({ ...base, FORGE_MCP_STEP_UP: "true" })).toMatchObject({
      stepUp: true,
      oauthScopes: ["read_api", "api"],
    });
    expect(loadConfig({ ...base, GITLAB_MCP_STEP_UP: "true" }).stepUp).toBe(true);
  });

  it("reads the client metadata document budget, and the test-only loopback switch is off by default", () => {
    expect(loadConfig(base)).toMatchObject({
      clientMetadataFetchesPerMinute: 10,
      cimdAllowLoopbackForTests: false,
    });
    const c = loadConfig({
      ...base,
      OAUTH_CLIENT_METADATA_FETCH_RATE_LIMIT_PER_MINUTE: "3",
      FORGE_MCP_CIMD_ALLOW_LOOPBACK_FOR_TESTS: "true",
    });
    expect(c).toMatchObject({ clientMetadataFetchesPerMinute: 3, cimdAllowLoopbackForTests: true });
    expect(() => loadConfig({ ...base, OAUTH_CLIENT_METADATA_FETCH_RATE_LIMIT_PER_MINUTE: "0" })).toThrow(
      /OAUTH_CLIENT_METADATA_FETCH_RATE_LIMIT_PER_MINUTE must be an integer/,
    );
  });

  it("FORGE_MCP_OAUTH=true implies the http transport", () => {
    const c = loadConfig(base);
    expect(c.transport).toBe("http");
    expect(c.oauthAppId).toBe("app");
  });

  it("accepts the GITLAB_ spelling of every FORGE_ variable", () => {
    const c = loadConfig({
      GITLAB_MCP_OAUTH: "true",
      GITLAB_OAUTH_APP_ID: "gl-app",
      GITLAB_OAUTH_CALLBACK_PROXY: "true",
      GITLAB_API_URL: "https://gitlab.example.org/api/v4",
      GITLAB_PERSONAL_ACCESS_TOKEN: "pat",
      GITLAB_READ_ONLY_MODE: "true",
      MCP_SERVER_URL: "https://mcp.example.com/",
    });
    expect(c).toMatchObject({
      remoteOAuth: true,
      oauthAppId: "gl-app",
      callbackProxy: true,
      forgeRootUrl: "https://gitlab.example.org",
      forgeToken: "pat",
      readOnly: true,
      mcpServerUrl: "https://mcp.example.com",
    });
  });

  it("FORGE_ wins over GITLAB_ when both are set", () => {
    expect(
      loadConfig({ FORGE_API_URL: "https://a/api/v4", GITLAB_API_URL: "https://b/api/v4" }).forgeApiUrl,
    ).toBe("https://a/api/v4");
  });

  const invalid: Array<[string, Record<string, string>, RegExp]> = [
    [
      "short stateless secret",
      { ...base, OAUTH_STATELESS_MODE: "true", OAUTH_STATELESS_SECRET: "c2hvcnQ=" },
      /32 random bytes.*decodes to 5 bytes.*openssl rand -base64 32/,
    ],
    ["stateless without secret", { ...base, OAUTH_STATELESS_MODE: "true" }, /needs OAUTH_STATELESS_SECRET/],
    [
      "oauth without app id",
      { FORGE_MCP_OAUTH: "true", MCP_SERVER_URL: "https://x" },
      /needs FORGE_OAUTH_APP_ID/,
    ],
    [
      "oauth without server url",
      { FORGE_MCP_OAUTH: "true", FORGE_OAUTH_APP_ID: "a" },
      /needs MCP_SERVER_URL/,
    ],
    ["plain http public url", { ...base, MCP_SERVER_URL: "http://mcp.example.com" }, /must be https/],
    ["bad boolean", { FORGE_MCP_OAUTH: "yes please" }, /FORGE_MCP_OAUTH must be true or false/],
    [
      "bad rate limit",
      { OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: "-1" },
      /OAUTH_REGISTER_RATE_LIMIT_PER_HOUR must be an integer/,
    ],
    ["bad transport", { MCP_TRANSPORT: "sse" }, /MCP_TRANSPORT must be/],
    ["oauth over stdio", { ...base, MCP_TRANSPORT: "stdio" }, /needs MCP_TRANSPORT=http/],
    ["bad confirm mode", { FORGE_MCP_CONFIRM_DESTRUCTIVE: "ask" }, /FORGE_MCP_CONFIRM_DESTRUCTIVE must be/],
    [
      "step-up without oauth",
      { FORGE_MCP_STEP_UP: "true" },
      /FORGE_MCP_STEP_UP=true needs FORGE_MCP_OAUTH=true/,
    ],
    [
      "step-up without read_api",
      { ...base, FORGE_MCP_STEP_UP: "true", FORGE_OAUTH_SCOPES: "api" },
      /needs both read_api and api in FORGE_OAUTH_SCOPES/,
    ],
  ];
  it.each(invalid)("rejects %s with one clear line", (_name, env, message) => {
    let err: unknown;
    try {
      loadConfig(env);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain("\n");
  });

  it("decodes a valid stateless secret and the previous one", () => {
    const s = Buffer.alloc(32, 1).toString("base64");
    const p = Buffer.alloc(32, 2).toString("base64");
    const c = loadConfig({
      ...base,
      OAUTH_STATELESS_MODE: "true",
      OAUTH_STATELESS_SECRET: s,
      OAUTH_STATELESS_SECRET_PREVIOUS: p,
    });
    expect(c.statelessSecret?.length).toBe(32);
    expect(c.statelessSecretPrevious?.[0]).toBe(2);
  });
});

describe("a gitlab-mcp environment carries over", () => {
  const pat = { GITLAB_PERSONAL_ACCESS_TOKEN: "t", GITLAB_API_URL: "https://gitlab.example.com/api/v4" };

  it("STREAMABLE_HTTP=true selects the HTTP transport (stdio otherwise)", () => {
    expect(loadConfig(pat).transport).toBe("stdio");
    expect(loadConfig({ ...pat, STREAMABLE_HTTP: "true" }).transport).toBe("http");
  });

  it("SSE=true serves HTTP and warns that only Streamable HTTP is served", () => {
    const c = loadConfig({ ...pat, SSE: "true" });
    expect(c.transport).toBe("http");
    expect(c.warnings).toEqual([
      "SSE=true (gitlab-mcp): the legacy SSE transport is not served; clients use Streamable HTTP at /mcp",
    ]);
  });

  it("USE_GITLAB_WIKI, USE_MILESTONE, USE_PIPELINE add their toolsets to an explicit list", () => {
    const c = loadConfig({
      ...pat,
      GITLAB_TOOLSETS: "issues",
      USE_GITLAB_WIKI: "true",
      USE_MILESTONE: "true",
      USE_PIPELINE: "false",
    });
    expect(c.toolsets).toEqual(["issues", "wiki", "milestones"]);
    expect(loadConfig({ ...pat, USE_PIPELINE: "true" }).toolsets).toBeUndefined(); // all defaults already
  });

  it("the exposure controls read gitlab-mcp's names and ours", () => {
    const c = loadConfig({
      ...pat,
      GITLAB_PERMISSION_MODE: "Modify",
      GITLAB_TOOLS: "get_issue, list_issues",
      GITLAB_DENIED_TOOLS_REGEX: "^delete_",
      GITLAB_ALLOWED_PROJECT_IDS: "42,acme/widgets",
    });
    expect(c).toMatchObject({
      permission: "modify",
      readOnly: false,
      extraTools: ["get_issue", "list_issues"],
      allowedProjects: ["42", "acme/widgets"],
    });
    expect(c.deniedTools?.test("delete_issue")).toBe(true);
    expect(loadConfig({ ...pat, FORGE_PERMISSION_MODE: "readonly" })).toMatchObject({
      permission: "readonly",
      readOnly: true,
    });
    expect(
      loadConfig({ ...pat, GITLAB_READ_ONLY_MODE: "true", GITLAB_PERMISSION_MODE: "full" }).permission,
    ).toBe("readonly");
    expect(loadConfig(pat)).toMatchObject({ permission: "full", extraTools: [], allowedProjects: [] });
  });

  it.each([
    [{ GITLAB_PERMISSION_MODE: "write" }, /GITLAB_PERMISSION_MODE\) must be "readonly", "modify" or "full"/],
    [{ GITLAB_DENIED_TOOLS_REGEX: "(" }, /GITLAB_DENIED_TOOLS_REGEX\) is not a valid regular expression/],
    [
      { GITLAB_ALLOWED_PROJECT_IDS: "1,widgets" },
      /"widgets" is neither a numeric project id nor a full path/,
    ],
    [{ GITLAB_OAUTH_ALLOWED_GROUPS: "acme" }, /GITLAB_OAUTH_ALLOWED_GROUPS\) needs FORGE_MCP_OAUTH=true/],
    [
      { REMOTE_AUTHORIZATION: "true", MCP_TRANSPORT: "stdio" },
      /REMOTE_AUTHORIZATION=true needs MCP_TRANSPORT=http/,
    ],
    [{ ENABLE_DYNAMIC_API_URL: "true" }, /ENABLE_DYNAMIC_API_URL=true needs REMOTE_AUTHORIZATION=true/],
    [
      { REMOTE_AUTHORIZATION: "true", ENABLE_DYNAMIC_API_URL: "true", GITLAB_ALLOWED_HOSTS: "a b" },
      /GITLAB_ALLOWED_HOSTS \(FORGE_ALLOWED_API_URLS\): "a b" is neither a host nor an http\(s\) URL/,
    ],
  ])("refuses %j", (env, message) => {
    expect(() => loadConfig({ ...pat, ...env })).toThrow(message);
  });

  it.each([
    ["one project: it is the default project, as in gitlab-mcp", "42", "42"],
    ["one path", " acme/widgets ", "acme/widgets"],
    ["two projects: no default", "42,acme/widgets", undefined],
  ])("GITLAB_ALLOWED_PROJECT_IDS with %s", (_n, list, defaultProject) => {
    const c = loadConfig({ ...pat, GITLAB_ALLOWED_PROJECT_IDS: list });
    expect(c.defaultProject).toBe(defaultProject);
    expect(c.warnings).toEqual([]);
  });

  it("REMOTE_AUTHORIZATION serves HTTP; GITLAB_ALLOWED_HOSTS entries become origins, FORGE_API_URL's first", () => {
    expect(loadConfig({ ...pat, REMOTE_AUTHORIZATION: "true" })).toMatchObject({
      transport: "http",
      remoteAuthorization: true,
      forgeOrigins: undefined,
    });
    const c = loadConfig({
      ...pat,
      REMOTE_AUTHORIZATION: "true",
      ENABLE_DYNAMIC_API_URL: "true",
      GITLAB_ALLOWED_HOSTS: "gitlab.other.example, http://10.0.0.5:8080/api/v4",
    });
    expect(c.forgeOrigins).toEqual([
      "https://gitlab.example.com",
      "https://gitlab.other.example",
      "http://10.0.0.5:8080",
    ]);
    expect(() => loadConfig({ ...base, REMOTE_AUTHORIZATION: "true" })).toThrow(/choose one/);
  });

  it("GITLAB_OAUTH_ALLOWED_GROUPS (and the older GITLAB_ALLOWED_GROUPS) with OAuth", () => {
    expect(loadConfig({ ...base, GITLAB_OAUTH_ALLOWED_GROUPS: "acme, labs/" }).allowedGroups).toEqual([
      "acme",
      "labs",
    ]);
    expect(loadConfig({ ...base, GITLAB_ALLOWED_GROUPS: "acme" }).allowedGroups).toEqual(["acme"]);
  });

  it("variables without effect here are named in one warning", () => {
    const c = loadConfig({ ...pat, SSE_AUTH_TOKEN: "x", LOG_FORMAT: "json" });
    expect(c.warnings).toEqual([
      "gitlab-mcp variables with no effect in forge-mcp (ignored): SSE_AUTH_TOKEN, LOG_FORMAT",
    ]);
  });

  it.each([
    ["GITLAB_PROJECT_ID alone is the default project", { GITLAB_PROJECT_ID: "5" }, "5", []],
    ["FORGE_PROJECT_ID by a path", { FORGE_PROJECT_ID: "acme/widgets" }, "acme/widgets", []],
    [
      "GITLAB_PROJECT_ID beside a one-project allow-list: the allow-list's, and a warning",
      { GITLAB_PROJECT_ID: "5", GITLAB_ALLOWED_PROJECT_IDS: "7" },
      "7",
      [expect.stringMatching(/^GITLAB_PROJECT_ID has no effect with GITLAB_ALLOWED_PROJECT_IDS/)],
    ],
    [
      "GITLAB_PROJECT_ID beside a two-project allow-list: none",
      { GITLAB_PROJECT_ID: "5", GITLAB_ALLOWED_PROJECT_IDS: "5,7" },
      undefined,
      [expect.stringMatching(/^GITLAB_PROJECT_ID has no effect/)],
    ],
  ])("%s", (_n, env, defaultProject, warnings) => {
    const c = loadConfig({ ...pat, ...env });
    expect(c.defaultProject).toBe(defaultProject);
    expect(c.warnings).toEqual(warnings);
  });

  it("GITLAB_PROJECT_ID that is neither an id nor a path is refused", () => {
    expect(() => loadConfig({ ...pat, GITLAB_PROJECT_ID: "my project" })).toThrow(
      /FORGE_PROJECT_ID \(GITLAB_PROJECT_ID\): "my project" is neither a numeric project id nor a full path/,
    );
  });

  it.each([
    ["GITLAB_JOB_TOKEN alone: the server's token, sent as JOB-TOKEN", { GITLAB_JOB_TOKEN: "j" }, "j", "job"],
    [
      "a personal access token wins over it, as in gitlab-mcp",
      { GITLAB_JOB_TOKEN: "j", GITLAB_TOKEN: "p" },
      "p",
      "bearer",
    ],
    ["FORGE_TOKEN alone", { FORGE_TOKEN: "p" }, "p", "bearer"],
  ])("%s", (_n, env, token, kind) => {
    const c = loadConfig(env);
    expect([c.forgeToken, c.forgeTokenKind]).toEqual([token, kind]);
  });
});
