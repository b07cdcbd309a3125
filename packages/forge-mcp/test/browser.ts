/**
 * A scripted user agent: follows redirects by hand (keeping cookies per origin, by name, as a
 * browser does: a later Set-Cookie replaces one name, Max-Age=0 deletes it), answers
 * forge-mcp's consent page, and stops when it reaches the client's redirect URI, returning the
 * query the client would receive. The forge simulator's user approves automatically.
 */

export interface BrowserResult {
  url: URL;
  hops: string[];
}

export async function browse(
  startUrl: string | URL,
  clientRedirectUri: string,
  opts: {
    decision?: "approve" | "deny";
    onHop?: (url: string, status: number) => void;
    /** Sent with every request (e.g. X-Forwarded-For, to act as one client address). */
    headers?: Record<string, string>;
    /** A jar to share between calls (one browser); a fresh one otherwise. */
    jar?: CookieJar;
  } = {},
): Promise<BrowserResult> {
  const jar = opts.jar ?? new CookieJar();
  const stop = new URL(clientRedirectUri);
  let url = new URL(startUrl);
  let method = "GET";
  let body: string | undefined;
  const hops: string[] = [];
  for (let i = 0; i < 20; i++) {
    if (url.origin === stop.origin && url.pathname === stop.pathname) return { url, hops };
    hops.push(`${method} ${url.origin}${url.pathname}`);
    const headers: Record<string, string> = { ...opts.headers };
    const cookie = jar.header(url);
    if (cookie) headers.cookie = cookie;
    if (body) headers["content-type"] = "application/x-www-form-urlencoded";
    const res = await fetch(url, { method, headers, body, redirect: "manual" });
    opts.onHop?.(`${method} ${url.href}`, res.status);
    jar.store(url, res.headers.getSetCookie());
    const text = await res.text();
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get("location")!, url);
      method = "GET";
      body = undefined;
      continue;
    }
    if (res.status === 200 && text.includes('name="consent_token"')) {
      const field = (name: string) => text.match(new RegExp(`name="${name}" value="([^"]*)"`))![1]!;
      const action = text.match(/<form method="post" action="([^"]+)"/)![1]!;
      body = new URLSearchParams({
        state: decodeEntities(field("state")),
        consent_token: decodeEntities(field("consent_token")),
        decision: opts.decision ?? "approve",
      }).toString();
      url = new URL(action, url);
      method = "POST";
      continue;
    }
    throw new Error(`browser stopped at ${url.origin}${url.pathname}: HTTP ${res.status}`, { cause: text });
  }
  throw new Error("too many redirects");
}

const decodeEntities = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** Cookies per origin and name; attributes other than Max-Age are not modelled. */
export class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  store(url: URL, setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const cookies = this.byOrigin.get(url.origin) ?? new Map<string, string>();
      this.byOrigin.set(url.origin, cookies);
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "";
      if (expired) cookies.delete(name);
      else cookies.set(name, value);
    }
  }

  header(url: URL): string | undefined {
    const cookies = this.byOrigin.get(url.origin);
    if (!cookies || cookies.size === 0) return undefined;
    return [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  names(origin: string): string[] {
    return [...(this.byOrigin.get(origin)?.keys() ?? [])];
  }
}
