// provider_a vault credentials. Only `environment_variable` is usable upstream (`static_bearer`
// is rejected by the live API with CREDENTIAL_AUTH_TYPE_ERROR, so it is rejected here first).
// The injection policy follows docs/wire/provider-a.md §8 (U1), one function per rule set:
// defaults on create, legacy mapping, no implicit widening, and a set-based comparison.

import { DeclarationError } from "../../common/errors.js";
import {
  CREDENTIAL_INJECTION_FIELD,
  CREDENTIAL_NETWORKING_FIELD,
  hostsFromWire,
  hostsToWire,
} from "../wire-decisions.js";

export interface CredentialDecl {
  name: string;
  type: string;
  secret_name?: string;
  secret_value?: string | number;
  networking?: { type?: "unrestricted" | "limited"; allowed_hosts?: string[] };
  injection_location?: { header?: boolean; body?: boolean };
  mcp_server_url?: string;
  access_token?: string | number;
  metadata?: Record<string, string>;
}

interface InjectionPolicy {
  allowedHosts: string[];
  header: boolean;
  body: boolean;
}

const DEFAULT_POLICY: InjectionPolicy = { allowedHosts: ["*"], header: true, body: false };

export function resolvePolicy(
  decl: Pick<CredentialDecl, "name" | "networking" | "injection_location">,
): InjectionPolicy {
  const net = decl.networking;
  let allowedHosts: string[];
  if (net?.type === "limited") {
    if (!net.allowed_hosts || net.allowed_hosts.length === 0) {
      throw new DeclarationError(
        "provider_a.limited_without_hosts",
        `credential "${decl.name}": networking.type limited needs allowed_hosts (it is never widened to all hosts); list the hosts or use unrestricted`,
      );
    }
    allowedHosts = [...net.allowed_hosts];
  } else if (net?.type === "unrestricted") {
    if (net.allowed_hosts && !(net.allowed_hosts.length === 1 && net.allowed_hosts[0] === "*")) {
      throw new DeclarationError(
        "provider_a.unrestricted_with_hosts",
        `credential "${decl.name}": networking.type unrestricted contradicts allowed_hosts; use type limited with the host list`,
      );
    }
    allowedHosts = ["*"];
  } else if (net?.allowed_hosts) {
    if (net.allowed_hosts.length === 0) {
      throw new DeclarationError(
        "provider_a.allowed_hosts_empty",
        `credential "${decl.name}": allowed_hosts is empty; list at least one host or "*"`,
      );
    }
    allowedHosts = [...net.allowed_hosts];
  } else {
    allowedHosts = [...DEFAULT_POLICY.allowedHosts];
  }
  return {
    allowedHosts,
    header: decl.injection_location?.header ?? DEFAULT_POLICY.header,
    body: decl.injection_location?.body ?? DEFAULT_POLICY.body,
  };
}

function hostKey(hosts: string[]): string {
  return [...new Set(hosts.map((h) => h.trim().toLowerCase()))].sort().join("\n");
}

/** Host sets compare as sets (order, case and duplicates do not matter); booleans exactly. */
export function samePolicy(a: InjectionPolicy, b: InjectionPolicy): boolean {
  return hostKey(a.allowedHosts) === hostKey(b.allowedHosts) && a.header === b.header && a.body === b.body;
}

export function credentialToWire(decl: CredentialDecl): Record<string, unknown> {
  if (decl.type !== "environment_variable") {
    throw new DeclarationError(
      "provider_a.credential_type",
      `credential "${decl.name}": provider_a accepts only environment_variable credentials (the API rejects ${decl.type})`,
    );
  }
  if (!decl.secret_name)
    throw new DeclarationError(
      "provider_a.credential_without_secret_name",
      `credential "${decl.name}": secret_name is required`,
    );
  if (decl.secret_value === undefined)
    throw new DeclarationError(
      "provider_a.credential_without_secret_value",
      `credential "${decl.name}": secret_value is required`,
    );
  const policy = resolvePolicy(decl);
  return {
    display_name: decl.name,
    ...(decl.metadata ? { metadata: decl.metadata } : {}),
    auth: {
      type: "environment_variable",
      secret_name: decl.secret_name,
      secret_value: String(decl.secret_value),
      [CREDENTIAL_NETWORKING_FIELD]: hostsToWire(policy.allowedHosts),
      [CREDENTIAL_INJECTION_FIELD]: { header: policy.header, body: policy.body },
    },
  };
}

export interface RemoteCredential {
  id: string;
  display_name?: string | null;
  metadata?: Record<string, string>;
  archived_at?: string | null;
  auth?: Record<string, unknown>;
}

/** The read-back policy; fields the provider does not echo fall back to the create defaults. */
function policyFromWire(auth: Record<string, unknown> | undefined): InjectionPolicy {
  const hosts = hostsFromWire(auth?.[CREDENTIAL_NETWORKING_FIELD]);
  const inj = auth?.[CREDENTIAL_INJECTION_FIELD] as { header?: unknown; body?: unknown } | undefined;
  return {
    allowedHosts: hosts ?? [...DEFAULT_POLICY.allowedHosts],
    header: typeof inj?.header === "boolean" ? inj.header : DEFAULT_POLICY.header,
    body: typeof inj?.body === "boolean" ? inj.body : DEFAULT_POLICY.body,
  };
}

/** Remote credential in declaration shape, explicit host lists and booleans kept, secret omitted. */
export function credentialFromWire(remote: RemoteCredential): Omit<CredentialDecl, "secret_value"> {
  const policy = policyFromWire(remote.auth);
  return {
    name: remote.display_name ?? remote.id,
    type: String(remote.auth?.type ?? "environment_variable"),
    ...(typeof remote.auth?.secret_name === "string" ? { secret_name: remote.auth.secret_name } : {}),
    networking: { allowed_hosts: policy.allowedHosts },
    injection_location: { header: policy.header, body: policy.body },
  };
}

/**
 * Retry adoption: an existing credential is an exact match only when identity (display name and
 * secret name), metadata and the injection policy all agree. A different policy is not a match.
 */
export function isExactCredentialMatch(decl: CredentialDecl, remote: RemoteCredential): boolean {
  if (remote.archived_at) return false;
  if ((remote.display_name ?? "") !== decl.name) return false;
  if (remote.auth?.type !== decl.type || remote.auth?.secret_name !== decl.secret_name) return false;
  if (!sameRecord(decl.metadata ?? {}, remote.metadata ?? {})) return false;
  return samePolicy(resolvePolicy(decl), policyFromWire(remote.auth));
}

function sameRecord(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}
