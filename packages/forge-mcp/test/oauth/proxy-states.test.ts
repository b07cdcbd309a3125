import { beforeAll, describe, expect, it } from "vitest";
import { browse } from "../browser.js";
import { forgeAndMcp } from "../forge-and-mcp.js";
import { APP_ID, CLIENT_CB } from "../forge-sim.js";
import { floodGets, getManual, postForm, testClock } from "../helpers.js";
import {
  authorizeToCode,
  authorizeUrl,
  forgeAuthorizeHop,
  newClient,
  pkce,
  redeem,
} from "../oauth-client.js";

/**
 * One test per row of the states table (docs/forge-mcp-oauth.md §3) and per error rule (docs/forge-mcp-
 * oauth.md §7), proxy mode, in memory.
 */

describe("proxy mode states and transitions", () => {
  let clientId: string;
  const clock = testClock();
  const ctx = forgeAndMcp(
    {
      FORGE_OAUTH_CALLBACK_PROXY: "true",
      FORGE_OAUTH_CONSENT: "false",
      OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: "1000",
      MCP_TRUST_PROXY: "loopback",
    },
    { callbacks: (url) => [`${url}/callback`], now: clock.now },
  );
  beforeAll(async () => {
    clientId = await newClient(ctx.mcp.url);
  });

  it("pending transaction → GET /callback: deleted, proxy code issued, 302 to the client with the code and the client's state", async () => {
    const p = pkce();
    const r = await authorizeToCode(ctx.mcp.url, clientId, p.challenge, "client-state-42");
    expect(r.error).toBeNull();
    expect(r.state).toBe("client-state-42");
    expect(r.code).toBeTruthy();
    expect(r.url.searchParams.get("iss")).toBe(`${ctx.mcp.url}/`); // RFC 9207
    expect(r.hops.map((h) => h.replace(/http:\/\/127\.0\.0\.1:\d+/, ""))).toEqual([
      "GET /authorize",
      "GET /oauth/authorize",
      "GET /callback",
    ]);
  });

  it("pending transaction (deleted) → a replayed GET /callback is not processed", async () => {
    const p = pkce();
    const hop = await forgeAuthorizeHop(ctx.mcp.url, clientId, p.challenge, "s1");
    const atForge = await getManual(hop.location);
    const callbackUrl = atForge.location!;
    expect(callbackUrl.startsWith(`${ctx.mcp.url}/callback?`)).toBe(true);
    const first = await getManual(callbackUrl, { cookie: hop.cookie });
    expect(first.status).toBe(302);
    // even a browser that kept the (cleared) cookie finds the state spent
    const replay = await getManual(callbackUrl, { cookie: hop.cookie });
    expect(replay.status).toBe(400);
    expect(replay.location).toBeNull();
    expect(JSON.parse(replay.text).error).toBe("invalid_request");
  });

  it("a /callback whose state was never issued is not processed", async () => {
    // no browser can hold a binding cookie for a state we never issued (it is an HMAC of the state)
    const name = (await forgeAuthorizeHop(ctx.mcp.url, clientId, pkce().challenge, "x")).cookie.split("=")[0];
    const r = await getManual(`${ctx.mcp.url}/callback?code=whatever&state=forged`, {
      cookie: `${name}=forged`,
    });
    expect(r.status).toBe(403);
    expect(r.location).toBeNull();
  });

  it("a forge error (access_denied) goes back to the client's redirect with its state", async () => {
    const p = pkce();
    const hop = await forgeAuthorizeHop(ctx.mcp.url, clientId, p.challenge, "deny-state");
    const denied = await fetch(hop.location, { method: "DELETE", redirect: "manual" });
    const callbackUrl = denied.headers.get("location")!;
    expect(new URL(callbackUrl).searchParams.get("error")).toBe("access_denied");
    const back = await getManual(callbackUrl, { cookie: hop.cookie });
    const to = new URL(back.location!);
    expect(to.origin + to.pathname).toBe(CLIENT_CB);
    expect(to.searchParams.get("error")).toBe("access_denied");
    expect(to.searchParams.get("state")).toBe("deny-state");
    expect(to.searchParams.get("code")).toBeNull();
  });

  it("issued → POST /token with the matching verifier within 10 minutes: tokens returned, record deleted", async () => {
    const p = pkce();
    const { code } = await authorizeToCode(ctx.mcp.url, clientId, p.challenge);
    const r = await redeem(ctx.mcp.url, clientId, code!, p.verifier);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      token_type: "Bearer",
    });
    expect(r.headers.get("cache-control")).toBe("no-store");
    const info = await fetch(`${ctx.forge.origin}/oauth/token/info`, {
      headers: { authorization: `Bearer ${r.body.access_token}` },
    });
    expect(((await info.json()) as { application: { uid: string } }).application.uid).toBe(APP_ID);
  });

  it("used → a second POST /token with the same code returns no tokens", async () => {
    const p = pkce();
    const { code } = await authorizeToCode(ctx.mcp.url, clientId, p.challenge);
    expect((await redeem(ctx.mcp.url, clientId, code!, p.verifier)).status).toBe(200);
    const again = await redeem(ctx.mcp.url, clientId, code!, p.verifier);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_grant");
    expect(again.body.access_token).toBeUndefined();
  });

  it("used → of five concurrent redemptions of one code, exactly one gets tokens", async () => {
    const p = pkce();
    const { code } = await authorizeToCode(ctx.mcp.url, clientId, p.challenge);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => redeem(ctx.mcp.url, clientId, code!, p.verifier)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400]);
  });

  it("issued → wrong verifier: invalid_grant, record unchanged (the right verifier still works)", async () => {
    const p = pkce();
    const { code } = await authorizeToCode(ctx.mcp.url, clientId, p.challenge);
    const wrong = await redeem(ctx.mcp.url, clientId, code!, pkce().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: "invalid_grant", error_description: expect.any(String) });
    expect((await redeem(ctx.mcp.url, clientId, code!, p.verifier)).status).toBe(200);
  });

  it("issued → missing verifier: invalid_request, no tokens", async () => {
    const p = pkce();
    const { code } = await authorizeToCode(ctx.mcp.url, clientId, p.challenge);
    const r = await redeem(ctx.mcp.url, clientId, code!, undefined);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid_request");
    expect(r.body.access_token).toBeUndefined();
  });

  it("issued → older than 10 minutes: invalid_grant", async () => {
    const p = pkce();
    const { code } = await authorizeToCode(ctx.mcp.url, clientId, p.challenge);
    clock.advance(10 * 60 * 1000 + 1);
    const r = await redeem(ctx.mcp.url, clientId, code!, p.verifier);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid_grant");
  });

  it("exactly 10 minutes old is still accepted", async () => {
    const p = pkce();
    const { code } = await authorizeToCode(ctx.mcp.url, clientId, p.challenge);
    clock.advance(10 * 60 * 1000);
    expect((await redeem(ctx.mcp.url, clientId, code!, p.verifier)).status).toBe(200);
  });

  it("another client's code: invalid_grant", async () => {
    const p = pkce();
    const { code } = await authorizeToCode(ctx.mcp.url, clientId, p.challenge);
    const other = await newClient(ctx.mcp.url, "other");
    const r = await redeem(ctx.mcp.url, other, code!, p.verifier);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid_grant");
  });

  it("a redirect_uri other than the authorization's: invalid_grant", async () => {
    const p = pkce();
    const { code } = await authorizeToCode(ctx.mcp.url, clientId, p.challenge);
    const r = await redeem(ctx.mcp.url, clientId, code!, p.verifier, {
      redirect_uri: "http://127.0.0.1:8765/other",
    });
    expect(r.body.error).toBe("invalid_grant");
  });

  it("any stored entry → a proxy code pushed out by 1000 newer entries yields no tokens", async () => {
    const p = pkce();
    const { code } = await authorizeToCode(ctx.mcp.url, clientId, p.challenge);
    // from 1000 addresses: one address alone only replaces its own pending entries
    const answers = await floodGets(1000, (i) => [
      authorizeUrl(ctx.mcp.url, clientId, pkce().challenge, `flood-${i}`),
      { "x-forwarded-for": `198.51.${Math.floor(i / 250)}.${i % 250}` },
    ]);
    expect(answers.filter((a) => a.status === 302)).toHaveLength(1000);
    const r = await redeem(ctx.mcp.url, clientId, code!, p.verifier);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid_grant");
  });

  it("unknown client at /token: 401 invalid_client; unknown grant type: unsupported_grant_type", async () => {
    const a = await redeem(ctx.mcp.url, "nobody", "x", pkce().verifier);
    expect(a.status).toBe(401);
    expect(a.body.error).toBe("invalid_client");
    const b = await postForm(`${ctx.mcp.url}/token`, { grant_type: "password", client_id: clientId });
    expect(b.body.error).toBe("unsupported_grant_type");
  });

  it("refresh_token grant: relayed to the forge with the real app id, new tokens returned", async () => {
    const p = pkce();
    const { code } = await authorizeToCode(ctx.mcp.url, clientId, p.challenge);
    const first = await redeem(ctx.mcp.url, clientId, code!, p.verifier);
    const r = await postForm(`${ctx.mcp.url}/token`, {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: first.body.refresh_token,
    });
    expect(r.status).toBe(200);
    expect(r.body.access_token).not.toBe(first.body.access_token);
    const bad = await postForm(`${ctx.mcp.url}/token`, {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: "nope",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("invalid_grant");
  });

  it("POST /revoke revokes the token at the forge", async () => {
    const p = pkce();
    const { code } = await authorizeToCode(ctx.mcp.url, clientId, p.challenge);
    const t = await redeem(ctx.mcp.url, clientId, code!, p.verifier);
    const r = await postForm(`${ctx.mcp.url}/revoke`, { token: t.body.access_token, client_id: clientId });
    expect(r.status).toBe(200);
    const info = await fetch(`${ctx.forge.origin}/oauth/token/info`, {
      headers: { authorization: `Bearer ${t.body.access_token}` },
    });
    expect(info.status).toBe(401);
  });

  it("never writes a token, code, verifier or state to the log", async () => {
    const p = pkce();
    const hops: string[] = [];
    const { url } = await browse(authorizeUrl(ctx.mcp.url, clientId, p.challenge, "log-state-1"), CLIENT_CB, {
      onHop: (h) => hops.push(h),
    });
    const code = url.searchParams.get("code")!;
    const t = await redeem(ctx.mcp.url, clientId, code, p.verifier);
    await postForm(`${ctx.mcp.url}/token`, {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: t.body.refresh_token,
    });
    const proxyState = new URL(hops.find((h) => h.includes("/callback?"))!.split(" ")[1]!).searchParams.get(
      "state",
    )!;
    const forgeCode = new URL(hops.find((h) => h.includes("/callback?"))!.split(" ")[1]!).searchParams.get(
      "code",
    )!;
    const all = ctx.mcp.logs.join("");
    expect(all).toContain("proxy code exchanged"); // the log did record this flow
    for (const secret of [
      code,
      p.verifier,
      t.body.access_token,
      t.body.refresh_token,
      proxyState,
      forgeCode,
    ]) {
      expect(all).not.toContain(secret);
    }
    expect(all).not.toMatch(/"(access_token|refresh_token|code_verifier)":"[^[]/);
  });
});
