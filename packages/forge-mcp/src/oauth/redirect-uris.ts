/**
 * Which redirect URIs a client may register, and whether a requested one matches a registered one.
 * Registration accepts https URIs and http loopback URIs (RFC 8252 §7.3), never fragments or
 * userinfo, and - when OAUTH_REDIRECT_URI_ALLOWLIST is set - only URIs matching one of its
 * patterns (`*` matches any run of characters within the part it is in: inside the host and
 * port it never crosses into the path; everything else is literal).
 */

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

export function isLoopbackUri(u: URL): boolean {
  return LOOPBACK.has(u.hostname);
}

export function globToRegExp(pattern: string): RegExp {
  // In the scheme and authority, `*` stays inside the authority (no `/`, `?`, `#` or `@`), so
  // `https://*.example.com/*` cannot be satisfied by `https://evil.test/.example.com/`.
  // In the path and query, `*` matches anything.
  const schemeEnd = pattern.indexOf("://");
  const pathStart = schemeEnd < 0 ? -1 : pattern.indexOf("/", schemeEnd + 3);
  const authority = pathStart < 0 ? pattern : pattern.slice(0, pathStart);
  const rest = pathStart < 0 ? "" : pattern.slice(pathStart);
  const part = (text: string, star: string) =>
    text
      .split("*")
      .map((piece) => piece.replace(/[.+?^${}()|[\]\\/]/g, "\\$&"))
      .join(star);
  return new RegExp(`^${part(authority, "[^/?#@]*")}${part(rest, ".*")}$`);
}

/** Returns a reason when the URI is not acceptable, undefined when it is. */
export function redirectUriProblem(uri: unknown, allowlist: RegExp[]): string | undefined {
  if (typeof uri !== "string" || uri.length > 2000 || !URL.canParse(uri)) return "not a URL";
  const u = new URL(uri);
  if (u.hash) return "has a fragment";
  if (u.username || u.password) return "carries userinfo";
  if (u.protocol !== "https:" && !(u.protocol === "http:" && isLoopbackUri(u))) {
    return "must be https or an http loopback URI";
  }
  if (allowlist.length > 0 && !allowlist.some((re) => re.test(uri))) return "not on the allow-list";
  return undefined;
}

/** Exact match, except that a loopback URI may use any port (RFC 8252 §7.3). */
export function redirectUriMatches(requested: string, registered: string): boolean {
  if (requested === registered) return true;
  if (!URL.canParse(requested) || !URL.canParse(registered)) return false;
  const a = new URL(requested);
  const b = new URL(registered);
  if (!isLoopbackUri(a) || !isLoopbackUri(b)) return false;
  return (
    a.protocol === b.protocol &&
    a.hostname === b.hostname &&
    a.pathname === b.pathname &&
    a.search === b.search
  );
}
