import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { browse } from "../browser.js";
import { forgeAndMcp } from "../forge-and-mcp.js";
import { CLIENT_CB } from "../forge-sim.js";
import { SECRET } from "../helpers.js";

/** The raw OAuth endpoints driven by an independent, strict client (panva's oauth4webapi). */

const insecure = { [oauth.allowInsecureRequests]: true };

// Both callback-proxy stores: the memory one and the sealed one of the stateless mode, whose
// refresh tokens carry their client and family (the reuse rows of signin-holes.ts).
describe.each([
  ["memory stores", { FORGE_OAUTH_CALLBACK_PROXY: "true" }],
  [
    "stateless sealed",
    { FORGE_OAUTH_CALLBACK_PROXY: "true", OAUTH_STATELESS_MODE: "true", OAUTH_STATELESS_SECRET: SECRET },
  ],
])("oauth4webapi against forge-mcp (proxy mode with consent, %s)", (_mode, env) => {
  const ctx = forgeAndMcp(env, { callbacks: (url) => [`${url}/callback`] });

  it("discovery → registration → authorization code with PKCE → refresh → revocation", async () => {
    const issuer = new URL(`${ctx.mcp.url}/`);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { ...insecure, algorithm: "oauth2" }),
    );
    expect(as.code_challenge_methods_supported).toEqual(["S256"]);

    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { redirect_uris: [CLIENT_CB], token_endpoint_auth_method: "none", client_name: "oauth4webapi" },
        insecure,
      ),
    );
    const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: "none" };

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: CLIENT_CB,
      response_type: "code",
      scope: "api",
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    }).toString();
    const { url: callback } = await browse(url, CLIENT_CB);
    const params = oauth.validateAuthResponse(as, client, callback, state);

    const exchangeCode = async () =>
      oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(
          as,
          client,
          oauth.None(),
          params,
          CLIENT_CB,
          verifier,
          insecure,
        ),
      );
    const tokens = await exchangeCode();
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.refresh_token).toBeTruthy();

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
    );
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    // The spent refresh token replayed by the same strict client: a typed invalid_grant.
    await expect(
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
      ),
    ).rejects.toMatchObject({ error: "invalid_grant" });

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), refreshed.access_token, insecure),
    );
    const info = await fetch(`${ctx.forge.origin}/oauth/token/info`, {
      headers: { authorization: `Bearer ${refreshed.access_token}` },
    });
    expect(info.status).toBe(401);

    // the same code again is refused with a typed RFC 6749 error (last: it also revokes what the code
    // produced, RFC 6749 §10.5, which oauth/code-replay.test.ts checks)
    await expect(exchangeCode()).rejects.toMatchObject({ error: "invalid_grant" });
  });
});
