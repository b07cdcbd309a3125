import { ProviderHttpError } from "../http.js";

export function isNotFound(error: unknown): boolean {
  return error instanceof ProviderHttpError && error.status === 404;
}

export function isConflict(error: unknown): boolean {
  return error instanceof ProviderHttpError && error.conflict;
}

/** Body of an error as one lowercase string, for providers that signal conditions only in text. */
export function errorText(body: unknown): string {
  if (body === undefined || body === null) return "";
  return (typeof body === "string" ? body : JSON.stringify(body)).toLowerCase();
}

/**
 * A declaration the provider cannot take, refused before any request is sent: the provider has no
 * such feature, its wire cannot carry the value, or a field combination makes no sense to it. The
 * message names the fix. `refusal` is the id of the entry in the provider's list of apply-time
 * refusals (providers/<p>/refusals.ts) that names the validate rule reporting the same declaration
 * first; test/config/apply-refusals.test.ts proves both halves, test/config/throw-sites.test.ts
 * that every throw carries a listed id (or is an UnforeseeableError).
 */
export class DeclarationError extends Error {
  override readonly name = "DeclarationError";
  constructor(
    readonly refusal: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * An `agents session` command refused: an agent this provider cannot start a session on (a
 * Forward Template, an agent without environment, declared files), or a `--resource` the
 * provider's session create does not take. Never raised by plan or apply: the declaration is
 * valid to deploy, only the command's own input is refused.
 */
export class SessionStartRefusal extends Error {
  override readonly name = "SessionStartRefusal";
}
