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

/** A declaration the provider cannot honour; raised before any request is sent. */
export class UnsupportedError extends Error {
  override readonly name = "UnsupportedError";
}
