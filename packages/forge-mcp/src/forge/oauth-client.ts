import { ForgeHttpError, forgeFetch, forgeMessage } from "./http.js";

/** The forge's token response (Doorkeeper), as the server keeps it. */
export interface ForgeTokens {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
  created_at?: number;
}

/** The forge's Doorkeeper endpoints (instance root + /oauth/*), as used by the server itself. */

interface TokenInfo {
  resource_owner_id: number | null;
  scope: string[];
  expires_in: number | null;
  application: { uid: string } | null;
  created_at: number;
}

export class ForgeOAuthClient {
  constructor(
    private readonly rootUrl: string,
    private readonly appId: string,
    private readonly timeoutMs: number,
  ) {}

  authorizeUrl(p: { redirectUri: string; state: string; codeChallenge: string; scope: string }): string {
    const u = new URL(`${this.rootUrl}/oauth/authorize`);
    u.searchParams.set("client_id", this.appId);
    u.searchParams.set("redirect_uri", p.redirectUri);
    u.searchParams.set("response_type", "code");
    u.searchParams.set("state", p.state);
    u.searchParams.set("scope", p.scope);
    u.searchParams.set("code_challenge", p.codeChallenge);
    u.searchParams.set("code_challenge_method", "S256");
    return u.href;
  }

  /** Token endpoint call; returns the forge's status and JSON so passthrough can relay it. */
  async token(params: Record<string, string>): Promise<{ status: number; body: unknown }> {
    const form = new URLSearchParams({ ...params, client_id: this.appId });
    const r = await forgeFetch(`${this.rootUrl}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
      timeoutMs: this.timeoutMs,
    });
    return { status: r.status, body: r.body };
  }

  async exchangeCode(code: string, verifier: string, redirectUri: string): Promise<ForgeTokens> {
    const r = await this.token({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
    });
    if (r.status !== 200 || !isTokens(r.body)) {
      throw new ForgeHttpError(
        r.status,
        `forge token exchange failed: ${forgeMessage(r.status, r.body)}`,
        undefined,
      );
    }
    return r.body;
  }

  async revoke(token: string, hint?: string): Promise<void> {
    const form = new URLSearchParams({ token, client_id: this.appId });
    if (hint) form.set("token_type_hint", hint);
    await forgeFetch(`${this.rootUrl}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
      timeoutMs: this.timeoutMs,
    });
  }
}

export function isTokens(body: unknown): body is ForgeTokens {
  return !!body && typeof body === "object" && typeof (body as ForgeTokens).access_token === "string";
}

/** GET /oauth/token/info; undefined for an invalid, expired or revoked token. */
export async function fetchTokenInfo(
  rootUrl: string,
  token: string,
  timeoutMs: number,
  queryFallback = false,
): Promise<TokenInfo | undefined> {
  let r = await forgeFetch(`${rootUrl}/oauth/token/info`, {
    headers: { authorization: `Bearer ${token}` },
    timeoutMs,
  });
  // Some edge caches strip Authorization on /oauth/*; the forge then sees no token at all.
  // Opt-in because a token in a query string may be written to intermediaries' access logs.
  if (r.status === 401 && queryFallback) {
    r = await forgeFetch(`${rootUrl}/oauth/token/info?access_token=${encodeURIComponent(token)}`, {
      timeoutMs,
    });
  }
  if (r.status === 401 || r.status === 404) return undefined;
  if (r.status !== 200 || !r.body || typeof r.body !== "object") {
    throw new ForgeHttpError(
      r.status,
      `forge token info failed: ${forgeMessage(r.status, r.body)}`,
      undefined,
    );
  }
  const b = r.body as Record<string, unknown>;
  const scope = Array.isArray(b.scope) ? b.scope : Array.isArray(b.scopes) ? b.scopes : [];
  const app = b.application as { uid?: unknown } | null | undefined;
  return {
    resource_owner_id: typeof b.resource_owner_id === "number" ? b.resource_owner_id : null,
    scope: scope.map(String),
    expires_in:
      typeof b.expires_in === "number"
        ? b.expires_in
        : typeof b.expires_in_seconds === "number"
          ? b.expires_in_seconds
          : null,
    application: app && typeof app.uid === "string" ? { uid: app.uid } : null,
    created_at: typeof b.created_at === "number" ? b.created_at : 0,
  };
}
