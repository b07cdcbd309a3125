import { createHash } from "node:crypto";
import { STYLE } from "./consent.js";

/**
 * Consent bound to the browser that gave it. The step that releases the forge's authorize URL
 * (the consent POST, or GET /authorize when the consent page is off) sets a cookie named after the
 * transaction's proxy state, holding an HMAC of that state under the consent key (derived from the
 * shared secret in stateless mode, so every replica can check it). /callback refuses a state that
 * arrives without it: someone who approved our page in his own browser and hands the forge URL to a
 * victim gets nothing, because the victim's browser has no cookie for that state.
 *
 * SameSite=Lax: the forge's redirect to /callback is a top-level cross-site GET, which Lax cookies
 * accompany. One cookie per transaction, so sign-ins in several tabs do not overwrite each other.
 * `__Host-` (Secure, Path=/, no Domain) when MCP_SERVER_URL is https; unprefixed on http loopback,
 * where a browser would not keep a Secure cookie of a non-secure origin everywhere.
 */

export const CALLBACK_BINDING_MAX_AGE_MS = 10 * 60 * 1000;

export function callbackCookieName(proxyState: string, secure: boolean): string {
  const hash = createHash("sha256").update(`callback\n${proxyState}`).digest("base64url").slice(0, 16);
  return `${secure ? "__Host-" : ""}forge_mcp_cb_${hash}`;
}

/** Status and page of a /callback refused for want of the cookie: no redirect, nothing secret. */
export const CALLBACK_REFUSED_STATUS = 403;

export function callbackRefusedPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign-in not completed</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head>
<body>
<h1>This sign-in cannot be completed in this browser</h1>
<p>The sign-in was not started and approved in this browser, so it has been stopped and nothing was
sent to any application.</p>
<p>If you did not expect this page, someone may have sent you a link to sign in on their behalf: close
this page. Otherwise, start the sign-in again from your application.</p>
</body></html>`;
}
