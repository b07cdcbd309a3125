import { OAuthError } from "./errors.js";
import { StoreUnavailableError } from "./shared-state.js";

/**
 * A store call that did not answer (Redis down or silent, bounded by REDIS_TIMEOUT_MS) becomes
 * RFC 6749 `temporarily_unavailable` (503): one-time use fails closed, so a code or state is never
 * honoured without its claim being recorded. Other errors are left alone.
 */
export function storeUnavailable(err: unknown): OAuthError | undefined {
  if (!(err instanceof StoreUnavailableError)) return undefined;
  return new OAuthError("temporarily_unavailable", `store unavailable: ${err.message}`);
}

/** Seconds a client is asked to wait after a 503 from the store. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/** The browser-facing steps (/callback, the consent form) answer a page, not JSON. */
export const STORE_UNAVAILABLE_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

export function storeUnavailablePage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign-in temporarily unavailable</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<h1>Sign-in is temporarily unavailable</h1>
<p>This server cannot complete the sign-in right now (<code>temporarily_unavailable</code>).
Nothing was granted. Wait a moment, then start the sign-in again from your application.</p>
</body></html>`;
}
