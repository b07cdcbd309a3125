/**
 * RFC 6749 §3.1 and §3.2: request and response parameters "MUST NOT be included more than once".
 * One list per endpoint of the parameters that are single-valued there; a repeated one (which the
 * query and form parsers hand us as an array) is `invalid_request`, never a silent pick of the first
 * or last value. `resource` is absent on purpose: RFC 8707 §2 allows several.
 */

export const SINGLE_VALUED = {
  authorize: [
    "client_id",
    "redirect_uri",
    "response_type",
    "state",
    "code_challenge",
    "code_challenge_method",
    "scope",
  ],
  token: ["grant_type", "client_id", "code", "code_verifier", "redirect_uri", "refresh_token", "scope"],
} as const;

/** The first parameter of `names` that is present but not one plain string (repeated, or nested). */
export function repeatedParam(params: Record<string, unknown>, names: readonly string[]): string | undefined {
  return names.find((n) => params[n] !== undefined && typeof params[n] !== "string");
}
