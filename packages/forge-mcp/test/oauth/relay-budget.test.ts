import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { forgeAndMcp } from "../forge-and-mcp.js";
import { forgeCallsSince, forgeLogSeq } from "../forge-sim.js";
import { postForm, SECRET } from "../helpers.js";
import { authorizeToCode, newClient, pkce, redeem } from "../oauth-client.js";

/**
 * /token (refresh) and /revoke relay to the forge: one address sending random refresh tokens or
 * revocations gets at most OAUTH_TOKEN_RELAY_RATE_LIMIT_PER_MINUTE forge calls a minute, then 429
 * without a forge call; a refused refresh token is refused again from memory; other addresses are
 * not affected.
 */

const BUDGET = 5;
const FLOOD = 80;

describe.each([
  ["passthrough", { FORGE_OAUTH_CALLBACK_PROXY: "false" }],
  ["memory", {}],
  ["stateless", { OAUTH_STATELESS_MODE: "true", OAUTH_STATELESS_SECRET: SECRET }],
] as const)("the forge relay budget of /token and /revoke (%s mode)", (_mode, extra) => {
  const attacker = { "x-forwarded-for": "198.51.100.7" };
  const ctx = forgeAndMcp({
    FORGE_OAUTH_CALLBACK_PROXY: "true",
    FORGE_OAUTH_CONSENT: "false",
    MCP_TRUST_PROXY: "loopback",
    OAUTH_TOKEN_RELAY_RATE_LIMIT_PER_MINUTE: String(BUDGET),
    ...extra,
  });

  it(`${FLOOD} random refresh tokens and ${FLOOD} revocations from one address: at most the budget reaches the forge; another address still refreshes`, async () => {
    const { forge, mcp } = ctx;
    const user = await newClient(mcp.url, "user");
    const p = pkce();
    const { code } = await authorizeToCode(mcp.url, user, p.challenge);
    const rt = (await redeem(mcp.url, user, code!, p.verifier)).body.refresh_token as string;
    const flooder = await newClient(mcp.url, "flooder");

    let since = await forgeLogSeq(forge);
    const statuses = new Set<number>();
    let retryAfter: string | null = null;
    for (let i = 0; i < FLOOD; i++) {
      const r = await postForm(
        `${mcp.url}/token`,
        { grant_type: "refresh_token", client_id: flooder, refresh_token: randomBytes(16).toString("hex") },
        attacker,
      );
      statuses.add(r.status);
      if (r.status === 429) retryAfter = r.headers.get("retry-after");
    }
    expect(await forgeCallsSince(forge, since, "/oauth/token")).toBeLessThanOrEqual(BUDGET);
    expect([...statuses].every((s) => s === 400 || s === 429)).toBe(true);
    if (statuses.has(429)) expect(Number(retryAfter)).toBeGreaterThan(0);

    since = await forgeLogSeq(forge);
    retryAfter = null;
    const revokes: number[] = [];
    for (let i = 0; i < FLOOD; i++) {
      // another address: /token and /revoke share one budget per address
      const r = await postForm(
        `${mcp.url}/revoke`,
        // a known client: /revoke refuses an unknown one without a forge call (RFC 7009 §2.1)
        { token: randomBytes(16).toString("hex"), client_id: flooder },
        { "x-forwarded-for": "198.51.100.9" },
      );
      revokes.push(r.status);
      if (r.status === 429) retryAfter = r.headers.get("retry-after");
    }
    expect(await forgeCallsSince(forge, since, "/oauth/revoke")).toBe(BUDGET);
    expect(revokes.slice(0, BUDGET).every((s) => s === 200)).toBe(true);
    expect(revokes.slice(BUDGET).every((s) => s === 429)).toBe(true);
    expect(Number(retryAfter)).toBeGreaterThan(0);

    // the legitimate user, from another address, is not affected
    const own = await postForm(`${mcp.url}/token`, {
      grant_type: "refresh_token",
      client_id: user,
      refresh_token: rt,
    });
    expect(own.status).toBe(200);
    expect(typeof own.body.access_token).toBe("string");
  });

  it("a refresh token the forge refused is refused again without a forge call", async () => {
    const { forge, mcp } = ctx;
    const user = await newClient(mcp.url, "owner");
    const p = pkce();
    const { code } = await authorizeToCode(mcp.url, user, p.challenge);
    const rt = (await redeem(mcp.url, user, code!, p.verifier)).body.refresh_token as string;
    const form = { grant_type: "refresh_token", client_id: user, refresh_token: rt };
    expect((await postForm(`${mcp.url}/token`, form)).status).toBe(200);
    // the used refresh token is refused without asking the forge: its family knows it was used
    // (and its reuse revokes the family: test/oauth/signin-holes.ts)
    const since = await forgeLogSeq(forge);
    for (let i = 0; i < 3; i++) {
      const r = await postForm(`${mcp.url}/token`, form, { "x-forwarded-for": "198.51.100.8" });
      expect(r.body.error).toBe("invalid_grant");
    }
    expect(await forgeCallsSince(forge, since, "/oauth/token")).toBe(0);
  });
});
