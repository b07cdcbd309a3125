/**
 * A scripted user agent: follows redirects by hand (keeping cookies per origin), answers
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
  } = {},
): Promise<BrowserResult> {
  const jar = new Map<string, string>();
  const stop = new URL(clientRedirectUri);
  let url = new URL(startUrl);
  let method = "GET";
  let body: string | undefined;
  const hops: string[] = [];
  for (let i = 0; i < 20; i++) {
    if (url.origin === stop.origin && url.pathname === stop.pathname) return { url, hops };
    hops.push(`${method} ${url.origin}${url.pathname}`);
    const headers: Record<string, string> = { ...opts.headers };
    const cookie = jar.get(url.origin);
    if (cookie) headers.cookie = cookie;
    if (body) headers["content-type"] = "application/x-www-form-urlencoded";
    const res = await fetch(url, { method, headers, body, redirect: "manual" });
    opts.onHop?.(`${method} ${url.href}`, res.status);
    const setCookie = res.headers.get("set-cookie");
    if (setCookie) jar.set(url.origin, setCookie.split(";")[0]!);
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
    throw new Error(`browser stopped at ${url.origin}${url.pathname}: HTTP ${res.status}`);
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
