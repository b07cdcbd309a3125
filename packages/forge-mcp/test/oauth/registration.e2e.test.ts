import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeWith } from "../../../../scripts/test-services.js";
import { MAX_CLIENT_ID_LENGTH } from "../../src/oauth/service.js";
import { type RunningForgeMcp, register, SECRET, startForgeMcp } from "../helpers.js";
import { startRedis } from "../redis.js";

const oauthEnv = {
  FORGE_MCP_OAUTH: "true",
  FORGE_OAUTH_APP_ID: "app-1",
  FORGE_API_URL: "http://127.0.0.1:9/api/v4",
};

describe("POST /register", () => {
  let mcp: RunningForgeMcp;
  beforeAll(async () => {
    mcp = await startForgeMcp({
      ...oauthEnv,
      OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: "1000",
      OAUTH_REDIRECT_URI_ALLOWLIST: "https://*.trusted.example/*,http://127.0.0.1:*/*",
    });
  });
  afterAll(() => mcp.close());

  const cases: Array<[string, string, number]> = [
    ["https on the allow-list", "https://app.trusted.example/cb", 201],
    ["loopback http", "http://127.0.0.1:4567/callback", 201],
    ["https off the allow-list", "https://evil.example/cb", 400],
    ["the allow-listed host smuggled into the path", "https://evil.example/.trusted.example/cb", 400],
    ["the allow-listed host as a prefix of another host", "https://a.trusted.example.evil.example/cb", 400],
    ["plain http, not loopback", "http://app.trusted.example/cb", 400],
    ["a fragment", "https://app.trusted.example/cb#x", 400],
    ["a javascript: URI", "javascript:alert(1)", 400],
    ["userinfo", "https://user:pw@app.trusted.example/cb", 400],
    ["not a URL", "not a url", 400],
    // WHATWG URL reads the backslash as a slash: the browser would go to https://evil.test/...
    ["a backslash before the allow-listed suffix", "https://evil.test\\.trusted.example/cb", 400],
    ["a backslash in the path", "https://app.trusted.example\\cb", 400],
    ["upper case in the host (not the parsed form)", "https://APP.trusted.example/cb", 400],
    ["a native app's scheme, not on the allow-list", "cursor://anysphere.cursor-retrieval/oauth/cb", 400],
  ];
  it.each(cases)("%s: %s → %i", async (_name, uri, status) => {
    const r = await register(mcp.url, { redirect_uris: [uri], client_name: "t" });
    expect(r.status).toBe(status);
    if (status === 201) {
      expect(r.body.client_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.body.redirect_uris).toEqual([uri]);
    } else {
      expect(r.body).toEqual({ error: "invalid_redirect_uri", error_description: expect.any(String) });
      // generic message: the rejected URI and the reason stay in the server log
      expect(r.body.error_description).not.toContain(uri);
    }
  });

  it("rejects a body without redirect_uris", async () => {
    const r = await register(mcp.url, { client_name: "x" });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid_redirect_uri");
  });

  it("answers a malformed JSON body with invalid_request, not a stack trace", async () => {
    const r = await fetch(`${mcp.url}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(r.status).toBe(400);
    const text = await r.text();
    expect(JSON.parse(text).error).toBe("invalid_request");
    expect(text).not.toMatch(/at .*\.js/);
  });

  it("answers CORS preflights for browser-based clients", async () => {
    const r = await fetch(`${mcp.url}/register`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST" },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.headers.get("access-control-allow-methods")).toContain("POST");
  });

  it("answers with a virtual client id, distinct from the forge application id", async () => {
    const a = await register(mcp.url, { redirect_uris: ["http://127.0.0.1:1/cb"] });
    const b = await register(mcp.url, { redirect_uris: ["http://127.0.0.1:1/cb"] });
    expect(a.body.client_id).not.toBe(b.body.client_id);
    expect(a.body.client_id).not.toBe("app-1");
    expect(a.body.token_endpoint_auth_method).toBe("none");
  });
});

describe("POST /register without an allow-list: native and loopback clients (RFC 8252)", () => {
  let mcp: RunningForgeMcp;
  beforeAll(async () => {
    mcp = await startForgeMcp({ ...oauthEnv, OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: "1000" });
  });
  afterAll(() => mcp.close());

  const cases: Array<[string, string, number]> = [
    ["Cursor's private-use scheme", "cursor://anysphere.cursor-retrieval/oauth/user-callback", 201],
    ["VS Code's private-use scheme", "vscode://vscode.github-authentication/did-authenticate", 201],
    ["a reverse-DNS scheme (RFC 8252 §7.1)", "com.example.app:/oauth2redirect", 201],
    ["http 127.0.0.1 without a port", "http://127.0.0.1/callback", 201],
    ["http 127.0.0.1 with a port", "http://127.0.0.1:33418/callback", 201],
    ["http [::1] with a port", "http://[::1]:8080/callback", 201],
    ["http localhost", "http://localhost:6274/oauth/callback", 201],
    ["https anywhere", "https://client.example.org/cb", 201],
    ["javascript:", "javascript:alert(1)", 400],
    ["data:", "data:text/html,hi", 400],
    ["file:", "file:///etc/passwd", 400],
    ["vbscript:", "vbscript:msgbox(1)", 400],
    ["a backslash that moves the host", "https://evil.test\\.example.com/cb", 400],
    ["loopback with userinfo", "http://evil@127.0.0.1:8080/cb", 400],
    ["a private-use scheme with a fragment", "cursor://cb#x", 400],
    ["plain http elsewhere", "http://client.example.org/cb", 400],
  ];
  it.each(cases)("%s: %s → %i", async (_name, uri, status) => {
    const r = await register(mcp.url, { redirect_uris: [uri], client_name: "native" });
    expect(r.status).toBe(status);
    if (status === 201) expect(r.body.redirect_uris).toEqual([uri]);
    else expect(r.body.error).toBe("invalid_redirect_uri");
  });
});

describe("registration rate limit (per client IP)", () => {
  let mcp: RunningForgeMcp;
  beforeAll(async () => {
    mcp = await startForgeMcp({
      ...oauthEnv,
      OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: "3",
      MCP_TRUST_PROXY: "loopback",
    });
  });
  afterAll(() => mcp.close());

  it("refuses the registration over the limit with 429 and Retry-After, per IP", async () => {
    const ip = { "x-forwarded-for": "203.0.113.7" };
    for (let i = 0; i < 3; i++)
      expect((await register(mcp.url, { redirect_uris: ["http://127.0.0.1:1/cb"] }, ip)).status).toBe(201);
    const over = await register(mcp.url, { redirect_uris: ["http://127.0.0.1:1/cb"] }, ip);
    expect(over.status).toBe(429);
    expect(over.body.error).toBe("too_many_requests");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(3500);
    const otherIp = await register(
      mcp.url,
      { redirect_uris: ["http://127.0.0.1:1/cb"] },
      { "x-forwarded-for": "203.0.113.8" },
    );
    expect(otherIp.status).toBe(201);
  });
});

describe("MCP_TRUST_PROXY=true: the client address is the one the proxy saw (rightmost), not one the client wrote", () => {
  let mcp: RunningForgeMcp;
  beforeAll(async () => {
    mcp = await startForgeMcp({
      ...oauthEnv,
      OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: "2",
      MCP_TRUST_PROXY: "true",
    });
  });
  afterAll(() => mcp.close());

  it("a client cycling spoofed leftmost X-Forwarded-For entries still meets the limit", async () => {
    const via = (spoofed: string) => ({ "x-forwarded-for": `${spoofed}, 203.0.113.9` });
    const body = { redirect_uris: ["http://127.0.0.1:1/cb"] };
    expect((await register(mcp.url, body, via("6.6.6.1"))).status).toBe(201);
    expect((await register(mcp.url, body, via("6.6.6.2"))).status).toBe(201);
    expect((await register(mcp.url, body, via("6.6.6.3"))).status).toBe(429);
  });
});

describeWith("redis-server")("shared rate limit across replicas (Redis)", () => {
  let redis: Awaited<ReturnType<typeof startRedis>> | undefined;
  const replicas: RunningForgeMcp[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    const env = {
      ...oauthEnv,
      OAUTH_STATELESS_MODE: "true",
      OAUTH_STATELESS_SECRET: SECRET,
      REDIS_URL: redis.url,
      OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: "2",
    };
    replicas.push(await startForgeMcp(env), await startForgeMcp(env));
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await redis?.stop();
  });

  it("counts registrations from one IP on both replicas together", async () => {
    const body = { redirect_uris: ["http://127.0.0.1:1/cb"] };
    expect((await register(replicas[0]!.url, body)).status).toBe(201);
    expect((await register(replicas[1]!.url, body)).status).toBe(201);
    expect((await register(replicas[0]!.url, body)).status).toBe(429);
    expect((await register(replicas[1]!.url, body)).status).toBe(429);
  });
});

describe("stateless registration: the sealed client id stays small enough to travel", () => {
  let mcp: RunningForgeMcp;
  beforeAll(async () => {
    mcp = await startForgeMcp({
      ...oauthEnv,
      OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: "1000",
      OAUTH_STATELESS_MODE: "true",
      OAUTH_STATELESS_SECRET: SECRET,
    });
  });
  afterAll(() => mcp.close());

  it("a registration whose sealed client id would pass the limit is refused, not issued to fail later", async () => {
    const long = Array.from({ length: 10 }, (_, i) => `https://app.example/${"p".repeat(900)}/${i}`);
    const r = await register(mcp.url, { redirect_uris: long, client_name: "big" });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid_client_metadata");
  });

  it("an ordinary registration is well under it and works at /authorize", async () => {
    const r = await register(mcp.url, { redirect_uris: ["http://127.0.0.1:9/cb"], client_name: "small" });
    expect(r.status).toBe(201);
    expect((r.body.client_id as string).length).toBeLessThan(MAX_CLIENT_ID_LENGTH);
  });
});
