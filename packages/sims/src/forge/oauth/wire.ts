// What every OAuth endpoint of the forge simulator shares: Doorkeeper's error texts and error
// shape, string parameters, and reading the bearer token of a request.
import type { Request, Response } from "express";

/** Doorkeeper's English error texts as GitLab ships them (GitLab overrides invalid_redirect_uri). */
export const OAUTH_MESSAGES = {
  invalid_client:
    "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
  invalid_redirect_uri: "The redirect URI included is not valid.",
  invalid_grant:
    "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.",
  unsupported_grant_type: "The authorization grant type is not supported by the authorization server.",
  unsupported_response_type: "The authorization server does not support this response type.",
  invalid_scope: "The requested scope is invalid, unknown, or malformed.",
  access_denied: "The resource owner or authorization server denied the request.",
  code_challenge_required: "Code challenge is required.",
  token_unknown: "The access token is invalid",
  token_expired: "The access token expired",
  token_revoked: "The access token was revoked",
  unauthorized_revoke: "You are not authorized to revoke this token",
} as const;

export type Params = Record<string, string>;

/** Keeps the string-valued parameters of a query or body (arrays and objects are not OAuth). */
export function stringParams(source: unknown): Params {
  const out: Params = {};
  if (source && typeof source === "object") {
    for (const [k, v] of Object.entries(source)) if (typeof v === "string") out[k] = v;
  }
  return out;
}

export function oauthError(res: Response, status: number, error: string, description: string): void {
  if (status === 401) {
    res.setHeader(
      "WWW-Authenticate",
      `Bearer realm="Doorkeeper", error="${error}", error_description="${description}"`,
    );
  }
  res.status(status).setHeader("Cache-Control", "no-store").json({ error, error_description: description });
}

export function bearerValue(req: Request): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
  if (m?.[1]) return m[1];
  const q = stringParams(req.query);
  return q.access_token || q.bearer_token || undefined;
}
