import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browse } from "../browser.js";
import { APP_ID, CLIENT_CB, type Forge, seedApp, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "../helpers.js";

/** The raw OAuth endpoints driven by an independent, strict client (panva's oauth4webapi). */

const insecure = { [oauth.allowInsecureRequests]: true };

describe("oauth4webapi against forge-mcp (proxy mode with consent)", () => {
  let forge: Forge;
  let mcp: RunningForgeMcp;

  beforeAll(async () => {
    forge = await startForge();
    mcp = await startForgeMcp({
      FORGE_MCP_OAUTH: "true",
      FORGE_OAUTH_CALLBACK_PROXY: "true",
      FORGE_OAUTH_APP_ID: APP_ID,
      FORGE_API_URL: forge.apiUrl,
    });
    await seedApp(forge, [`${mcp.url}/callback`]);
  });
  afterAll(async () => {
    await mcp?.close();
    await forge?.close();
  });

  it("discovery → registration → authorization code with PKCE → refresh → revocation", async () => {
    const issuer = new URL(`${mcp.url}/`);
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

    const tokens = await oauth.processAuthorizationCodeResponse(
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
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.refresh_token).toBeTruthy();

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
    );
    expect(refreshed.access_token).not.toBe(tokens.access_token);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), refreshed.access_token, insecure),
    );
    const info = await fetch(`${forge.origin}/oauth/token/info`, {
      headers: { authorization: `Bearer ${refreshed.access_token}` },
    });
    expect(info.status).toBe(401);

    // the same code again is refused with a typed RFC 6749 error (last: it also revokes what the code
    // produced, RFC 6749 §10.5, which oauth/code-replay.test.ts checks)
    await expect(
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
      ),
    ).rejects.toMatchObject({ error: "invalid_grant" });
  });
});
