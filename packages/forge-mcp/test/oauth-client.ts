import { createHash, randomBytes } from "node:crypto";
import { browse } from "./browser.js";
import { CLIENT_CB } from "./forge-sim.js";
import { getManual, postForm, register } from "./helpers.js";

/** A raw OAuth client of forge-mcp: PKCE pair, authorize URL, code from the browser leg, token call. */

export function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export async function newClient(base: string, name = "test client"): Promise<string> {
  const r = await register(base, { redirect_uris: [CLIENT_CB], client_name: name });
  if (r.status !== 201) throw new Error(`register failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.client_id;
}

export function authorizeUrl(base: string, clientId: string, challenge: string, state: string): string {
  const u = new URL(`${base}/authorize`);
  u.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: CLIENT_CB,
    response_type: "code",
    code_challenge: challenge,
    code_challenge_method: "S256",
    state,
    scope: "api",
  }).toString();
  return u.href;
}

/** Runs authorize → (consent) → forge → /callback and returns what reaches the client. */
export async function authorizeToCode(
  authBase: string,
  clientId: string,
  challenge: string,
  state = randomBytes(8).toString("hex"),
) {
  const { url, hops } = await browse(authorizeUrl(authBase, clientId, challenge, state), CLIENT_CB);
  return {
    code: url.searchParams.get("code"),
    state: url.searchParams.get("state"),
    sentState: state,
    error: url.searchParams.get("error"),
    hops,
    url,
  };
}

export async function redeem(
  base: string,
  clientId: string,
  code: string,
  verifier: string | undefined,
  extra: Record<string, string> = {},
) {
  const form: Record<string, string> = {
    grant_type: "authorization_code",
    client_id: clientId,
    code,
    redirect_uri: CLIENT_CB,
    ...extra,
  };
  if (verifier !== undefined) form.code_verifier = verifier;
  return postForm(`${base}/token`, form);
}

/**
 * First hop of the browser leg (consent page off): where forge-mcp sends the user (the forge's
 * authorize URL), and the callback-binding cookie it sets with it (`name=value`), which the
 * browser then carries to /callback.
 */
export async function forgeAuthorizeHop(base: string, clientId: string, challenge: string, state: string) {
  const r = await getManual(authorizeUrl(base, clientId, challenge, state));
  if (r.status !== 302 || !r.location) throw new Error(`expected a redirect to the forge, got ${r.status}`);
  const cookie = r.headers.getSetCookie().find((c) => /forge_mcp_cb_/.test(c));
  if (!cookie) throw new Error("expected the callback-binding cookie with the redirect to the forge");
  return { location: r.location, cookie: cookie.split(";")[0]! };
}
