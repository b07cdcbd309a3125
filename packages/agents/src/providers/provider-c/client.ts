// provider_c transport: base URL, `x-api-key` + version + beta headers, and the error body
// `{type:"error", error:{type, message}, request_id}`.

import { DeclarationError } from "../common/errors.js";
import { str } from "../common/handler-kit.js";
import type { ErrorParser, HttpClient, HttpClientFactory, StreamRequest } from "../http.js";
import { isRecord } from "../managed-dialect/spec.js";
import type { ProviderSession } from "../types.js";
import {
  ANTHROPIC_VERSION,
  DEFAULT_BASE_URL,
  DEFAULT_BETA,
  FILES_BETA,
  MEMORY_BETA,
  SKILLS_BETA,
} from "./wire-decisions.js";

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
  if (!apiKey)
    throw new DeclarationError(
      "provider_c.block_without_api_key",
      "providers.provider_c.api_key is required",
    );
  return {
    "x-api-key": apiKey,
    "anthropic-version": ANTHROPIC_VERSION,
    "anthropic-beta": str(block.beta) || DEFAULT_BETA,
  };
}

/**
 * The beta header each API family needs. Memory endpoints take only their own value (the
 * combined value was observed to be rejected); skills and files get their family value added
 * to whatever `beta` configures, so a custom `beta` cannot silently break uploads.
 */
export function betaFor(path: string, configured: string): string | undefined {
  const family = path.split("/")[1] ?? "";
  if (family === "memory_stores") return MEMORY_BETA;
  const needed = family === "skills" ? SKILLS_BETA : family === "files" ? FILES_BETA : undefined;
  if (!needed) return undefined;
  const values = configured
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
  return values.includes(needed) ? undefined : [...values, needed].join(",");
}

/** Puts the per-family beta on each request; everything else goes through unchanged. */
function withFamilyBetas(http: HttpClient, configured: string): HttpClient {
  return {
    addSecret: (value) => http.addSecret(value),
    request: (req) => {
      const beta = betaFor(req.path, configured);
      return http.request(beta ? { ...req, headers: { ...req.headers, "anthropic-beta": beta } } : req);
    },
    ...(http.stream
      ? {
          stream: (req: StreamRequest) => {
            const beta = betaFor(req.path, configured);
            return http.stream!(beta ? { ...req, headers: { ...req.headers, "anthropic-beta": beta } } : req);
          },
        }
      : {}),
  };
}

export function connectProviderC(
  block: Record<string, unknown>,
  factory: HttpClientFactory,
  baseUrlOverride?: string,
): ProviderSession {
  const apiKey = str(block.api_key) ?? "";
  const headers = providerCHeaders(block);
  const http = factory({
    provider: "provider_c",
    baseUrl: baseUrlOverride ?? str(block.base_url) ?? DEFAULT_BASE_URL,
    headers,
    parseError: parseProviderCError,
    secrets: [apiKey],
  });
  return { http: withFamilyBetas(http, headers["anthropic-beta"] ?? DEFAULT_BETA) };
}
