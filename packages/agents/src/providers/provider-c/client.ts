// provider_c transport: base URL, `x-api-key` + version + beta headers, and the error body
// `{type:"error", error:{type, message}, request_id}`.
import type { ErrorParser, HttpClientFactory } from "../http.js";
import { isRecord, str } from "../managed-dialect/spec.js";
import type { ProviderSession } from "../types.js";
import { ANTHROPIC_VERSION, DEFAULT_BASE_URL, DEFAULT_BETA, MEMORY_BETA } from "./wire-decisions.js";

/** Names are not unique on provider_c: a 409 is never "already exists" (memory 409s are preconditions). */
export const parseProviderCError: ErrorParser = (status, body) => {
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  const requestId = isRecord(body) ? str(body.request_id) : undefined;
  const message = str(error?.message);
  return {
    code: str(error?.type) ?? `http_${status}`,
    ...(message !== undefined ? { message: requestId ? `${message} (request ${requestId})` : message } : {}),
    conflict: false,
  };
};

export function providerCHeaders(block: Record<string, unknown>): Record<string, string> {
  const apiKey = str(block.api_key);
  if (!apiKey) throw new Error("providers.provider_c.api_key is required");
  return {
    "x-api-key": apiKey,
    "anthropic-version": ANTHROPIC_VERSION,
    "anthropic-beta": str(block.beta) || DEFAULT_BETA,
  };
}

export function connectProviderC(
  block: Record<string, unknown>,
  factory: HttpClientFactory,
  baseUrlOverride?: string,
): ProviderSession {
  const apiKey = str(block.api_key) ?? "";
  const http = factory({
    provider: "provider_c",
    baseUrl: baseUrlOverride ?? str(block.base_url) ?? DEFAULT_BASE_URL,
    headers: providerCHeaders(block),
    parseError: parseProviderCError,
    secrets: [apiKey],
  });
  return { http };
}

/** Memory endpoints take their own beta value instead of the managed-agents set. */
export const MEMORY_HEADERS = { "anthropic-beta": MEMORY_BETA };
