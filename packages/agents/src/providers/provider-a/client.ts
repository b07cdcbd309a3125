// provider_a transport: base URL from the workspace id (or `base_url` verbatim), Bearer auth, and
// the error parser that recognises the provider's conflict signals.

import { DeclarationError, errorText } from "../common/errors.js";
import type { ErrorParser, HttpClient, HttpClientFactory } from "../http.js";

export const PROVIDER_A_MOUNT_ROOT = "/mnt";

export function providerABaseUrl(block: { workspace_id?: string; base_url?: string }): string {
  if (block.base_url) return block.base_url;
  if (!block.workspace_id)
    throw new DeclarationError(
      "provider_a.block_without_workspace",
      "provider_a needs workspace_id (or base_url)",
    );
  // The id is an opaque host label; anything that is not one would redirect requests elsewhere.
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(block.workspace_id)) {
    throw new DeclarationError(
      "provider_a.workspace_id_not_a_host_label",
      `provider_a workspace_id "${block.workspace_id}" is not a valid host label`,
    );
  }
  return `https://${block.workspace_id}.cn-beijing.maas.aliyuncs.com/api/v1/agentstudio`;
}

/** `{type:"error", error:{code, message}}`, sometimes `{error:"text"}`; conflicts also by text. */
export const parseProviderAError: ErrorParser = (status, body) => {
  const err = (body as { error?: unknown } | undefined)?.error;
  const code = err && typeof err === "object" ? (err as { code?: unknown }).code : undefined;
  const message =
    err && typeof err === "object"
      ? (err as { message?: unknown }).message
      : typeof err === "string"
        ? err
        : typeof body === "string"
          ? body
          : undefined;
  const text = errorText(body);
  const conflict =
    status === 409 || text.includes("11300026") || text.includes("已存在") || text.includes("already exists");
  return {
    code: typeof code === "string" ? code : undefined,
    message: typeof message === "string" ? message : undefined,
    conflict,
  };
};

export function connectProviderA(
  block: Record<string, unknown>,
  factory: HttpClientFactory,
  baseUrlOverride?: string,
): HttpClient {
  const apiKey = block.api_key;
  if (typeof apiKey !== "string" || apiKey === "")
    throw new DeclarationError("provider_a.block_without_api_key", "provider_a needs api_key");
  const baseUrl =
    baseUrlOverride ??
    providerABaseUrl({
      workspace_id: typeof block.workspace_id === "string" ? block.workspace_id : undefined,
      base_url: typeof block.base_url === "string" ? block.base_url : undefined,
    });
  return factory({
    provider: "provider_a",
    baseUrl,
    headers: { authorization: `Bearer ${apiKey}` },
    parseError: parseProviderAError,
    secrets: [apiKey],
  });
}
