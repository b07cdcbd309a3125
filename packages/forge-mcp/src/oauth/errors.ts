/**
 * RFC 6749 errors. `message` is what the client sees and is always generic; `detail` goes to the
 * server log only (and is itself free of secrets: callers pass facts, never tokens or codes).
 */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "server_error"
  | "temporarily_unavailable"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "too_many_requests";

const GENERIC: Record<OAuthErrorCode, string> = {
  invalid_request: "The request is missing a parameter or is otherwise malformed.",
  invalid_client: "Client authentication failed.",
  invalid_grant:
    "The authorization grant is invalid, expired, already used, or was issued to another client.",
  unauthorized_client: "The client is not authorized to use this grant.",
  unsupported_grant_type: "The grant type is not supported.",
  unsupported_response_type: "The response type is not supported.",
  invalid_scope: "The requested scope is invalid.",
  invalid_target: "The requested resource is not served by this server.",
  access_denied: "The resource owner denied the request.",
  server_error: "The authorization server encountered an error.",
  temporarily_unavailable: "The authorization server is temporarily unavailable.",
  invalid_redirect_uri: "The redirect URI is not allowed.",
  invalid_client_metadata: "The client metadata is invalid.",
  too_many_requests: "Too many requests; try again later.",
};

const STATUS: Partial<Record<OAuthErrorCode, number>> = {
  invalid_client: 401,
  server_error: 500,
  temporarily_unavailable: 503,
  too_many_requests: 429,
};

export class OAuthError extends Error {
  override name = "OAuthError";
  readonly status: number;
  constructor(
    readonly code: OAuthErrorCode,
    /** Logged, never sent. */
    readonly detail: string,
    status?: number,
  ) {
    super(GENERIC[code]);
    this.status = status ?? STATUS[code] ?? 400;
  }
  toJSON(): { error: string; error_description: string } {
    return { error: this.code, error_description: this.message };
  }
}
