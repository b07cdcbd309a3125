import { expect } from "vitest";
import { APP_ID } from "./forge-sim.js";
import { getManual, type RunningForgeMcp, SECRET } from "./helpers.js";
import { forgeAuthorizeHop, newClient, pkce } from "./oauth-client.js";

/** The environment every stateless replica in these tests shares, plus per-replica overrides. */
export function statelessEnv(forgeApiUrl: string, extra: Record<string, string>): Record<string, string> {
  return {
    FORGE_MCP_OAUTH: "true",
    FORGE_OAUTH_CALLBACK_PROXY: "true",
    FORGE_OAUTH_CONSENT: "false",
    FORGE_OAUTH_APP_ID: APP_ID,
    FORGE_API_URL: forgeApiUrl,
    OAUTH_STATELESS_MODE: "true",
    OAUTH_STATELESS_SECRET: SECRET,
    OAUTH_REGISTER_RATE_LIMIT_PER_HOUR: "1000",
    ...extra,
  };
}

/**
 * Register on `reg`, authorize on `auth`, take the forge's callback to `cb`; returns the client
 * id, its PKCE pair and the one-time proxy code. `publicUrl` is the URL all replicas advertise.
 */
export async function proxyCodeVia(
  publicUrl: string,
  reg: RunningForgeMcp,
  auth: RunningForgeMcp,
  cb: RunningForgeMcp,
) {
  const clientId = await newClient(reg.url);
  const p = pkce();
  const hop = await forgeAuthorizeHop(auth.url, clientId, p.challenge, "st");
  const atForge = await getManual(hop.location);
  const callback = new URL(atForge.location!);
  expect(callback.origin).toBe(publicUrl);
  const back = await getManual(`${cb.url}${callback.pathname}${callback.search}`, { cookie: hop.cookie });
  const to = new URL(back.location!);
  expect(to.searchParams.get("state")).toBe("st");
  return {
    clientId,
    p,
    code: to.searchParams.get("code")!,
    callbackPathAndQuery: callback.pathname + callback.search,
    /** the browser's callback-binding cookie (`name=value`), valid on every replica with the secret */
    callbackCookie: hop.cookie,
  };
}
