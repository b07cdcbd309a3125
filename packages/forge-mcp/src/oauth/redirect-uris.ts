/**
 * Which redirect URIs a client may register, and whether a requested one matches a registered one.
 * A URI is judged by its WHATWG-parsed form, and only when that form is exactly the string sent:
 * a string the parser rewrites (a backslash read as a slash, a host with upper case, a default
 * port) could be read one way by a pattern and another by the browser that follows it. Accepted:
 * https URIs, http loopback URIs on any port (RFC 8252 §7.3), and private-use scheme URIs of native
 * clients (`cursor://…`, `vscode://…`, `com.example.app:/cb`, RFC 8252 §7.1); never fragments or
 * userinfo, never schemes that run or read something in the browser itself. When
 * OAUTH_REDIRECT_URI_ALLOWLIST is set, only URIs matching one of its patterns (`*` matches any
 * run of characters within the part it is in: inside the host and port it never crosses into the
 * path; everything else is literal). The same rules hold at registration and at /authorize.
 */

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

function isLoopbackUri(u: URL): boolean {
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

/** Schemes a browser handles itself (or that are not redirect targets at all): never accepted. */
const BROWSER_SCHEMES = new Set([
  "javascript:",
  "data:",
  "vbscript:",
  "file:",
  "blob:",
  "about:",
  "filesystem:",
  "view-source:",
  "ftp:",
  "ws:",
  "wss:",
]);

/** Returns a reason when the URI is not acceptable, undefined when it is. */
export function redirectUriProblem(uri: unknown, allowlist: RegExp[]): string | undefined {
  if (typeof uri !== "string" || uri.length > 2000 || !URL.canParse(uri)) return "not a URL";
  const u = new URL(uri);
  if (u.hash || uri.includes("#")) return "has a fragment";
  if (u.username || u.password || (u.host === "" && uri.includes("@"))) return "carries userinfo";
  if (u.href !== uri) return `is not in its canonical form (${u.href})`;
  if (u.protocol === "http:") {
    if (!isLoopbackUri(u)) return "plain http is accepted only for loopback URIs";
  } else if (u.protocol !== "https:") {
    if (BROWSER_SCHEMES.has(u.protocol)) return `the ${u.protocol} scheme is not a redirect target`;
    if (!/^[a-z][a-z0-9+.-]*:$/.test(u.protocol)) return "not a usable scheme";
  }
  if (allowlist.length > 0 && !allowlist.some((re) => re.test(u.href))) return "not on the allow-list";
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
