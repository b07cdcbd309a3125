import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

const base = {
  FORGE_MCP_OAUTH: "true",
  FORGE_OAUTH_APP_ID: "app",
  MCP_SERVER_URL: "https://mcp.example.com",
};

describe("configuration", () => {
  it("has the spec's defaults", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      transport: "stdio",
      remoteOAuth: false,
      callbackProxy: false,
      stateless: false,
      registerRateLimitPerHour: 20,
      localOAuth: false,
      forgeApiUrl: "https://gitlab.com/api/v4",
      forgeRootUrl: "https://gitlab.com",
      host: "127.0.0.1",
      port: 3000,
      trustProxy: false,
      readOnly: false,
      consentPage: true,
    });
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
