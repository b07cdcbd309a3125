// provider_b Forward-only kinds: Identities (managed and external) and Channels (fixed, pairing).

import { DeclarationError } from "../../common/errors.js";
import { userMetadata } from "../../common/ownership.js";
import type { Spec } from "../../types.js";

export interface IdentityDecl {
  external_id?: string;
  identity_id?: string;
  name?: string;
  enabled?: boolean;
  metadata?: Record<string, string>;
}

/** Identities carry the user's metadata only; removed keys are sent as "" (not null). */
export function identityToWire(
  decl: IdentityDecl,
  name: string,
  remoteMetadata?: unknown,
): Record<string, unknown> {
  if (!decl.external_id)
    throw new DeclarationError(
      "provider_b.managed_identity_without_external_id",
      `identity "${name}": a managed identity needs external_id`,
    );
  const metadata: Record<string, string> = { ...(decl.metadata ?? {}) };
  for (const key of Object.keys(userMetadata(remoteMetadata))) if (!(key in metadata)) metadata[key] = "";
  return { external_id: decl.external_id, name: decl.name ?? name, enabled: decl.enabled ?? true, metadata };
}

export function identityFromWire(remote: Record<string, unknown>, logicalName: string): Spec {
  const metadata = Object.fromEntries(
    Object.entries(userMetadata(remote.metadata)).filter(([, v]) => v !== ""),
  );
  return {
    external_id: remote.external_id,
    ...(remote.name !== logicalName ? { name: remote.name } : {}),
    enabled: remote.enabled !== false,
    metadata,
  };
}

export function identityDesired(decl: IdentityDecl): Spec {
  return {
    external_id: decl.external_id,
    ...(decl.name !== undefined ? { name: decl.name } : {}),
    enabled: decl.enabled ?? true,
    metadata: { ...(decl.metadata ?? {}) },
  };
}

export interface ChannelDecl {
  agent?: string;
  identity?: string;
  type: string;
  mode?: "fixed" | "pairing";
  name?: string;
  enabled?: boolean;
  credentials?: Record<string, string>;
  options?: Record<string, unknown>;
}

const CHANNEL_CREDENTIAL_KEYS: Record<string, string[]> = {
  dingtalk: ["client_id", "client_secret"],
  feishu: ["app_id", "app_secret"],
  wecom: ["bot_id", "secret"],
  wechat: [],
};

interface ChannelInput {
  name: string;
  identityId?: string;
  templateId?: string;
  update: boolean;
}

export function channelToWire(decl: ChannelDecl, input: ChannelInput): Record<string, unknown> {
  const keys = CHANNEL_CREDENTIAL_KEYS[decl.type];
  if (!keys)
    throw new DeclarationError(
      "provider_b.channel_type",
      `channel "${input.name}": unknown type ${decl.type}; use ${Object.keys(CHANNEL_CREDENTIAL_KEYS).join(", ")}`,
    );
  const credentials: Record<string, string> = {};
  for (const key of keys) {
    const value = decl.credentials?.[key];
    if (value === undefined || value === "")
      throw new DeclarationError(
        "provider_b.channel_without_credential",
        `channel "${input.name}": ${decl.type} needs credentials.${key}`,
      );
    credentials[key] = String(value);
  }
  if (keys.length === 0 && decl.credentials && Object.keys(decl.credentials).length) {
    throw new DeclarationError(
      "provider_b.qr_channel_with_credentials",
      `channel "${input.name}": ${decl.type} is QR-only; remove credentials`,
    );
  }
  const body: Record<string, unknown> = {
    name: decl.name ?? input.name,
    enabled: decl.enabled ?? true,
    channel_config: {
      // A QR-only type (wechat) is connected by scanning a code: it takes no credentials at all,
      // and the provider refuses even an empty object.
      ...(keys.length > 0 ? { credentials } : {}),
      response_options: { include_tool_calls: false, include_thinking: false, ...(decl.options ?? {}) },
    },
  };
  const mode = decl.mode ?? "fixed";
  if (mode === "fixed") {
    if (!input.identityId || !input.templateId) {
      throw new DeclarationError(
        "provider_b.fixed_channel_incomplete",
        `channel "${input.name}": fixed mode needs an identity and a Forward agent`,
      );
    }
    body.identity_id = input.identityId;
    body.template_id = input.templateId;
  }
  if (!input.update) {
    body.channel_type = decl.type;
    if (mode === "pairing") body.identity_resolution = { mode: "pairing" };
  }
  return body;
}

export function channelFromWire(remote: Record<string, unknown>, logicalName: string): Spec {
  const config = (remote.channel_config ?? {}) as { response_options?: Record<string, unknown> };
  const mode =
    (remote.identity_resolution as { mode?: string } | undefined)?.mode === "pairing" ? "pairing" : "fixed";
  return {
    type: remote.channel_type,
    mode,
    ...(remote.name !== logicalName ? { name: remote.name } : {}),
    enabled: remote.enabled !== false,
    options: { ...(config.response_options ?? {}) },
  };
}

export function channelDesired(decl: ChannelDecl): Spec {
  return {
    type: decl.type,
    mode: decl.mode ?? "fixed",
    ...(decl.name !== undefined ? { name: decl.name } : {}),
    enabled: decl.enabled ?? true,
    options: { include_tool_calls: false, include_thinking: false, ...(decl.options ?? {}) },
    ...(decl.credentials ? { credentials: { ...decl.credentials } } : {}),
  };
}
