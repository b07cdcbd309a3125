import { describe, expect, it } from "vitest";
import { APP, CONF_APP, CONF_SECRET, freshForge, INVALID_GRANT, REDIRECT } from "../helpers.js";

// Conformance of the forge simulator's OAuth server with gitlab-wire.md (checklist items 1 and 2).
const { f, sim } = freshForge();

const base = () => {
  const p = f.pkce();
  return {
    params: {
      client_id: APP,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "api",
      state: "xyz-42",
      code_challenge: p.challenge,
      code_challenge_method: "S256",
    } as Record<string, string | undefined>,
    verifier: p.verifier,
  };
};

const exchange = (
  code: string,
  verifier: string | undefined,
  extra: Record<string, string | undefined> = {},
) =>
  f.token({
    grant_type: "authorization_code",
    client_id: APP,
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    ...extra,
  });

describe("GET /oauth/authorize (checklist 1)", () => {
  it("redirects to the exactly registered redirect_uri with code and the echoed state", async () => {
    const res = await f.authorize(base().params);
    expect(res.status).toBe(302);
    const loc = new URL(res.headers.get("location")!);
    expect(`${loc.origin}${loc.pathname}`).toBe(REDIRECT);
    expect(loc.searchParams.get("state")).toBe("xyz-42");
    expect(loc.searchParams.get("code")).toMatch(/^[A-Za-z0-9]{64}$/);
  });

  it.each([
    ["trailing slash", `${REDIRECT}/`],
    ["other port", "http://127.0.0.1:8081/callback"],
    ["extra query", `${REDIRECT}?x=1`],
    ["other host", "http://evil.example/callback"],
    ["missing", undefined],
  ])(
    "serves the HTML error page and never redirects for an unregistered redirect_uri (%s)",
    async (_n, uri) => {
      const res = await f.authorize({ ...base().params, redirect_uri: uri });
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.headers.get("content-type")).toMatch(/text\/html/);
      const html = await res.text();
      expect(html).toContain("An error has occurred");
      expect(html).toContain("The redirect URI included is not valid.");
      expect(html).not.toContain("Unregistered redirect_uri");
    },
  );

  it("serves the invalid_client page for an unknown client_id, without redirecting", async () => {
    const res = await f.authorize({ ...base().params, client_id: "nope" });
    expect(res.status).toBe(401);
    expect(res.headers.get("location")).toBeNull();
    expect(await res.text()).toContain("Client authentication failed due to unknown client");
  });

  it("requires PKCE from a public application (invalid_request redirect with state)", async () => {
    const res = await f.authorize({
      ...base().params,
      code_challenge: undefined,
      code_challenge_method: undefined,
    });
    expect(res.status).toBe(302);
    const loc = new URL(res.headers.get("location")!);
    expect(loc.searchParams.get("error")).toBe("invalid_request");
    expect(loc.searchParams.get("state")).toBe("xyz-42");
    expect(loc.searchParams.get("code")).toBeNull();
  });

  it("lets a confidential application authorize without PKCE", async () => {
    const res = await f.authorize({ ...base().params, client_id: CONF_APP, code_challenge: undefined });
    expect(new URL(res.headers.get("location")!).searchParams.get("code")).toBeTruthy();
  });

  it("rejects a scope the application does not allow with an invalid_scope redirect", async () => {
    await f.control("POST", "/seed", {
      applications: [{ uid: "narrow", redirect_uris: [REDIRECT], scopes: ["read_api"] }],
    });
    for (const scope of ["api", "read_api sudo", "no_such_scope"]) {
      const res = await f.authorize({ ...base().params, client_id: "narrow", scope });
      const loc = new URL(res.headers.get("location")!);
      expect(loc.searchParams.get("error")).toBe("invalid_scope");
      expect(loc.searchParams.get("state")).toBe("xyz-42");
    }
  });

  it("grants the default scope (api) when scope is absent or blank", async () => {
    for (const scope of [undefined, ""]) {
      const c = await f.code({ scope });
      const t = await exchange(c.code, c.verifier);
      expect(t.body.scope).toBe("api");
    }
  });

  it("rejects a response_type other than code", async () => {
    const res = await f.authorize({ ...base().params, response_type: "token" });
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("unsupported_response_type");
  });

  it("rejects an unknown or disabled code_challenge_method", async () => {
    const res = await f.authorize({ ...base().params, code_challenge_method: "S512" });
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
    await f.control("POST", "/seed", { pkceMethods: ["S256"] });
    const plain = await f.authorize({ ...base().params, code_challenge_method: "plain" });
    const loc = new URL(plain.headers.get("location")!);
    expect(loc.searchParams.get("error")).toBe("invalid_request");
    expect(loc.searchParams.get("error_description")).toBe("The code challenge method must be S256.");
  });

  it("signs in the configured user automatically (autoApprove {user})", async () => {
    await f.control("POST", "/seed", { autoApprove: { user: "bob" } });
    const t = await f.tokens();
    const info = await fetch(`${sim.origin}/oauth/token/info`, {
      headers: { authorization: `Bearer ${t.access_token}` },
    });
    const bob = (await f.api("/users?username=bob")).body[0];
    expect(((await info.json()) as any).resource_owner_id).toBe(bob.id);
  });

  it("sends a signed-out browser to the sign-in page", async () => {
    await f.control("POST", "/seed", { signedInUser: "" });
    const res = await f.authorize(base().params);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${sim.origin}/users/sign_in`);
  });

  describe("manual consent (autoApprove: false)", () => {
    const consentForm = async (params: Record<string, string | undefined>) => {
      const res = await f.authorize(params);
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain("Forge MCP (simulated)");
      const fields = new URLSearchParams();
      for (const m of html.matchAll(/<form[^>]*id="approve"[\s\S]*?<\/form>/g)) {
        for (const i of m[0].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
          fields.set(
            i[1]!,
            i[2]!.replace(/&#(\d+);/g, (_s, c) => String.fromCharCode(Number(c))),
          );
        }
      }
      return fields;
    };
    const post = (fields: URLSearchParams) =>
      fetch(`${sim.origin}/oauth/authorize`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: fields.toString(),
      });

    it("serves a consent page whose approve form yields a code that exchanges", async () => {
      await f.control("POST", "/seed", { autoApprove: false });
      const b = base();
      const fields = await consentForm(b.params);
      expect(fields.get("state")).toBe("xyz-42");
      const res = await post(fields);
      expect(res.status).toBe(302);
      const loc = new URL(res.headers.get("location")!);
      expect(loc.searchParams.get("state")).toBe("xyz-42");
      expect((await exchange(loc.searchParams.get("code")!, b.verifier)).status).toBe(200);
    });

    it("redirects a denial with error=access_denied and the state", async () => {
      await f.control("POST", "/seed", { autoApprove: false });
      const fields = await consentForm(base().params);
      fields.set("_method", "delete");
      const res = await post(fields);
      const loc = new URL(res.headers.get("location")!);
      expect(loc.searchParams.get("error")).toBe("access_denied");
      expect(loc.searchParams.get("error_description")).toBe(
        "The resource owner or authorization server denied the request.",
      );
      expect(loc.searchParams.get("state")).toBe("xyz-42");
      expect(loc.searchParams.get("code")).toBeNull();
    });

    it("re-validates the redirect_uri on the consent POST", async () => {
      await f.control("POST", "/seed", { autoApprove: false });
      const fields = await consentForm(base().params);
      fields.set("redirect_uri", "http://evil.example/cb");
      const res = await post(fields);
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
    });

    it("skips consent for a trusted application", async () => {
      await f.control("POST", "/seed", {
        autoApprove: false,
        applications: [{ uid: "trusted", trusted: true, redirect_uris: [REDIRECT], scopes: ["api"] }],
      });
      const res = await f.authorize({ ...base().params, client_id: "trusted" });
      expect(res.status).toBe(302);
    });
  });
});

describe("POST /oauth/token (checklist 2)", () => {
  it("exchanges a code for a Bearer token valid 7200 s with scope and created_at", async () => {
    const c = await f.code();
    const simSeconds = async () => Math.floor((await f.control("GET", "/clock")).body.now_ms / 1000);
    const before = await simSeconds();
    const t = await exchange(c.code, c.verifier);
    const after = await simSeconds();
    expect(t.status).toBe(200);
    expect(t.headers.get("cache-control")).toBe("no-store");
    expect(t.body).toMatchObject({ token_type: "Bearer", expires_in: 7200, scope: "api read_user" });
    expect(t.body.access_token).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(t.body.refresh_token).toMatch(/^[A-Za-z0-9]{64}$/);
    // created_at is the simulator's clock at the exchange, in whole seconds.
    expect(t.body.created_at).toBeGreaterThanOrEqual(before);
    expect(t.body.created_at).toBeLessThanOrEqual(after);
  });

  it("accepts a JSON body as well as a form body", async () => {
    const c = await f.code();
    const t = await f.token(
      {
        grant_type: "authorization_code",
        client_id: APP,
        code: c.code,
        redirect_uri: REDIRECT,
        code_verifier: c.verifier,
      },
      { json: true },
    );
    expect(t.status).toBe(200);
  });

  it("verifies the S256 code_verifier (wrong: invalid_grant; missing: invalid_request)", async () => {
    const c = await f.code();
    const bad = await exchange(c.code, "wrong-verifier-wrong-verifier-wrong-verifier-1");
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "invalid_grant", error_description: INVALID_GRANT });
    const absent = await exchange(c.code, undefined);
    expect(absent.status).toBe(400);
    expect(absent.body).toEqual({
      error: "invalid_request",
      error_description: "Missing required parameter: code_verifier.",
    });
    expect((await exchange(c.code, c.verifier)).status).toBe(200);
  });

  it("requires redirect_uri at the token endpoint (invalid_request when absent)", async () => {
    const c = await f.code();
    const res = await exchange(c.code, c.verifier, { redirect_uri: undefined });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "invalid_request",
      error_description: "Missing required parameter: redirect_uri.",
    });
  });

  it("stores and verifies a plain code_challenge", async () => {
    const verifier = "plain-verifier-plain-verifier-plain-verifier-123";
    const c = await f.code({ code_challenge: verifier, code_challenge_method: "plain" });
    expect((await exchange(c.code, "not-it-not-it-not-it-not-it-not-it-not-it-0")).status).toBe(400);
    expect((await exchange(c.code, verifier)).status).toBe(200);
  });

  it("accepts a code only once", async () => {
    const c = await f.code();
    expect((await exchange(c.code, c.verifier)).status).toBe(200);
    const again = await exchange(c.code, c.verifier);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ error: "invalid_grant", error_description: INVALID_GRANT });
  });

  it("expires a code after 10 minutes of simulated time", async () => {
    const early = await f.code();
    const late = await f.code();
    await f.advance(599);
    expect((await exchange(early.code, early.verifier)).status).toBe(200);
    await f.advance(1);
    const expired = await exchange(late.code, late.verifier);
    expect(expired.status).toBe(400);
    expect(expired.body.error).toBe("invalid_grant");
  });

  it("requires the redirect_uri used at authorize", async () => {
    await f.control("POST", "/seed", {
      applications: [
        { uid: APP, redirect_uris: [REDIRECT, "http://127.0.0.1:9/other"], scopes: ["api", "read_user"] },
      ],
    });
    const c = await f.code();
    const bad = await exchange(c.code, c.verifier, { redirect_uri: "http://127.0.0.1:9/other" });
    expect(bad.body.error).toBe("invalid_grant");
  });

  it("binds a code to the client it was issued to", async () => {
    const c = await f.code();
    const bad = await exchange(c.code, c.verifier, { client_id: CONF_APP, client_secret: CONF_SECRET });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("invalid_grant");
  });

  it("answers 401 invalid_client for an unknown client or a confidential client without its secret", async () => {
    const c = await f.code({
      client_id: CONF_APP,
      code_challenge: undefined,
      code_challenge_method: undefined,
    });
    const attempts: Record<string, string>[] = [
      { client_id: "ghost" },
      { client_id: CONF_APP },
      { client_id: CONF_APP, client_secret: "x" },
    ];
    for (const extra of attempts) {
      const bad = await exchange(c.code, undefined, extra);
      expect(bad.status).toBe(401);
      expect(bad.body.error).toBe("invalid_client");
    }
    const basic = await f.token(
      { grant_type: "authorization_code", code: c.code, redirect_uri: REDIRECT },
      { basic: `${CONF_APP}:${CONF_SECRET}` },
    );
    expect(basic.status).toBe(200);
  });

  it.each([
    [{ grant_type: undefined }, 400, "invalid_request"],
    [{ grant_type: "password" }, 400, "unsupported_grant_type"],
    [{ grant_type: "authorization_code", code: undefined }, 400, "invalid_request"],
    [{ grant_type: "refresh_token", refresh_token: undefined }, 400, "invalid_request"],
  ])("rejects a malformed request %j with %i %s", async (params, status, error) => {
    const res = await f.token({ client_id: APP, code: "abc", redirect_uri: REDIRECT, ...params });
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(error);
    expect(typeof res.body.error_description).toBe("string");
  });

  it("rotates refresh tokens: the old refresh and access tokens die, the new pair works", async () => {
    const first = await f.tokens();
    const r = await f.token({
      grant_type: "refresh_token",
      client_id: APP,
      refresh_token: first.refresh_token,
    });
    expect(r.status).toBe(200);
    expect(r.body.refresh_token).not.toBe(first.refresh_token);
    expect(r.body.expires_in).toBe(7200);
    const reuse = await f.token({
      grant_type: "refresh_token",
      client_id: APP,
      refresh_token: first.refresh_token,
    });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe("invalid_grant");
    expect((await f.api("/user", { token: first.access_token })).status).toBe(401);
    expect((await f.api("/user", { token: r.body.access_token })).status).toBe(200);
  });

  it("narrows scopes on refresh and refuses to widen them", async () => {
    const first = await f.tokens("api read_user");
    const wider = await f.token({
      grant_type: "refresh_token",
      client_id: APP,
      refresh_token: first.refresh_token,
      scope: "api sudo",
    });
    expect(wider.body.error).toBe("invalid_scope");
    const narrow = await f.token({
      grant_type: "refresh_token",
      client_id: APP,
      refresh_token: first.refresh_token,
      scope: "read_user",
    });
    expect(narrow.body.scope).toBe("read_user");
  });

  it("expires access tokens after 7200 s; the refresh token still works", async () => {
    const t = await f.tokens();
    await f.advance(7199);
    expect((await f.api("/user", { token: t.access_token })).status).toBe(200);
    await f.advance(1);
    const expired = await f.api("/user", { token: t.access_token });
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({
      error: "invalid_token",
      error_description: "Token is expired. You can either do re-authorization or token refresh.",
    });
    const r = await f.token({ grant_type: "refresh_token", client_id: APP, refresh_token: t.refresh_token });
    expect(r.status).toBe(200);
  });

  it("answers a malformed JSON body with invalid_request in the OAuth shape", async () => {
    const res = await fetch(`${sim.origin}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toBe("invalid_request");
  });

  it("answers CORS preflight on the token endpoint", async () => {
    const res = await fetch(`${sim.origin}/oauth/token`, {
      method: "OPTIONS",
      headers: { origin: "http://app.example", "access-control-request-method": "POST" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});
