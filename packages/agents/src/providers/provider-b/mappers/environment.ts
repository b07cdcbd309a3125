// provider_b environments (docs/wire/provider-b.md §3.1; declaration rules in
// docs/configuration.md#environmentsname): cloud or self_hosted (BYOC), apt/npm/pip only, setup_script ≤ 64
// KiB. The Forward domain takes no networking.

import { DeclarationError } from "../../common/errors.js";
import { type Metadata, userMetadata } from "../../common/ownership.js";
import type { Spec } from "../../types.js";
import type { ApiDomain } from "../client.js";

const SETUP_SCRIPT_MAX_BYTES = 64 * 1024;
const SENT_MANAGERS = ["apt", "npm", "pip"] as const;
const REJECTED_MANAGERS = ["cargo", "gem", "go"] as const;

export interface EnvironmentDecl {
  name?: string;
  description?: string;
  config?: {
    type?: "cloud" | "self_hosted";
    networking?: {
      type?: "unrestricted" | "limited";
      allowed_hosts?: string[];
      allow_mcp_servers?: boolean;
      allow_package_managers?: boolean;
    };
    packages?: Partial<Record<string, string[]>>;
    setup_script?: string;
  };
  metadata?: Record<string, string>;
}

function environmentConfigToWire(
  decl: EnvironmentDecl,
  name: string,
  domain: ApiDomain,
): Record<string, unknown> {
  const config = decl.config ?? {};
  const type = config.type ?? "cloud";
  if (
    config.setup_script !== undefined &&
    Buffer.byteLength(config.setup_script, "utf8") > SETUP_SCRIPT_MAX_BYTES
  ) {
    throw new DeclarationError(
      "provider_b.setup_script_too_large",
      `environment "${name}": setup_script is larger than 64 KB; move the work into packages or a script in the image`,
    );
  }
  const script = config.setup_script !== undefined ? { setup_script: config.setup_script } : {};
  if (type === "self_hosted") {
    if (config.networking || config.packages) {
      throw new DeclarationError(
        "provider_b.self_hosted_with_cloud_fields",
        `environment "${name}": a self_hosted environment takes only type and setup_script; networking and packages belong to cloud environments`,
      );
    }
    return { type, ...script };
  }
  for (const pm of REJECTED_MANAGERS) {
    if ((config.packages?.[pm] ?? []).length > 0) {
      throw new DeclarationError(
        "provider_b.package_manager",
        `environment "${name}": provider_b installs only apt, npm and pip packages; remove packages.${pm}`,
      );
    }
  }
  const packages: Record<string, string[]> = {};
  for (const pm of SENT_MANAGERS) {
    const list = config.packages?.[pm];
    if (list && list.length > 0) packages[pm] = [...list];
  }
  const out: Record<string, unknown> = { type: "cloud" };
  if (domain === "managed") out.networking = networkingToWire(config.networking);
  if (Object.keys(packages).length) out.packages = packages;
  return { ...out, ...script };
}

function networkingToWire(networking: NonNullable<EnvironmentDecl["config"]>["networking"]) {
  if (!networking || (networking.type ?? "unrestricted") === "unrestricted") return { type: "unrestricted" };
  return {
    type: "limited",
    allowed_hosts: networking.allowed_hosts ?? [],
    ...(networking.allow_mcp_servers !== undefined
      ? { allow_mcp_servers: networking.allow_mcp_servers }
      : {}),
    ...(networking.allow_package_managers !== undefined
      ? { allow_package_managers: networking.allow_package_managers }
      : {}),
  };
}

export function environmentToWire(
  decl: EnvironmentDecl,
  name: string,
  metadata: Record<string, string | null>,
  domain: ApiDomain,
): Record<string, unknown> {
  // The full config is always sent: a setup_script dropped from the file must disappear remotely.
  return {
    name: decl.name ?? name,
    description: decl.description ?? "",
    config: environmentConfigToWire(decl, name, domain),
    metadata,
  };
}

/** Limited networking in one spelling: absent flags are the provider's default `false`. */
function comparableNetworking(n: Record<string, unknown>): Record<string, unknown> {
  if (n.type !== "limited") return { type: "unrestricted" };
  return {
    type: "limited",
    allowed_hosts: Array.isArray(n.allowed_hosts) ? n.allowed_hosts : [],
    allow_mcp_servers: n.allow_mcp_servers === true,
    allow_package_managers: n.allow_package_managers === true,
  };
}

export function environmentDesired(decl: EnvironmentDecl, domain: ApiDomain): Spec {
  const config = environmentConfigToWire(decl, decl.name ?? "environment", domain);
  if (config.networking)
    config.networking = comparableNetworking(config.networking as Record<string, unknown>);
  return {
    ...(decl.name !== undefined ? { name: decl.name } : {}),
    ...(decl.description ? { description: decl.description } : {}),
    config,
    metadata: { ...(decl.metadata ?? {}) } as Metadata,
  };
}

/** Read-back in the desired shape; `type:"packages"` and empty cargo/gem/go arrays are ignored. */
export function environmentFromWire(
  remote: Record<string, unknown>,
  logicalName: string,
  domain: ApiDomain,
): Spec {
  const config = (remote.config ?? {}) as Record<string, unknown>;
  const type = config.type === "self_hosted" ? "self_hosted" : "cloud";
  const out: Record<string, unknown> = { type };
  if (type === "cloud") {
    if (domain === "managed") {
      const n = (config.networking ?? { type: "unrestricted" }) as Record<string, unknown>;
      out.networking = comparableNetworking(n);
    }
    const packages: Record<string, string[]> = {};
    const remotePackages = (config.packages ?? {}) as Record<string, unknown>;
    for (const pm of SENT_MANAGERS) {
      const list = remotePackages[pm];
      if (Array.isArray(list) && list.length > 0) packages[pm] = list as string[];
    }
    if (Object.keys(packages).length) out.packages = packages;
  }
  if (typeof config.setup_script === "string" && config.setup_script !== "")
    out.setup_script = config.setup_script;
  return {
    ...(remote.name !== logicalName ? { name: remote.name } : {}),
    ...(typeof remote.description === "string" && remote.description
      ? { description: remote.description }
      : {}),
    config: out,
    metadata: userMetadata(remote.metadata),
  };
}
