/**
 * Errors of the "managed agents" wire family that provider_c and provider_d share. A handler throws
 * an ApiError naming the provider_c error type; each provider renders it in its own body shape
 * (provider_d maps the type to its own `code`).
 */
type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "conflict_error"
  | "rate_limit_error"
  | "api_error"
  | "overloaded_error"
  | "memory_path_conflict_error"
  | "memory_precondition_failed_error";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    message: string,
    /** Extra fields the provider puts next to `type`/`message` (memory conflicts name the other memory). */
    readonly extra: Record<string, unknown> = {},
    /** provider_d's `code` when it differs from the default mapping of `type`. */
    readonly code?: string,
  ) {
    super(message);
  }
}

export const invalid = (message: string) => new ApiError(400, "invalid_request_error", message);

export const notFound = (kind: string, id: string) =>
  new ApiError(404, "not_found_error", `${kind} ${JSON.stringify(id)} not found`);

export const conflict = (message: string, code?: string) =>
  new ApiError(409, "conflict_error", message, {}, code);

/** The error type a bare status maps to (faults, unknown routes, body-parser failures). */
export function typeForStatus(status: number): ErrorType {
  if (status === 400 || status === 413 || status === 415) return "invalid_request_error";
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 409) return "conflict_error";
  if (status === 429) return "rate_limit_error";
  if (status === 529) return "overloaded_error";
  return "api_error";
}

/** provider_d's `error.code` for each error class (ResourceConflict is the documented one). */
const D_CODES: Record<ErrorType, string> = {
  invalid_request_error: "InvalidParameter",
  authentication_error: "AuthenticationError",
  permission_error: "AccessDenied",
  not_found_error: "ResourceNotFound",
  conflict_error: "ResourceConflict",
  rate_limit_error: "RateLimitExceeded",
  api_error: "InternalServiceError",
  overloaded_error: "ServiceUnavailable",
  memory_path_conflict_error: "ResourceConflict",
  memory_precondition_failed_error: "ResourceConflict",
};

/** provider_d renders errors as `{error:{code, message}}`; this is the `code`. */
export function providerDCode(err: ApiError): string {
  return err.code ?? (err.status === 503 ? "ServiceUnavailable" : D_CODES[err.type]);
}
