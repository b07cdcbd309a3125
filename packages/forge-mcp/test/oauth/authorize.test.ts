import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PENDING_PER_SOURCE } from "../../src/oauth/stores.js";
import { floodGets, getManual, postForm, type RunningForgeMcp, register, startForgeMcp } from "../helpers.js";

const FORGE = "http://127.0.0.1:9";
const env = {
  FORGE_MCP_OAUTH: "true",
  FORGE_OAUTH_APP_ID: "real-app-id",
  FORGE_API_URL: `${FORGE}/api/v4`,
  OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: "100000",
};
const CLIENT_CB = "http://127.0.0.1:4444/callback";
const verifier = "v".repeat(50);
const challenge = createHash("sha256").update(verifier).digest("base64url");

function authorizeUrl(base: string, clientId: string, extra: Record<string, string> = {}) {
  const u = new URL(`${base}/authorize`);
  const p = {
    client_id: clientId,
    redirect_uri: CLIENT_CB,
    response_type: "code",
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "client-state-1",
    ...extra,
  };
  for (const [k, v] of Object.entries(p)) u.searchParams.set(k, v);
  return u.href;
}

describe("GET /authorize, passthrough mode", () => {
  let mcp: RunningForgeMcp;
  let clientId: string;
  beforeAll(async () => {
    mcp = await startForgeMcp(env);
    clientId = (await register(mcp.url, { redirect_uris: [CLIENT_CB] })).body.client_id;
  });
  afterAll(() => mcp.close());

  it("redirects to the forge with the real app id and the client's own redirect_uri, challenge and state", async () => {
    const r = await getManual(authorizeUrl(mcp.url, clientId));
    expect(r.status).toBe(302);
    const to = new URL(r.location!);
    expect(to.origin + to.pathname).toBe(`${FORGE}/oauth/authorize`);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      client_id: "real-app-id",
      redirect_uri: CLIENT_CB,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "client-state-1",
      response_type: "code",
    });
  });

  it("has no /callback route", async () => {
    expect((await getManual(`${mcp.url}/callback?state=x&code=y`)).status).toBe(404);
  });
});

describe("GET /authorize, proxy mode", () => {
  let mcp: RunningForgeMcp;
  let direct: RunningForgeMcp;
  let clientId: string;
  let directClientId: string;
  beforeAll(async () => {
    mcp = await startForgeMcp({ ...env, FORGE_OAUTH_CALLBACK_PROXY: "true" });
    direct = await startForgeMcp({
      ...env,
      FORGE_OAUTH_CALLBACK_PROXY: "true",
      FORGE_OAUTH_CONSENT: "false",
    });
    clientId = (await register(mcp.url, { redirect_uris: [CLIENT_CB], client_name: "Editor <b>X</b>" })).body
      .client_id;
    directClientId = (await register(direct.url, { redirect_uris: [CLIENT_CB] })).body.client_id;
  });
  afterAll(async () => {
    await mcp.close();
    await direct.close();
  });

  it("none → pending transaction: redirects to the forge with the server callback, a proxy challenge and a proxy state", async () => {
    const r = await getManual(authorizeUrl(direct.url, directClientId));
    expect(r.status).toBe(302);
    const q = new URL(r.location!).searchParams;
    expect(q.get("client_id")).toBe("real-app-id");
    expect(q.get("redirect_uri")).toBe(`${direct.url}/callback`);
    expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("code_challenge")).not.toBe(challenge);
    expect(q.get("state")).not.toBe("client-state-1");
    expect(q.get("code_challenge_method")).toBe("S256");
  });

  it("shows a consent page naming the client and its redirect URI before going to the forge", async () => {
    const r = await getManual(authorizeUrl(mcp.url, clientId));
    expect(r.status).toBe(200);
    expect(r.text).toContain("Editor &lt;b&gt;X&lt;/b&gt;");
    expect(r.text).toContain(CLIENT_CB);
    expect(r.headers.get("x-frame-options")).toBe("DENY");
    // form-action: the form's redirect chain may reach us, the forge and the client, nothing else
    const csp = r.headers.get("content-security-policy")!;
    const formAction = csp.split("; ").find((d) => d.startsWith("form-action "));
    expect(formAction).toBe(
      `form-action 'self' ${new URL(env.FORGE_API_URL).origin} ${new URL(CLIENT_CB).origin}`,
    );
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(r.headers.get("set-cookie")).toMatch(/forge_mcp_consent_[\w-]{16}=.*HttpOnly.*SameSite=Strict/i);
  });

  async function consentForm() {
    const r = await getManual(authorizeUrl(mcp.url, clientId));
    const field = (name: string) => r.text.match(new RegExp(`name="${name}" value="([^"]+)"`))![1]!;
    const cookie = r.headers.get("set-cookie")!.split(";")[0]!;
    return { state: field("state"), token: field("consent_token"), cookie };
  }

  it("approving the consent redirects to the forge with the server callback", async () => {
    const f = await consentForm();
    const r = await postForm(
      `${mcp.url}/authorize/consent`,
      { state: f.state, consent_token: f.token, decision: "approve" },
      { cookie: f.cookie },
    );
    expect(r.status).toBe(302);
    const to = new URL(r.headers.get("location")!);
    expect(to.searchParams.get("redirect_uri")).toBe(`${mcp.url}/callback`);
    expect(to.searchParams.get("state")).toBe(f.state);
  });

  it("denying sends access_denied with the client's state back to the client", async () => {
    const f = await consentForm();
    const r = await postForm(
      `${mcp.url}/authorize/consent`,
      { state: f.state, consent_token: f.token, decision: "deny" },
      { cookie: f.cookie },
    );
    const to = new URL(r.headers.get("location")!);
    expect(to.origin + to.pathname).toBe(CLIENT_CB);
    expect(to.searchParams.get("error")).toBe("access_denied");
    expect(to.searchParams.get("state")).toBe("client-state-1");
  });

  it("refuses a consent POST without the browser's cookie (cross-site request)", async () => {
    const f = await consentForm();
    const r = await postForm(`${mcp.url}/authorize/consent`, {
      state: f.state,
      consent_token: f.token,
      decision: "approve",
    });
    expect(r.status).toBe(403);
    expect(r.headers.get("location")).toBeNull();
  });

  it("two authorizations in two tabs of one browser both go through", async () => {
    const a = await consentForm();
    const b = await consentForm();
    const jar = `${a.cookie}; ${b.cookie}`;
    for (const f of [b, a]) {
      const r = await postForm(
        `${mcp.url}/authorize/consent`,
        { state: f.state, consent_token: f.token, decision: "approve" },
        { cookie: jar },
      );
      expect(r.status).toBe(302);
    }
  });

  it("refuses a consent token moved to another transaction", async () => {
    const a = await consentForm();
    const b = await consentForm();
    const r = await postForm(
      `${mcp.url}/authorize/consent`,
      { state: b.state, consent_token: a.token, decision: "approve" },
      { cookie: a.cookie },
    );
    expect(r.status).toBe(403);
  });

  it("does not process a /callback without a state", async () => {
    const r = await getManual(`${mcp.url}/callback?code=abc`);
    expect(r.status).toBe(400);
    expect(r.location).toBeNull();
    expect(JSON.parse(r.text).error).toBe("invalid_request");
  });
});

describe("authorization request validation", () => {
  let mcp: RunningForgeMcp;
  let clientId: string;
  beforeAll(async () => {
    mcp = await startForgeMcp({ ...env, FORGE_OAUTH_CALLBACK_PROXY: "true", FORGE_OAUTH_CONSENT: "false" });
    clientId = (await register(mcp.url, { redirect_uris: [CLIENT_CB] })).body.client_id;
  });
  afterAll(() => mcp.close());

  it("a foreign redirect URI gets a 400 and no redirect", async () => {
    const r = await getManual(
      authorizeUrl(mcp.url, clientId, { redirect_uri: "https://attacker.example/cb" }),
    );
    expect(r.status).toBe(400);
    expect(r.location).toBeNull();
    expect(JSON.parse(r.text)).toEqual({ error: "invalid_request", error_description: expect.any(String) });
  });

  it.each([
    ["userinfo on the loopback host", "http://evil@127.0.0.1:8765/callback"],
    ["a fragment", "http://127.0.0.1:8765/callback#frag"],
    ["a backslash", "http://127.0.0.1:8765\\callback"],
  ])(
    "a requested redirect URI that registration would refuse (%s) gets a 400 and no redirect",
    async (_n, uri) => {
      const r = await getManual(authorizeUrl(mcp.url, clientId, { redirect_uri: uri }));
      expect(r.status).toBe(400);
      expect(r.location).toBeNull();
    },
  );

  it("an unknown client gets a 400 and no redirect", async () => {
    const r = await getManual(authorizeUrl(mcp.url, "00000000-0000-0000-0000-000000000000"));
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error).toBe("invalid_client");
  });

  it("accepts the registered loopback redirect on another port (RFC 8252)", async () => {
    const r = await getManual(
      authorizeUrl(mcp.url, clientId, { redirect_uri: "http://127.0.0.1:5555/callback" }),
    );
    expect(r.status).toBe(302);
    expect(new URL(r.location!).origin).toBe("http://127.0.0.1:9");
  });

  const pkceCases: Array<[string, Record<string, string>]> = [
    ["empty code_challenge", { code_challenge: "" }],
    ["short code_challenge", { code_challenge: "abc" }],
    ["plain method", { code_challenge_method: "plain" }],
    ["missing method", { code_challenge_method: "" }],
  ];
  /** The RFC 9700 §4.11 page: status 400, no Location, and a link back to the client with the error. */
  async function errorPage(extra: Record<string, string>, cookie?: string) {
    const r = await getManual(authorizeUrl(mcp.url, clientId, extra), cookie ? { cookie } : {});
    expect(r.status).toBe(400);
    expect(r.location).toBeNull();
    const href = r.text.match(/<a id="back" href="([^"]+)"/)![1]!.replace(/&amp;/g, "&");
    return new URL(href);
  }

  it.each(pkceCases)(
    "PKCE is mandatory: %s → invalid_request, offered to the client with its state on a page",
    async (_n, extra) => {
      const to = await errorPage(extra);
      expect(to.origin + to.pathname).toBe(CLIENT_CB);
      expect(to.searchParams.get("error")).toBe("invalid_request");
      expect(to.searchParams.get("state")).toBe("client-state-1");
    },
  );

  it.each([
    ["this server's /mcp URL", 302, (u: string) => `${u}/mcp`],
    ["this server's base URL", 302, (u: string) => u],
    ["another server", 400, () => "https://other.example/mcp"],
    ["not a URL", 400, () => "mcp"],
  ] as const)("RFC 8707: resource naming %s → %i", async (_n, status, resource) => {
    const r = await getManual(authorizeUrl(mcp.url, clientId, { resource: resource(mcp.url) }));
    expect(r.status).toBe(status);
    if (status === 400) expect(r.text).toContain("<code>invalid_target</code>");
  });

  it("RFC 8707 at /token: a resource naming another server is invalid_target", async () => {
    const t = await postForm(`${mcp.url}/token`, {
      grant_type: "authorization_code",
      client_id: clientId,
      code: "x",
      code_verifier: "v".repeat(43),
      resource: "https://other.example/mcp",
    });
    expect(t.status).toBe(400);
    expect(t.body.error).toBe("invalid_target");
  });

  it("rejects response types other than code", async () => {
    const to = await errorPage({ response_type: "token" });
    expect(to.searchParams.get("error")).toBe("unsupported_response_type");
  });

  it("RFC 9700 §4.11: errors redirect automatically only after this browser's user approved the client once", async () => {
    const consenting = await startForgeMcp({ ...env, FORGE_OAUTH_CALLBACK_PROXY: "true" });
    try {
      const id = (await register(consenting.url, { redirect_uris: [CLIENT_CB], client_name: "Once" })).body
        .client_id as string;
      const bad = authorizeUrl(consenting.url, id, { response_type: "token" });
      expect((await getManual(bad)).status).toBe(400);
      // approve once on the consent page
      const page = await getManual(authorizeUrl(consenting.url, id));
      const field = (n: string) => page.text.match(new RegExp(`name="${n}" value="([^"]+)"`))![1]!;
      const approved = await postForm(
        `${consenting.url}/authorize/consent`,
        { state: field("state"), consent_token: field("consent_token"), decision: "approve" },
        { cookie: page.headers.get("set-cookie")!.split(";")[0]! },
      );
      expect(approved.status).toBe(302);
      const trust = approved.headers.get("set-cookie")!;
      expect(trust).toMatch(/^forge_mcp_trusted_[\w-]{16}=[\w-]+;.*HttpOnly.*SameSite=Lax/i);
      const cookie = trust.split(";")[0]!;
      const r = await getManual(bad, { cookie });
      expect(r.status).toBe(302);
      expect(new URL(r.location!).searchParams.get("error")).toBe("unsupported_response_type");
      // the mark is bound to its client: another client with the same cookie still gets the page
      const other = (await register(consenting.url, { redirect_uris: [CLIENT_CB] })).body.client_id as string;
      const name = cookie.split("=")[0]!;
      const forged = `${name.replace(/.$/, (c) => (c === "A" ? "B" : "A"))}=${cookie.split("=")[1]}`;
      for (const c of [cookie, forged])
        expect(
          (await getManual(authorizeUrl(consenting.url, other, { response_type: "token" }), { cookie: c }))
            .status,
        ).toBe(400);
    } finally {
      await consenting.close();
    }
  });

  it("evicts the least recently used entry when the store passes 1000 entries (1001 sources)", async () => {
    const spread = await startForgeMcp({
      ...env,
      FORGE_OAUTH_CALLBACK_PROXY: "true",
      FORGE_OAUTH_CONSENT: "false",
      MCP_TRUST_PROXY: "loopback",
    });
    try {
      const id = (await register(spread.url, { redirect_uris: [CLIENT_CB] })).body.client_id as string;
      const from = (i: number) => ({ "x-forwarded-for": `198.51.${Math.floor(i / 250)}.${i % 250}` });
      const state = (r: { location: string | null }) => new URL(r.location!).searchParams.get("state")!;
      // the first (the least recently used) and the last on their own, the 999 between side by side
      const first = await getManual(authorizeUrl(spread.url, id), from(0));
      const firstCookie = first.headers.getSetCookie()[0]!.split(";")[0]!;
      const between = await floodGets(999, (i) => [authorizeUrl(spread.url, id), from(i + 1)]);
      expect(between.filter((r) => r.status === 302 && state(r))).toHaveLength(999);
      const last = await getManual(authorizeUrl(spread.url, id), from(1000));
      const store = spread.server.memoryStore!;
      expect(store.size).toBe(1000);
      expect(store.has(`txn:${state(first)}`)).toBe(false);
      expect(store.has(`txn:${state(last)}`)).toBe(true);
      // the evicted transaction's callback is not processed
      const r = await getManual(`${spread.url}/callback?state=${encodeURIComponent(state(first))}&code=x`, {
        cookie: firstCookie,
      });
      expect(r.status).toBe(400);
    } finally {
      await spread.close();
    }
  });

  it("one source cannot flush the store: 1000 anonymous /authorize calls from one address evict only its own", async () => {
    const server = await startForgeMcp({
      ...env,
      FORGE_OAUTH_CALLBACK_PROXY: "true",
      FORGE_OAUTH_CONSENT: "false",
      MCP_TRUST_PROXY: "loopback",
    });
    try {
      const id = (await register(server.url, { redirect_uris: [CLIENT_CB] })).body.client_id as string;
      const victim = await getManual(authorizeUrl(server.url, id), { "x-forwarded-for": "203.0.113.1" });
      const victimState = new URL(victim.location!).searchParams.get("state")!;
      const from = { "x-forwarded-for": "198.51.100.9" };
      const answers = await floodGets(1000, () => [authorizeUrl(server.url, id), from]);
      expect(answers.filter((r) => r.status === 302)).toHaveLength(1000);
      const store = server.server.memoryStore!;
      expect(store.has(`txn:${victimState}`)).toBe(true);
      expect(store.size).toBe(1 + PENDING_PER_SOURCE);
    } finally {
      await server.close();
    }
  });
});
