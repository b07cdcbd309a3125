/**
 * Which forge scopes a sign-in asks for, which a token must hold to reach /mcp, and which a
 * writing tool needs: one policy, read by the 401 challenge, the protected-resource metadata, the
 * token check, /authorize and the step-up check (docs/forge-mcp-oauth.md §12).
 */

/** GitLab's scope for every write (and every read). */
export const WRITE_SCOPE = "api";
/** GitLab's read-only API scope. */
export const READ_SCOPE = "read_api";

export interface ScopePolicy {
  /** FORGE_MCP_STEP_UP: sign in read-only, step up to WRITE_SCOPE at the first writing tool. */
  stepUp: boolean;
  /** What /authorize may ask the forge for (FORGE_OAUTH_SCOPES): scopes_supported in the metadata. */
  supported: string[];
  /** What the 401 challenge names and /authorize asks for when the client names nothing. */
  signIn: string[];
  /** A token reaches /mcp with at least one of these. */
  accepted: string[];
}

export function scopePolicy(c: { stepUp: boolean; readOnly: boolean; oauthScopes: string[] }): ScopePolicy {
  const readable = c.stepUp || c.readOnly;
  return {
    stepUp: c.stepUp && !c.readOnly,
    supported: c.oauthScopes,
    signIn: c.stepUp ? [READ_SCOPE] : c.oauthScopes,
    accepted: readable ? [WRITE_SCOPE, READ_SCOPE] : [WRITE_SCOPE],
  };
}

/** An RFC 6750 §3 auth-param: the value a quoted-string, with `"` and `\` escaped. */
export const authParam = (name: string, value: string) => `${name}="${value.replace(/["\\]/g, "\\$&")}"`;

/** A `WWW-Authenticate: Bearer` challenge (RFC 6750 §3, RFC 9728 §5.1). */
export function bearerChallenge(params: {
  error?: string;
  description?: string;
  scope: string[];
  resourceMetadataUrl: string;
}): string {
  const parts: string[] = [];
  if (params.error) parts.push(authParam("error", params.error));
  if (params.description) parts.push(authParam("error_description", params.description));
  parts.push(authParam("scope", params.scope.join(" ")));
  parts.push(authParam("resource_metadata", params.resourceMetadataUrl));
  return `Bearer ${parts.join(", ")}`;
}
