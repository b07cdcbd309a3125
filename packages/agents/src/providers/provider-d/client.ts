// provider_d transport: Bearer auth, no extra headers, error body `{error:{code, message}}`;
// a 409, `ResourceConflict` or "already exists" means the name is taken.

import { DeclarationError } from "../common/errors.js";
import { str } from "../common/handler-kit.js";
import type { ErrorParser, HttpClientFactory } from "../http.js";
import { isRecord } from "../managed-dialect/spec.js";
import type { ProviderSession } from "../types.js";
import { DEFAULT_BASE_URL } from "./wire-decisions.js";

export function isConflict(status: number, code: string | undefined, message: string | undefined): boolean {
  return status === 409 || /resourceconflict/i.test(code ?? "") || /already exists/i.test(message ?? "");
}

export const parseProviderDError: ErrorParser = (status, body) => {
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  const code = str(error?.code);
  const message = str(error?.message);
  return {
    code: code ?? `http_${status}`,
    ...(message !== undefined ? { message } : {}),
    conflict: isConflict(status, code, message),
  };
};

export function connectProviderD(
  block: Record<string, unknown>,
  factory: HttpClientFactory,
  baseUrlOverride?: string,
): ProviderSession {
  const apiKey = str(block.api_key);
  if (!apiKey)
    throw new DeclarationError(
      "provider_d.block_without_api_key",
      "providers.provider_d.api_key is required",
    );
  const http = factory({
    provider: "provider_d",
    baseUrl: baseUrlOverride ?? str(block.base_url) ?? DEFAULT_BASE_URL,
    headers: { authorization: `Bearer ${apiKey}` },
    parseError: parseProviderDError,
    secrets: [apiKey],
  });
  return { http };
}
