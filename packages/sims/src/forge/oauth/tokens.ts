import type {
  ForgeState,
  ForgeUser,
  OAuthApplication,
  OAuthToken,
  PersonalAccessToken,
} from "../model/state.js";
import { secretValue, userById } from "../model/state.js";

/** Every scope this forge knows; anything else is `invalid_scope` (Doorkeeper enforce_configured_scopes). */
export const KNOWN_SCOPES = new Set([
  "api",
  "read_api",
  "read_user",
  "create_runner",
  "manage_runner",
  "k8s_proxy",
  "read_repository",
  "write_repository",
  "read_registry",
  "write_registry",
  "read_virtual_registry",
  "write_virtual_registry",
  "ai_features",
  "sudo",
  "admin_mode",
  "read_service_ping",
  "openid",
  "profile",
  "email",
  "mcp",
]);

/** GitLab's Doorkeeper default when `scope` is omitted. */
export const DEFAULT_SCOPES = ["api"];
export const ACCESS_TOKEN_TTL_SECONDS = 7200;
export const CODE_TTL_MS = 10 * 60 * 1000;

type TokenCheck =
  | { ok: true; kind: "oauth"; user: ForgeUser; scopes: string[]; oauth: OAuthToken }
  | { ok: true; kind: "pat"; user: ForgeUser; scopes: string[]; pat: PersonalAccessToken }
  | { ok: false; reason: "unknown" | "expired" | "revoked" };

export function oauthExpired(state: ForgeState, t: OAuthToken): boolean {
  return state.clock.now() >= t.created_at_ms + t.expires_in * 1000;
}

export function oauthSecondsLeft(state: ForgeState, t: OAuthToken): number {
  // Doorkeeper floors the elapsed time, not the remainder.
  return Math.max(0, t.expires_in - Math.floor((state.clock.now() - t.created_at_ms) / 1000));
}

/** Resolves a bearer value to its owner, OAuth token first, then personal access token. */
export function checkToken(state: ForgeState, value: string | undefined): TokenCheck {
  if (!value) return { ok: false, reason: "unknown" };
  const oauth = state.tokens.get(value);
  if (oauth) {
    if (oauth.revoked_at_ms !== undefined) return { ok: false, reason: "revoked" };
    if (oauthExpired(state, oauth)) return { ok: false, reason: "expired" };
    const user = userById(state, oauth.user_id);
    if (user?.state !== "active") return { ok: false, reason: "revoked" };
    return { ok: true, kind: "oauth", user, scopes: oauth.scopes, oauth };
  }
  const pat = state.pats.get(value);
  if (pat) {
    if (pat.revoked) return { ok: false, reason: "revoked" };
    if (pat.expires_at && pat.expires_at <= new Date(state.clock.now()).toISOString().slice(0, 10)) {
      return { ok: false, reason: "expired" };
    }
    const user = userById(state, pat.user_id);
    if (user?.state !== "active") return { ok: false, reason: "revoked" };
    return { ok: true, kind: "pat", user, scopes: pat.scopes, pat };
  }
  return { ok: false, reason: "unknown" };
}

export function issueToken(
  state: ForgeState,
  app: OAuthApplication | null,
  userId: number,
  scopes: string[],
): OAuthToken {
  const token: OAuthToken = {
    token: secretValue(state),
    refresh_token: secretValue(state),
    app_uid: app?.uid ?? null,
    user_id: userId,
    scopes,
    created_at_ms: state.clock.now(),
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    refreshed: false,
  };
  addToken(state, token);
  return token;
}

export function addToken(state: ForgeState, token: OAuthToken): void {
  state.tokens.set(token.token, token);
  state.tokensByRefresh.set(token.refresh_token, token);
}

/** The body of a successful /oauth/token answer. */
export function tokenResponse(t: OAuthToken) {
  return {
    access_token: t.token,
    token_type: "Bearer",
    expires_in: t.expires_in,
    refresh_token: t.refresh_token,
    scope: t.scopes.join(" "),
    created_at: Math.floor(t.created_at_ms / 1000),
  };
}

export function parseScopes(raw: unknown): string[] {
  if (typeof raw !== "string") return [];
  return [...new Set(raw.split(/\s+/).filter(Boolean))];
}
