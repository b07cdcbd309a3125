import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SINGLE_VALUED } from "../../src/oauth/params.js";
import { APP_ID, CLIENT_CB, type Forge, seedApp, startForge } from "../forge-sim.js";
import { getManual, type RunningForgeMcp, register, SECRET, startForgeMcp } from "../helpers.js";
import { authorizeToCode, authorizeUrl, pkce, redeem } from "../oauth-client.js";

/**
 * RFC 6749 §3.1: a parameter "MUST NOT be included more than once". One row per single-valued
 * parameter per endpoint (src/oauth/params.ts), in each mode: a repeated one is invalid_request,
 * never a silent pick of one of its values. The client has one registered redirect URI, so a
 * repeated redirect_uri that were read as absent would fall back to it silently (the bug this closes).
 */

const OTHER_CB = "http://127.0.0.1:8765/other";

const second: Record<string, string> = {
  client_id: "", // filled per mode: another registered client
  redirect_uri: OTHER_CB,
  response_type: "code",
  state: "other-state",
  code_challenge: pkce().challenge,
  code_challenge_method: "S256",
  scope: "read_api",
  grant_type: "authorization_code",
  code: "", // filled per row: the same code again
  code_verifier: "", // the same verifier again
  refresh_token: "rt",
};

const modes = {
  passthrough: {},
  proxy: { FORGE_OAUTH_CALLBACK_PROXY: "true" },
  stateless: {
    FORGE_OAUTH_CALLBACK_PROXY: "true",
    OAUTH_STATELESS_MODE: "true",
    OAUTH_STATELESS_SECRET: SECRET,
  },
} as const;
type Mode = keyof typeof modes;

describe("a repeated single-valued parameter is invalid_request", () => {
  let forge: Forge;
  const s: Partial<Record<Mode, RunningForgeMcp>> = {};
  const clients: Partial<Record<Mode, [string, string]>> = {};

  beforeAll(async () => {
    forge = await startForge();
    for (const [mode, extra] of Object.entries(modes) as [Mode, Record<string, string>][]) {
      s[mode] = await startForgeMcp({
        FORGE_MCP_OAUTH: "true",
        FORGE_OAUTH_APP_ID: APP_ID,
        FORGE_API_URL: forge.apiUrl,
        OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: "1000",
        ...extra,
      });
      const reg = async () =>
        (await register(s[mode]!.url, { redirect_uris: [CLIENT_CB] })).body.client_id as string;
      clients[mode] = [await reg(), await reg()];
    }
    await seedApp(forge, [CLIENT_CB, OTHER_CB, `${s.proxy!.url}/callback`, `${s.stateless!.url}/callback`]);
  });
  afterAll(async () => {
    await Promise.all(Object.values(s).map((x) => x.close()));
    await forge?.close();
  });

  const authorizeRows = Object.keys(modes).flatMap((mode) =>
    SINGLE_VALUED.authorize.map((param) => ({ mode: mode as Mode, param })),
  );

  it.each(authorizeRows)("$mode: /authorize with $param twice", async ({ mode, param }) => {
    const [clientId, otherClient] = clients[mode]!;
    const u = new URL(authorizeUrl(s[mode]!.url, clientId, pkce().challenge, "st"));
    u.searchParams.append(param, param === "client_id" ? otherClient : second[param]!);
    const r = await getManual(u.href);
    expect(r.status).toBe(400);
    expect(r.location).toBeNull();
    if (param === "client_id" || param === "redirect_uri") {
      // the redirect URI is not trusted: answered directly
      expect(JSON.parse(r.text).error).toBe("invalid_request");
    } else {
      // the RFC 9700 §4.11 page of a browser that has not approved this client
      expect(r.text).toContain("<code>invalid_request</code>");
    }
  });

  const tokenRows = Object.keys(modes).flatMap((mode) =>
    SINGLE_VALUED.token.map((param) => ({ mode: mode as Mode, param })),
  );

  it.each(tokenRows)(
    "$mode: /token with $param twice, and the code is still unused",
    async ({ mode, param }) => {
      const [clientId, otherClient] = clients[mode]!;
      const base = s[mode]!.url;
      const p = pkce();
      const { code } = await authorizeToCode(base, clientId, p.challenge);
      const form = new URLSearchParams({
        grant_type: "authorization_code",
        client_id: clientId,
        code: code!,
        code_verifier: p.verifier,
        redirect_uri: CLIENT_CB,
      });
      const values: Record<string, string> = {
        ...second,
        client_id: otherClient,
        code: code!,
        code_verifier: p.verifier,
      };
      const again = values[param]!;
      form.append(param, again);
      if (param === "refresh_token" || param === "scope") form.append(param, again);
      const r = await fetch(`${base}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: form,
      });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: string }).error).toBe("invalid_request");
      expect((await redeem(base, clientId, code!, p.verifier)).status).toBe(200);
    },
  );
});
