// Vaults and their credentials. Secrets go out on create/update and never come back: the
// providers do not return them, and fromWire leaves them out so drift cannot "see" them.

import { DeclarationError } from "../common/errors.js";
import { str } from "../common/handler-kit.js";
import { type Metadata, userMetadata } from "../common/ownership.js";
import { compact, isRecord, type Json, nonEmpty, records, strList } from "./spec.js";

export const VAULT_SENSITIVE_PATHS = ["credentials.*.access_token", "credentials.*.secret_value"];

export interface CredentialWire {
  /** Declared credential name, sent as `display_name` and used to match remote credentials. */
  name: string;
  type: "static_bearer" | "environment_variable";
  body: Json;
}

interface CredentialMappingOptions {
  /** provider_c carries `injection_location`; provider_d has no such field. */
  injectionLocation: boolean;
  warn?: (message: string) => void;
}

export function credentialToWire(decl: Json, options: CredentialMappingOptions): CredentialWire {
  const name = str(decl.name);
  if (!name)
    throw new DeclarationError("managed.credential_without_name", "every vault credential needs a name");
  if (decl.type === "static_bearer") {
    const url = str(decl.mcp_server_url);
    const token = str(decl.access_token);
    if (!url || token === undefined)
      throw new DeclarationError(
        "managed.static_bearer_incomplete",
        `credential "${name}": static_bearer needs mcp_server_url and access_token`,
      );
    if (decl.protocol !== undefined)
      options.warn?.(`credential "${name}": protocol is not part of this provider's wire and is not sent`);
    return {
      name,
      type: "static_bearer",
      body: { display_name: name, auth: { type: "static_bearer", token, mcp_server_url: url } },
    };
  }
  if (decl.type === "environment_variable") {
    const secretName = str(decl.secret_name);
    const secretValue = str(decl.secret_value);
    if (!secretName || secretValue === undefined)
      throw new DeclarationError(
        "managed.environment_variable_incomplete",
        `credential "${name}": environment_variable needs secret_name and secret_value`,
      );
    const auth: Json = {
      type: "environment_variable",
      secret_name: secretName,
      secret_value: secretValue,
      networking: credentialNetworking(decl.networking, name),
    };
    // Sent as declared (defaults filled in); the comparison form drops the defaults instead.
    const injection = isRecord(decl.injection_location)
      ? {
          header: decl.injection_location.header ?? DEFAULT_INJECTION.header,
          body: decl.injection_location.body ?? DEFAULT_INJECTION.body,
        }
      : undefined;
    if (injection) {
      if (options.injectionLocation) auth.injection_location = injection;
      else options.warn?.(`credential "${name}": injection_location is not supported here and is not sent`);
    }
    return { name, type: "environment_variable", body: { display_name: name, auth } };
  }
  throw new DeclarationError(
    "managed.credential_type",
    `credential "${name}": type "${String(decl.type)}" is not supported`,
  );
}

function credentialNetworking(value: unknown, name: string): Json {
  if (!isRecord(value) || value.type !== "limited") return { type: "unrestricted" };
  const hosts = strList(value.allowed_hosts);
  if (hosts.length === 0)
    throw new DeclarationError(
      "managed.limited_without_hosts",
      `credential "${name}": limited networking needs allowed_hosts`,
    );
  return { type: "limited", allowed_hosts: hosts };
}

/** What the provider assumes when no injection location is sent: headers yes, bodies no. */
const DEFAULT_INJECTION = { header: true, body: false } as const;

function canonicalInjection(value: unknown): Json | undefined {
  if (!isRecord(value)) return undefined;
  const header = typeof value.header === "boolean" ? value.header : DEFAULT_INJECTION.header;
  const body = typeof value.body === "boolean" ? value.body : DEFAULT_INJECTION.body;
  if (header === DEFAULT_INJECTION.header && body === DEFAULT_INJECTION.body) return undefined;
  return { header, body };
}

const byName = (a: Json, b: Json) => String(a.name).localeCompare(String(b.name));

/** A credential in comparable form, secrets removed (they are never shown back). */
function canonicalCredential(decl: Json, options: { injectionLocation: boolean }): Json {
  const base = { name: str(decl.name), type: str(decl.type) };
  if (decl.type === "static_bearer") return compact({ ...base, mcp_server_url: str(decl.mcp_server_url) });
  const networking =
    isRecord(decl.networking) && decl.networking.type === "limited" ? decl.networking : undefined;
  return compact({
    ...base,
    secret_name: str(decl.secret_name),
    networking: networking
      ? { type: "limited", allowed_hosts: strList(networking.allowed_hosts) }
      : undefined,
    injection_location: options.injectionLocation ? canonicalInjection(decl.injection_location) : undefined,
  });
}

/** Remote credential → declared shape (without secrets). */
export function credentialFromWire(remote: Json, options: { injectionLocation: boolean }): Json | undefined {
  const auth = isRecord(remote.auth) ? remote.auth : remote;
  const type = str(auth.type);
  if (type !== "static_bearer" && type !== "environment_variable") return undefined; // e.g. mcp_oauth
  return canonicalCredential(
    {
      name: str(remote.display_name) ?? str(remote.name),
      type,
      mcp_server_url: auth.mcp_server_url,
      secret_name: auth.secret_name,
      networking: auth.networking,
      injection_location: auth.injection_location,
    },
    options,
  );
}

function vaultDisplayName(spec: Json, logicalName: string): string {
  return nonEmpty(str(spec.display_name)) ?? logicalName;
}

export function vaultToWire(spec: Json, logicalName: string, metadata: Metadata): Json {
  return { display_name: vaultDisplayName(spec, logicalName), metadata };
}

/**
 * Comparable declared vault. Secrets stay (the engine masks and hashes them via `sensitive`);
 * everything else is in the form fromWire produces.
 */
export function canonicalVault(spec: Json, options: { injectionLocation: boolean }): Json {
  return compact({
    display_name: nonEmpty(str(spec.display_name)),
    metadata: userMetadata(spec.metadata),
    credentials: records(spec.credentials)
      .map((c) =>
        compact({
          ...canonicalCredential(c, options),
          access_token: str(c.access_token),
          secret_value: str(c.secret_value),
        }),
      )
      .sort(byName),
  });
}

export function vaultFromWire(
  remote: Json,
  credentials: Json[],
  logicalName: string,
  options: { injectionLocation: boolean },
): Json {
  const displayName = str(remote.display_name);
  return {
    ...compact({
      display_name: displayName !== undefined && displayName !== logicalName ? displayName : undefined,
      metadata: userMetadata(remote.metadata),
    }),
    // Always present, even empty: an absent key reads as "not shown" and the plan would keep the
    // last-applied credentials, so a vault whose credentials are gone would look up to date.
    // Presence and the shown fields are compared; secret values never come back.
    credentials: credentials
      .filter((c) => !c.archived_at)
      .map((c) => credentialFromWire(c, options))
      .filter((c): c is Json => c !== undefined)
      .sort(byName),
  };
}
