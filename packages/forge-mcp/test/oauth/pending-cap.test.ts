import { describe, expect, it } from "vitest";
import { PENDING_PER_SOURCE } from "../../src/oauth/stores.js";
import { browse, CookieJar } from "../browser.js";
import { forgeAndMcp } from "../forge-and-mcp.js";
import { CLIENT_CB } from "../forge-sim.js";
import { authorizeUrl, forgeAuthorizeHop, newClient, pkce, redeem } from "../oauth-client.js";

/**
 * Memory mode: every pending entry counts against its client address's cap, pending authorize
 * transactions and unredeemed proxy codes alike. One address completing sign-ins it never
 * redeems churns its own oldest entries, never another user's pending approval or code.
 */

describe("the per-address cap of pending entries counts unredeemed proxy codes (memory mode)", () => {
  const ctx = forgeAndMcp({
    FORGE_OAUTH_CALLBACK_PROXY: "true",
    FORGE_OAUTH_CONSENT: "false",
    MCP_TRUST_PROXY: "loopback",
  });

  it("one address's unredeemed sign-ins evict only its own entries; another's pending approval and code still succeed", async () => {
    const { mcp } = ctx;
    const victim = { "x-forwarded-for": "203.0.113.1" };
    const flood = { "x-forwarded-for": "198.51.100.7" };
    const client = await newClient(mcp.url, "shared client");
    const store = mcp.server.memoryStore!;

    // the victim: one sign-in completed but not yet redeemed, one still at the forge's approval
    const done = pkce();
    const signedIn = await browse(authorizeUrl(mcp.url, client, done.challenge, "v1"), CLIENT_CB, {
      headers: victim,
    });
    const victimCode = signedIn.url.searchParams.get("code")!;
    const pending = pkce();
    const hop = await forgeAuthorizeHop(mcp.url, client, pending.challenge, "v2");
    // the victim's browser keeps the callback-binding cookie it got with the forge URL
    const victimJar = new CookieJar();
    victimJar.store(new URL(mcp.url), [hop.cookie]);
    expect(store.size).toBe(2);

    // the flood: more complete sign-ins from one address than its cap, none redeemed
    const codes: string[] = [];
    for (let i = 0; i < PENDING_PER_SOURCE + 5; i++) {
      const p = pkce();
      const r = await browse(authorizeUrl(mcp.url, client, p.challenge, `f${i}`), CLIENT_CB, {
        headers: flood,
      });
      codes.push(r.url.searchParams.get("code")!);
    }
    expect(store.size).toBe(2 + PENDING_PER_SOURCE);
    expect(store.has(`code:${codes[0]}`)).toBe(false);
    expect(store.has(`code:${codes.at(-1)}`)).toBe(true);

    // the victim's pending approval completes, and both of its codes redeem
    const approved = await browse(hop.location, CLIENT_CB, { headers: victim, jar: victimJar });
    const approvedCode = approved.url.searchParams.get("code");
    expect(approvedCode).toBeTruthy();
    expect((await redeem(mcp.url, client, victimCode, done.verifier)).status).toBe(200);
    expect((await redeem(mcp.url, client, approvedCode!, pending.verifier)).status).toBe(200);
  });
});
