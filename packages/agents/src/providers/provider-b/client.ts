// provider_b transport: two API domains with the same token. The Managed ("cloud") base is the
// configured `gateway`; the Forward base is derived from it (trailing `/cloud` → `/forward`,
// else `/forward` appended). The session's `http` is the Managed client and `apis.forward` the
// Forward one, so every handler context carries both.

import { DeclarationError, errorText } from "../common/errors.js";
import type { ErrorParser, HttpClient, HttpClientFactory } from "../http.js";
import { UnforeseeableError } from "../unforeseeable.js";

const PROVIDER_B_DEFAULT_GATEWAY = "https://api.qoder.com/api/v1/cloud";
export const PROVIDER_B_MOUNT_ROOT = "/data";

export type ApiDomain = "managed" | "forward";

export function forwardBaseUrl(gateway: string): string {
  const trimmed = gateway.replace(/\/+$/, "");
  return trimmed.endsWith("/cloud") ? `${trimmed.slice(0, -"/cloud".length)}/forward` : `${trimmed}/forward`;
}

/** `{type:"error", request_id, error:{type, code, message}}`, sometimes `{error:"text"}`. */
export const parseProviderBError: ErrorParser = (status, body) => {
  const err = (body as { error?: unknown } | undefined)?.error;
  const obj =
    err && typeof err === "object"
      ? (err as { code?: unknown; type?: unknown; message?: unknown })
      : undefined;
  const code = obj
    ? typeof obj.code === "string"
      ? obj.code
      : typeof obj.type === "string"
        ? obj.type
        : undefined
    : undefined;
  const message = obj
    ? obj.message
    : typeof err === "string"
      ? err
      : typeof body === "string"
        ? body
        : undefined;
  const text = errorText(body);
  // A 409 is a conflict, except the two "still in use" answers that are not about a duplicate.
  const conflict = status === 409 && !/in use|still mounted|already archived/.test(text);
  return { code, message: typeof message === "string" ? message : undefined, conflict };
};

interface ProviderBClients {
  managed: HttpClient;
  forward: HttpClient;
}

/**
 * The client of an API domain: the Managed API is the session's `http`, the Forward API the
 * `forward` entry of its `apis` (both made by connectProviderB, under one token).
 */
export function domainClient(
  ctx: { http: HttpClient; apis?: Readonly<Record<string, HttpClient>> },
  domain: ApiDomain,
): HttpClient {
  if (domain === "managed") return ctx.http;
  const forward = ctx.apis?.forward;
  if (!forward)
    throw new UnforeseeableError(
      "internal",
      "provider_b: the Forward API client is missing (the session was not made by connect)",
    );
  return forward;
}

export function connectProviderB(
  block: Record<string, unknown>,
  factory: HttpClientFactory,
  baseUrlOverride?: string,
): ProviderBClients {
  const apiKey = block.api_key;
  if (typeof apiKey !== "string" || apiKey === "")
    throw new DeclarationError("provider_b.block_without_api_key", "provider_b needs api_key");
  const gateway =
    baseUrlOverride ?? (typeof block.gateway === "string" ? block.gateway : PROVIDER_B_DEFAULT_GATEWAY);
  const common = {
    provider: "provider_b",
    headers: { authorization: `Bearer ${apiKey}` },
    parseError: parseProviderBError,
    secrets: [apiKey],
  };
  const clients: ProviderBClients = {
    managed: factory({ ...common, baseUrl: gateway.replace(/\/+$/, "") }),
    forward: factory({ ...common, baseUrl: forwardBaseUrl(gateway) }),
  };
  return clients;
}
