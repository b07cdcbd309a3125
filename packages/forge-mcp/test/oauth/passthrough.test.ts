import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_ID, CLIENT_CB, type Forge, seedApp, startForge } from "../forge-sim.js";
import { getManual, type RunningForgeMcp, startForgeMcp } from "../helpers.js";
import { authorizeToCode, authorizeUrl, newClient, pkce, redeem } from "../oauth-client.js";

/** Passthrough mode: the server keeps no authorization state and relays /token to the forge. */

describe("passthrough mode", () => {
  let forge: Forge;
  let mcp: RunningForgeMcp;
  let proxy: RunningForgeMcp;

  beforeAll(async () => {
    forge = await startForge();
    const env = { FORGE_MCP_OAUTH: "true", FORGE_OAUTH_APP_ID: APP_ID, FORGE_API_URL: forge.apiUrl };
    mcp = await startForgeMcp(env);
    proxy = await startForgeMcp({ ...env, FORGE_OAUTH_CALLBACK_PROXY: "true", FORGE_OAUTH_CONSENT: "false" });
    // the forge knows the client's callback (passthrough) and the proxy's callback, nothing else
    await seedApp(forge, [CLIENT_CB, `${proxy.url}/callback`]);
  });
  afterAll(async () => {
    await mcp?.close();
    await proxy?.close();
    await forge?.close();
  });

  it("the forge redirects straight to the client; /token relays the code and verifier with the real app id", async () => {
    const clientId = await newClient(mcp.url);
    const p = pkce();
    const r = await authorizeToCode(mcp.url, clientId, p.challenge, "pt-state");
    expect(r.hops.map((h) => h.replace(/http:\/\/127\.0\.0\.1:\d+/, ""))).toEqual([
      "GET /authorize",
      "GET /oauth/authorize",
    ]);
    expect(r.state).toBe("pt-state");
    const t = await redeem(mcp.url, clientId, r.code!, p.verifier);
    expect(t.status).toBe(200);
    expect(t.body.token_type).toBe("Bearer");
  });

  it("relays the forge's invalid_grant (replayed code, wrong verifier) with a generic message", async () => {
    const clientId = await newClient(mcp.url);
    const p = pkce();
    const { code } = await authorizeToCode(mcp.url, clientId, p.challenge);
    const wrong = await redeem(mcp.url, clientId, code!, pkce().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe("invalid_grant");
    expect(wrong.body.error_description).not.toMatch(/redirection URI/); // ours, not the forge's text
  });

  it("an unregistered client callback is refused by the forge (no redirect); proxy mode is the remedy", async () => {
    const other = "http://127.0.0.1:9999/elsewhere";
    const reg = await fetch(`${mcp.url}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [other] }),
    });
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const p = pkce();
    const u = new URL(authorizeUrl(mcp.url, clientId, p.challenge, "x"));
    u.searchParams.set("redirect_uri", other);
    const toForge = await getManual(u.href);
    const atForge = await getManual(toForge.location!);
    expect(atForge.status).toBe(400);
    expect(atForge.location).toBeNull();
    expect(atForge.text).toContain("The redirect URI included is not valid.");

    // the same kind of client through the proxy: the forge only ever sees {MCP_SERVER_URL}/callback
    const reg2 = await fetch(`${proxy.url}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [other] }),
    });
    const proxyClient = ((await reg2.json()) as { client_id: string }).client_id;
    const v = new URL(authorizeUrl(proxy.url, proxyClient, p.challenge, "x"));
    v.searchParams.set("redirect_uri", other);
    const hop1 = await getManual(v.href);
    const hop2 = await getManual(hop1.location!);
    expect(hop2.status).toBe(302);
    expect(hop2.location!.startsWith(`${proxy.url}/callback?`)).toBe(true);
    const binding = hop1.headers.getSetCookie()[0]!.split(";")[0]!;
    const hop3 = await getManual(hop2.location!, { cookie: binding });
    expect(hop3.location!.startsWith(`${other}?code=`)).toBe(true);
  });
});
