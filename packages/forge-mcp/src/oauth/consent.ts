import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { randomToken } from "../pkce.js";

/**
 * CSRF protection of the consent page. GET /authorize sets a random nonce in a SameSite=Strict,
 * HttpOnly cookie and puts HMAC(key, nonce | proxy state) in the form. POST /authorize/consent is
 * accepted only when the cookie, the transaction's state and the token agree, so a third-party page
 * cannot approve on the user's behalf (its cross-site POST carries no cookie) and a token cannot be
 * moved to another transaction. In stateless mode the key derives from the shared secret, so any
 * replica can check it.
 */

const CONSENT_COOKIE_PREFIX = "forge_mcp_consent_";

/** One cookie per transaction, so two authorizations in two tabs do not overwrite each other. */
export function consentCookieName(proxyState: string): string {
  return CONSENT_COOKIE_PREFIX + createHash("sha256").update(proxyState).digest("base64url").slice(0, 16);
}

const TRUST_COOKIE_PREFIX = "forge_mcp_trusted_";

/** One cookie per client: this browser's user approved that client on our consent page once. */
export function trustCookieName(clientId: string): string {
  return TRUST_COOKIE_PREFIX + createHash("sha256").update(clientId).digest("base64url").slice(0, 16);
}

export class ConsentGuard {
  /** keys[0] signs; every key verifies (the previous stateless secret during a rotation). */
  constructor(private readonly keys: Buffer[]) {}

  issue(proxyState: string): { nonce: string; token: string } {
    const nonce = randomToken(24);
    return { nonce, token: this.mac(this.keys[0]!, nonce, proxyState) };
  }

  check(nonce: unknown, proxyState: unknown, token: unknown): boolean {
    if (typeof nonce !== "string" || typeof proxyState !== "string" || typeof token !== "string")
      return false;
    if (nonce.length === 0) return false;
    const given = Buffer.from(token);
    return this.keys.some((key) => {
      const expected = Buffer.from(this.mac(key, nonce, proxyState));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  }

  /** The value of the trust cookie for a client: an HMAC, so no one else can mint it. */
  trustMark(clientId: string): string {
    return this.trustMac(this.keys[0]!, clientId);
  }

  isTrusted(clientId: string, mark: string | undefined): boolean {
    if (!mark) return false;
    const given = Buffer.from(mark);
    return this.keys.some((key) => {
      const expected = Buffer.from(this.trustMac(key, clientId));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  }

  /** The value of the callback-binding cookie for a transaction (./callback-binding.ts). */
  callbackMark(proxyState: string): string {
    return this.labelled(this.keys[0]!, "callback", proxyState);
  }

  isCallbackMark(proxyState: string, mark: string | undefined): boolean {
    if (!mark) return false;
    const given = Buffer.from(mark);
    return this.keys.some((key) => {
      const expected = Buffer.from(this.labelled(key, "callback", proxyState));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  }

  private labelled(key: Buffer, label: string, value: string): string {
    return createHmac("sha256", key).update(`${label}\n${value}`).digest("base64url");
  }

  /** Its own label, so a trust mark can never stand in for a consent token or the reverse. */
  private trustMac(key: Buffer, clientId: string): string {
    return createHmac("sha256", key).update(`trusted-client\n${clientId}`).digest("base64url");
  }

  private mac(key: Buffer, nonce: string, proxyState: string): string {
    return createHmac("sha256", key).update(`consent\n${nonce}\n${proxyState}`).digest("base64url");
  }
}

/** The page's only style, allowed by its hash: the CSP allows no other inline style or script. */
export const STYLE = "body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}";
const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64");

/**
 * The consent page's Content-Security-Policy. `formTargets` are the origins the form's navigation
 * reaches through redirects (the forge, and the client's redirect URI on deny or on a forge that
 * answers at once): Chromium checks form-action on each redirect after the POST, so listing only
 * 'self' would block sign-in; anything beyond those origins stays blocked.
 */
export function consentCsp(formTargets: string[]): string {
  return [
    "default-src 'none'",
    `style-src 'sha256-${STYLE_HASH}'`,
    `form-action 'self' ${formTargets.join(" ")}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

/**
 * RFC 9700 §4.11: an authorization error is not redirected to a dynamically registered client
 * before its user has approved it once; this page names the error and lets the user choose to
 * go back to the application (a click, not an automatic redirect).
 */
export function authorizeErrorPage(v: {
  clientName: string | undefined;
  code: string;
  /** Where "return to the application" goes; none when the client itself could not be trusted. */
  back?: string;
}): string {
  const name = escapeHtml(visibleName(v.clientName ?? "An unnamed application"));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorization error</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head>
<body>
<h1>This authorization request cannot be completed</h1>
<p><strong>${name}</strong> sent a request this server refuses (<code>${escapeHtml(v.code)}</code>).</p>
${
  v.back === undefined
    ? "<p>Close this page and tell the application's maker about the error.</p>"
    : `<p><a id="back" href="${escapeHtml(v.back)}">Return to the application</a> and tell it about the error,
or close this page.</p>`
}
</body></html>`;
}

/**
 * A client chooses its own name: bidirectional controls (which can make "evil.example" read as
 * "elpmaxe.live") and other invisible format characters are shown as visible code points.
 */
export const visibleName = (s: string) =>
  s.replace(
    /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/g,
    (c) => `[U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}]`,
  );

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function consentPage(v: {
  clientName: string | undefined;
  /** The host of a client's metadata document URL (its client_id), the one part of it we know is true. */
  clientHost?: string | undefined;
  redirectUri: string;
  forgeHost: string;
  scope: string;
  proxyState: string;
  token: string;
}): string {
  const name = escapeHtml(visibleName(v.clientName ?? "An unnamed application"));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorize ${name}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head>
<body>
<h1>Authorize ${name}?</h1>
<p><strong>${name}</strong>${
    v.clientHost === undefined
      ? ""
      : ` (described by <strong id="client-host">${escapeHtml(v.clientHost)}</strong>)`
  } wants to use your <strong>${escapeHtml(v.forgeHost)}</strong> account
through this MCP server, with scope <code>${escapeHtml(v.scope)}</code>.</p>
<p>After you sign in, you will be sent back to:<br><code id="redirect-uri">${escapeHtml(v.redirectUri)}</code></p>
<p>Only continue if you started this from an application you trust and the address above belongs to it.</p>
<form method="post" action="authorize/consent">
<input type="hidden" name="state" value="${escapeHtml(v.proxyState)}">
<input type="hidden" name="consent_token" value="${escapeHtml(v.token)}">
<button type="submit" name="decision" value="approve">Continue to ${escapeHtml(v.forgeHost)}</button>
<button type="submit" name="decision" value="deny">Cancel</button>
</form></body></html>`;
}
