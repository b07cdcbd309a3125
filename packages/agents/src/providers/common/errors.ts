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
 * Why a declaration cannot be sent: the provider has no such feature (`unsupported`), its wire
 * cannot carry the value (`invalid`: limits, shapes), a local source cannot be read
 * (`unreadable`), or a mount path leaves the provider's mount root (`mount_path`). Raised before
 * any request is sent; the message names the fix. The one error type of every adapter for this.
 */
type DeclarationErrorCode = "unsupported" | "invalid" | "unreadable" | "mount_path";

export class DeclarationError extends Error {
  override readonly name = "DeclarationError";
  constructor(
    readonly code: DeclarationErrorCode,
    message: string,
  ) {
    super(message);
  }
}
