import { createPublicKey, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { APP, CONF_APP, CONF_SECRET, freshForge, REDIRECT } from "../helpers.js";

// Conformance of the forge simulator's OAuth token introspection, revocation, metadata and
// throttling with gitlab-wire.md (checklist items 3, 4, 5's 429 and 6).
const { f, sim } = freshForge();

describe("GET /oauth/token/info (checklist 3)", () => {
  const info = (init: { header?: string; query?: string; param?: string }) => {
    const url = new URL("/oauth/token/info", sim.origin);
    if (init.query) url.searchParams.set(init.param ?? "access_token", init.query);
    return fetch(url, init.header ? { headers: { authorization: `Bearer ${init.header}` } } : {});
  };

  it.each(["header", "access_token", "bearer_token"])(
    "answers in the %s form with the alias fields",
    async (form) => {
      const t = await f.tokens();
      await f.advance(100);
      const res =
        form === "header"
          ? await info({ header: t.access_token })
          : await info({ query: t.access_token, param: form });
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      const alice = (await f.api("/user")).body;
      expect(body).toMatchObject({
        resource_owner_id: alice.id,
        scope: ["api", "read_user"],
        scopes: ["api", "read_user"],
        expires_in: 7100,
        expires_in_seconds: 7100,
        application: { uid: APP },
      });
      expect(typeof body.created_at).toBe("number");
    },
  );

  it.each([
    ["unknown", "The access token is invalid"],
    ["revoked", "The access token was revoked"],
    ["expired", "The access token expired"],
  ])("answers 401 invalid_token for a %s token", async (kind, description) => {
    const t = await f.tokens();
    if (kind === "revoked") {
      await fetch(`${sim.origin}/oauth/revoke`, {
        method: "POST",
        body: new URLSearchParams({ token: t.access_token, client_id: APP }),
      });
    }
    if (kind === "expired") await f.advance(7200);
    const res = await info({ header: kind === "unknown" ? "nope" : t.access_token });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "invalid_token", error_description: description });
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
  });

  it("is not for personal access tokens", async () => {
    expect((await info({ header: "sim-forge-pat" })).status).toBe(401);
  });

  it("simulates an edge cache that strips Authorization on /oauth/* (the query form still works)", async () => {
    const t = await f.tokens();
    await f.control("POST", "/seed", { edgeCache: true });
    expect((await info({ header: t.access_token })).status).toBe(401);
    expect((await info({ query: t.access_token })).status).toBe(200);
    expect((await f.api("/user", { token: t.access_token })).status).toBe(200);
  });
});

describe("POST /oauth/revoke (checklist 4)", () => {
  const revoke = (params: Record<string, string>) =>
    fetch(`${sim.origin}/oauth/revoke`, { method: "POST", body: new URLSearchParams(params) });

  it("revokes an access token (and its refresh token)", async () => {
    const t = await f.tokens();
    const res = await revoke({ token: t.access_token, client_id: APP });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    expect((await f.api("/user", { token: t.access_token })).status).toBe(401);
    const r = await f.token({ grant_type: "refresh_token", client_id: APP, refresh_token: t.refresh_token });
    expect(r.body.error).toBe("invalid_grant");
  });

  it("revokes by refresh token", async () => {
    const t = await f.tokens();
    expect(
      (await revoke({ token: t.refresh_token, client_id: APP, token_type_hint: "refresh_token" })).status,
    ).toBe(200);
    expect((await f.api("/user", { token: t.access_token })).status).toBe(401);
  });

  it("answers 200 {} for an unknown token (RFC 7009)", async () => {
    const res = await revoke({ token: "never-issued", client_id: APP });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
  });

  it("refuses to let another client revoke a token", async () => {
    const t = await f.tokens();
    const res = await revoke({ token: t.access_token, client_id: CONF_APP, client_secret: CONF_SECRET });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error).toBe("unauthorized_client");
    expect((await f.api("/user", { token: t.access_token })).status).toBe(200);
  });
});

describe("OpenID Connect", () => {
  it("adds an RS256 id_token for openid, verifiable with the JWKS, echoing the nonce", async () => {
    const c = await f.code({ scope: "openid email api", nonce: "n-0S6_WzA2Mj" });
    const t = await f.token({
      grant_type: "authorization_code",
      client_id: APP,
      code: c.code,
      redirect_uri: REDIRECT,
      code_verifier: c.verifier,
    });
    const [header, payload, signature] = String(t.body.id_token).split(".");
    const head = JSON.parse(Buffer.from(header!, "base64url").toString());
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
    const doc = (await (await fetch(`${sim.origin}/.well-known/openid-configuration`)).json()) as any;
    const { keys } = (await (await fetch(doc.jwks_uri)).json()) as { keys: any[] };
    const jwk = keys.find((k) => k.kid === head.kid);
    expect(head.alg).toBe("RS256");
    const ok = verify(
      "sha256",
      Buffer.from(`${header}.${payload}`),
      createPublicKey({ key: jwk, format: "jwk" }),
      Buffer.from(signature!, "base64url"),
    );
    expect(ok).toBe(true);
    const alice = (await f.api("/user")).body;
    expect(claims).toMatchObject({
      iss: sim.origin,
      aud: APP,
      sub: String(alice.id),
      nonce: "n-0S6_WzA2Mj",
      email: "alice@example.test",
      preferred_username: "alice",
    });
    expect(claims.exp - claims.iat).toBe(120);
    const info = await fetch(`${sim.origin}/oauth/userinfo`, {
      headers: { authorization: `Bearer ${t.body.access_token}` },
    });
    expect(((await info.json()) as any).sub).toBe(String(alice.id));
  });

  it("issues no id_token without the openid scope", async () => {
    const t = await f.tokens("api");
    expect(t).not.toHaveProperty("id_token");
  });
});

describe("OAuth metadata, throttling and control", () => {
  it("serves OpenID discovery at the origin root", async () => {
    const doc = (await (await fetch(`${sim.origin}/.well-known/openid-configuration`)).json()) as any;
    expect(doc).toMatchObject({
      issuer: sim.origin,
      authorization_endpoint: `${sim.origin}/oauth/authorize`,
      token_endpoint: `${sim.origin}/oauth/token`,
      revocation_endpoint: `${sim.origin}/oauth/revoke`,
    });
    expect(doc.code_challenge_methods_supported).toContain("S256");
  });

  it("throttles like Rack::Attack: 429 'Retry later' with RateLimit-* and Retry-After, reset by the clock", async () => {
    await f.control("POST", "/seed", { rateLimit: { limit: 2, periodSeconds: 60 } });
    expect((await f.api("/user")).status).toBe(200);
    expect((await f.api("/user")).status).toBe(200);
    const limited = await f.api("/user");
    expect(limited.status).toBe(429);
    expect(limited.body).toBe("Retry later\n");
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(limited.headers.get("ratelimit-limit")).toBe("2");
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    expect(Number(limited.headers.get("ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    await f.advance(60);
    expect((await f.api("/user")).status).toBe(200);
  });

  it("never shows token values in the state dump", async () => {
    const t = await f.tokens();
    const dump = JSON.stringify((await f.control("GET", "/state")).body);
    expect(dump).not.toContain(t.access_token);
    expect(dump).not.toContain(t.refresh_token);
    expect(dump).not.toContain("sim-forge-pat");
    expect(dump).not.toContain(CONF_SECRET);
  });

  it("refuses an invalid seed with a 400 that says why, and changes nothing", async () => {
    const res = await f.control("POST", "/seed", {
      applications: [{ uid: "x", redirect_uris: ["javascript:alert(1)"] }],
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("forbidden");
    expect((await f.control("GET", "/state")).body.applications.map((a: any) => a.uid)).not.toContain("x");
  });
});
