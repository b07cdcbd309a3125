// provider_b vault credentials: static_bearer and environment_variable (docs/wire/provider-b.md §3.2).
import { DeclarationError } from "../../common/errors.js";

export interface CredentialDecl {
  name: string;
  type: "static_bearer" | "environment_variable";
  mcp_server_url?: string;
  access_token?: string | number;
  protocol?: "sse" | "streamable_http";
  secret_name?: string;
  secret_value?: string | number;
  networking?: { type?: "unrestricted" | "limited"; allowed_hosts?: string[] };
}

export function credentialToWire(decl: CredentialDecl): {
  display_name: string;
  auth: Record<string, unknown>;
} {
  if (decl.type === "static_bearer") {
    if (!decl.mcp_server_url || decl.access_token === undefined) {
      throw new DeclarationError(
        "provider_b.static_bearer_incomplete",
        `credential "${decl.name}": static_bearer needs mcp_server_url and access_token`,
      );
    }
    return {
      display_name: decl.name,
      auth: {
        type: "static_bearer",
        mcp_server_url: decl.mcp_server_url,
        token: String(decl.access_token),
        ...(decl.protocol ? { protocol: decl.protocol } : {}),
      },
    };
  }
  if (decl.type === "environment_variable") {
    if (!decl.secret_name || decl.secret_value === undefined) {
      throw new DeclarationError(
        "provider_b.environment_variable_incomplete",
        `credential "${decl.name}": environment_variable needs secret_name and secret_value`,
      );
    }
    const networking =
      decl.networking?.type === "limited"
        ? { type: "limited", allowed_hosts: decl.networking.allowed_hosts ?? [] }
        : { type: "unrestricted" };
    return {
      display_name: decl.name,
      auth: {
        type: "environment_variable",
        secret_name: decl.secret_name,
        secret_value: String(decl.secret_value),
        networking,
      },
    };
  }
  throw new DeclarationError(
    "provider_b.credential_type",
    `credential "${(decl as { name: string }).name}": unknown type ${(decl as { type: string }).type}`,
  );
}

export function secretOf(auth: Record<string, unknown>): string {
  return String(auth.token ?? auth.secret_value ?? "");
}

/** Read-back (secrets never come back): the declaration without its secret. */
export function credentialFromWire(remote: {
  id: string;
  display_name?: string | null;
  auth?: Record<string, unknown>;
}) {
  const auth = remote.auth ?? {};
  const out: Record<string, unknown> = { name: remote.display_name ?? remote.id, type: auth.type };
  if (auth.type === "static_bearer") {
    out.mcp_server_url = auth.mcp_server_url;
    if (auth.protocol) out.protocol = auth.protocol;
  } else {
    out.secret_name = auth.secret_name;
    const n = auth.networking as { type?: string; allowed_hosts?: string[] } | undefined;
    out.networking =
      n?.type === "limited"
        ? { type: "limited", allowed_hosts: n.allowed_hosts ?? [] }
        : { type: "unrestricted" };
  }
  return out;
}

/** The comparable form of a declared credential (secret kept: the engine hashes it). */
export function credentialDesired(decl: CredentialDecl): Record<string, unknown> {
  const wire = credentialToWire(decl);
  const read = credentialFromWire({ id: decl.name, display_name: decl.name, auth: wire.auth });
  return decl.type === "static_bearer"
    ? { ...read, access_token: String(decl.access_token) }
    : { ...read, secret_value: String(decl.secret_value) };
}
