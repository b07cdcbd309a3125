import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CookieJar } from "../browser.js";
import { APP_ID, CLIENT_CB, type Forge, seedApp, startForge } from "../forge-sim.js";
import { getManual, postForm, type RunningForgeMcp, SECRET, startForgeMcp } from "../helpers.js";
import { authorizeUrl, newClient, pkce, redeem } from "../oauth-client.js";

/**
 * Consent bound to the browser that gave it (src/oauth/callback-binding.ts). The attack: someone
 * registers a client, approves our consent page in his own browser and keeps the forge authorize
 * URL it releases; a victim who opens that URL must not send their forge code through our
 * /callback to the attacker's redirect URI. Memory mode and stateless mode without Redis here
 * (oauth/stateless-redis.e2e.test.ts has the Redis row); http (unprefixed) and https (`__Host-`) forms.
 */

const PUBLIC_HTTPS = "https://mcp.example";

type Row = { name: string; approveOn: () => RunningForgeMcp; callbackOn: () => RunningForgeMcp };

describe("consent bound to the browser that gave it", () => {
  let forge: Forge;
  const s: Record<string, RunningForgeMcp> = {};
  const base = () => ({
    FORGE_MCP_OAUTH: "true",
    FORGE_OAUTH_CALLBACK_PROXY: "true",
    FORGE_OAUTH_APP_ID: APP_ID,
    FORGE_API_URL: forge.apiUrl,
    OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: "1000",
  });

  beforeAll(async () => {
    forge = await startForge();
    s.memory = await startForgeMcp(base());
    const stateless = { ...base(), OAUTH_STATELESS_MODE: "true", OAUTH_STATELESS_SECRET: SECRET };
    s.replica1 = await startForgeMcp(stateless);
    s.replica2 = await startForgeMcp({ ...stateless, MCP_SERVER_URL: s.replica1.url });
    // https public URL, reached on its loopback listener (as behind a TLS-terminating proxy)
    s.https = await startForgeMcp({ ...base(), MCP_SERVER_URL: PUBLIC_HTTPS });
    await seedApp(forge, [
      `${s.memory.url}/callback`,
      `${s.replica1.url}/callback`,
      `${PUBLIC_HTTPS}/callback`,
    ]);
  });
  afterAll(async () => {
    await Promise.all(Object.values(s).map((x) => x.close()));
    await forge?.close();
  });

  /** One browser's approval on our consent page: the forge URL it releases, and its cookie jar. */
  async function approve(server: RunningForgeMcp, clientId: string, challenge: string, state: string) {
    const jar = new CookieJar();
    const start = new URL(authorizeUrl(server.url, clientId, challenge, state));
    const page = await getManual(start.href);
    jar.store(start, page.headers.getSetCookie());
    const field = (n: string) => page.text.match(new RegExp(`name="${n}" value="([^"]+)"`))![1]!;
    const consentUrl = new URL(`${server.url}/authorize/consent`);
    const approved = await postForm(
      consentUrl.href,
      { state: field("state"), consent_token: field("consent_token"), decision: "approve" },
      { cookie: jar.header(consentUrl)! },
    );
    expect(approved.status).toBe(302);
    jar.store(consentUrl, approved.headers.getSetCookie());
    return { forgeUrl: approved.headers.get("location")!, jar, setCookies: approved.headers.getSetCookie() };
  }

  /** The forge's leg (its user approves at once): the /callback URL, on the listener of `server`. */
  async function atForge(forgeUrl: string, server: RunningForgeMcp) {
    const cb = new URL((await getManual(forgeUrl)).location!);
    return new URL(`${server.url}${cb.pathname}${cb.search}`);
  }

  const forgeTokenCalls = async () =>
    (
      (await (await fetch(`${forge.origin}/_sim/log`)).json()) as { entries: Array<{ path: string }> }
    ).entries.filter((e) => e.path === "/oauth/token").length;

  const rows: Row[] = [
    { name: "memory mode", approveOn: () => s.memory!, callbackOn: () => s.memory! },
    { name: "stateless, two replicas", approveOn: () => s.replica1!, callbackOn: () => s.replica2! },
  ];

  it.each(rows)(
    "$name: the victim's browser, without the approver's cookie, is refused at /callback: no code, no forge exchange",
    async (row) => {
      const attacker = await newClient(row.approveOn().url, "attacker");
      const p = pkce();
      const { forgeUrl } = await approve(row.approveOn(), attacker, p.challenge, "attacker-state");
      // the victim opens the released URL in their own browser, signed in at the forge
      const callback = await atForge(forgeUrl, row.callbackOn());
      await fetch(`${forge.origin}/_sim/log`, { method: "DELETE" });
      const r = await getManual(callback.href);
      expect(r.status).toBe(403);
      expect(r.location).toBeNull();
      expect(r.headers.get("content-type")).toMatch(/^text\/html/);
      expect(r.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(r.text).toContain("cannot be completed in this browser");
      // nothing of the transaction on the page: not the forge code, the state or the client's URI
      expect(r.text).not.toContain(callback.searchParams.get("code")!);
      expect(r.text).not.toContain(callback.searchParams.get("state")!);
      expect(r.text).not.toContain(CLIENT_CB);
      expect(await forgeTokenCalls()).toBe(0);
    },
  );

  it.each(rows)(
    "$name: the approving browser completes, and its cookie is cleared at /callback",
    async (row) => {
      const clientId = await newClient(row.approveOn().url);
      const p = pkce();
      const { forgeUrl, jar } = await approve(row.approveOn(), clientId, p.challenge, "own");
      const callback = await atForge(forgeUrl, row.callbackOn());
      const name = jar.names(row.approveOn().url).find((n) => n.startsWith("forge_mcp_cb_"))!;
      const r = await getManual(callback.href, { cookie: jar.header(new URL(row.approveOn().url))! });
      expect(r.status).toBe(302);
      const to = new URL(r.location!);
      expect(to.searchParams.get("state")).toBe("own");
      const cleared = r.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))!;
      expect(cleared).toMatch(/^forge_mcp_cb_[\w-]{16}=; Path=\/; Expires=Thu, 01 Jan 1970/);
      expect(
        (await redeem(row.callbackOn().url, clientId, to.searchParams.get("code")!, p.verifier)).status,
      ).toBe(200);
    },
  );

  it("a cookie of another transaction does not open this one (two sign-ins in one browser stay apart)", async () => {
    const clientId = await newClient(s.memory!.url);
    const a = await approve(s.memory!, clientId, pkce().challenge, "a");
    const b = await approve(s.memory!, clientId, pkce().challenge, "b");
    const cbA = await atForge(a.forgeUrl, s.memory!);
    const cbB = await atForge(b.forgeUrl, s.memory!);
    const pair = (jar: CookieJar) =>
      jar
        .header(new URL(s.memory!.url))!
        .split("; ")
        .find((c) => c.startsWith("forge_mcp_cb_"))!;
    const [nameA] = pair(a.jar).split("=");
    const [, valueB] = pair(b.jar).split("=");
    // B's value under A's name: refused
    expect((await getManual(cbA.href, { cookie: `${nameA}=${valueB}` })).status).toBe(403);
    // one browser holding both cookies completes both, in either order
    const both = `${pair(a.jar)}; ${pair(b.jar)}`;
    expect((await getManual(cbB.href, { cookie: both })).status).toBe(302);
    expect((await getManual(cbA.href, { cookie: both })).status).toBe(302);
  });

  it("https MCP_SERVER_URL: the cookie is __Host-, Secure, Path=/, HttpOnly, SameSite=Lax, and /callback wants it", async () => {
    const clientId = await newClient(s.https!.url);
    const { forgeUrl, setCookies } = await approve(s.https!, clientId, pkce().challenge, "tls");
    const binding = setCookies.find((c) => c.includes("forge_mcp_cb_"))!;
    expect(binding).toMatch(/^__Host-forge_mcp_cb_[\w-]{16}=[\w-]+; /);
    const attrs = binding.split("; ").slice(1);
    expect(attrs).toEqual(expect.arrayContaining(["Path=/", "HttpOnly", "Secure", "SameSite=Lax"]));
    expect(attrs.some((a) => /^domain=/i.test(a))).toBe(false);
    const callback = await atForge(forgeUrl, s.https!);
    const cookie = binding.split(";")[0]!;
    // the unprefixed name (a cookie an http page could plant) does not stand in for it
    expect((await getManual(callback.href, { cookie: cookie.replace(/^__Host-/, "") })).status).toBe(403);
    expect((await getManual(callback.href)).status).toBe(403);
    const r = await getManual(callback.href, { cookie });
    expect(r.status).toBe(302);
    expect(r.headers.getSetCookie().find((c) => c.startsWith("__Host-"))).toMatch(/Secure/);
  });

  it("http loopback MCP_SERVER_URL: the cookie is unprefixed, HttpOnly, SameSite=Lax, not Secure", async () => {
    const clientId = await newClient(s.memory!.url);
    const { setCookies } = await approve(s.memory!, clientId, pkce().challenge, "plain");
    const binding = setCookies.find((c) => c.includes("forge_mcp_cb_"))!;
    expect(binding).toMatch(/^forge_mcp_cb_[\w-]{16}=/);
    const attrs = binding.split("; ").slice(1);
    expect(attrs).toEqual(expect.arrayContaining(["Path=/", "HttpOnly", "SameSite=Lax"]));
    expect(attrs).not.toContain("Secure");
  });
});
