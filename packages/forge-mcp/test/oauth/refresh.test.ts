import { describe, expect, it } from "vitest";
import { forgeAndMcp } from "../forge-and-mcp.js";
import { APP_ID } from "../forge-sim.js";
import { postForm, SECRET, testClock } from "../helpers.js";
import { authorizeToCode, newClient, pkce, redeem } from "../oauth-client.js";
import { connectV1 } from "../sdk-clients.js";

/** Two hours later: the forge token has expired and the official client refreshes through us. */

describe("token expiry and refresh with the v1 MCP client (proxy mode)", () => {
  const clock = testClock();
  const ctx = forgeAndMcp(
    { FORGE_OAUTH_CALLBACK_PROXY: "true" },
    { callbacks: (url) => [`${url}/callback`], now: clock.now },
  );

  it("an expired token gets 401 at /mcp; the client refreshes at /token and the call succeeds", async () => {
    const { client, provider } = await connectV1(ctx.mcp.url);
    const first = provider.saved.access_token as string;
    expect((await client.callTool({ name: "whoami", arguments: {} })).isError).toBeFalsy();

    // the forge's clock and ours move past the token's two hours (and past our verification cache)
    await fetch(`${ctx.forge.origin}/_sim/clock`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ advance_seconds: 7300 }),
    });
    clock.advance(7300 * 1000);

    const r = (await client.callTool({ name: "whoami", arguments: {} })) as {
      isError?: boolean;
      content: Array<{ text: string }>;
    };
    expect(r.isError).toBeFalsy();
    expect(JSON.parse(r.content[0]!.text).username).toBe("alice");
    expect(provider.saved.access_token).not.toBe(first);
    await client.close();
  });
});

describe.each([
  ["passthrough", {}],
  ["memory", { FORGE_OAUTH_CALLBACK_PROXY: "true" }],
  [
    "stateless",
    { FORGE_OAUTH_CALLBACK_PROXY: "true", OAUTH_STATELESS_MODE: "true", OAUTH_STATELESS_SECRET: SECRET },
  ],
] as const)("refresh tokens are bound to the client that obtained them (%s mode)", (_mode, extra) => {
  const ctx = forgeAndMcp({ FORGE_OAUTH_CONSENT: "false", ...extra });

  const refresh = (clientId: string, token: string) =>
    postForm(`${ctx.mcp.url}/token`, {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: token,
    });

  it("another client presenting it gets invalid_grant; its own client refreshes, and the new one is bound too", async () => {
    const a = await newClient(ctx.mcp.url, "A");
    const b = await newClient(ctx.mcp.url, "B");
    const p = pkce();
    const { code } = await authorizeToCode(ctx.mcp.url, a, p.challenge);
    const tokens = await redeem(ctx.mcp.url, a, code!, p.verifier);
    expect(tokens.status).toBe(200);
    const rt = tokens.body.refresh_token as string;
    // sealed in every mode: the client never holds the forge's refresh token, so it cannot skip
    // the binding by refreshing at the forge directly
    expect(rt.startsWith("fmcprt1.")).toBe(true);
    const direct = await postForm(`${ctx.forge.origin}/oauth/token`, {
      grant_type: "refresh_token",
      client_id: APP_ID,
      refresh_token: rt,
    });
    expect(direct.status).toBe(400);
    expect(direct.body.error).toBe("invalid_grant");

    const stolen = await refresh(b, rt);
    expect(stolen.status).toBe(400);
    expect(stolen.body.error).toBe("invalid_grant");

    const own = await refresh(a, rt);
    expect(own.status).toBe(200);
    const next = own.body.refresh_token as string;
    expect((await refresh(b, next)).body.error).toBe("invalid_grant");
    expect((await refresh(a, next)).status).toBe(200);
  });
});
