// provider_a environments: cloud only, unrestricted networking only, no setup_script.

import { DeclarationError } from "../../common/errors.js";
import { type Metadata, userMetadata } from "../../common/ownership.js";
import type { Spec } from "../../types.js";
import { ENVIRONMENT_LIMITED_NETWORKING_SUPPORTED } from "../wire-decisions.js";

const PACKAGE_MANAGERS = ["apt", "pip", "npm", "cargo", "gem", "go"] as const;
type Packages = Partial<Record<(typeof PACKAGE_MANAGERS)[number], string[]>>;

export interface EnvironmentDecl {
  name?: string;
  description?: string;
  config?: {
    type?: string;
    networking?: { type?: string; allowed_hosts?: string[] };
    packages?: Packages;
    setup_script?: string;
  };
  metadata?: Record<string, string>;
}

export function environmentToWire(
  decl: EnvironmentDecl,
  name: string,
  metadata: Metadata,
): Record<string, unknown> {
  const config = decl.config ?? {};
  if (config.type && config.type !== "cloud") {
    throw new DeclarationError(
      "provider_a.environment_type_not_cloud",
      `environment "${name}": provider_a supports only config.type cloud`,
    );
  }
  if (config.setup_script !== undefined) {
    throw new DeclarationError(
      "provider_a.setup_script",
      `environment "${name}": setup_script is supported only by provider_b; remove it`,
    );
  }
  if (config.networking?.type === "limited" && !ENVIRONMENT_LIMITED_NETWORKING_SUPPORTED) {
    throw new DeclarationError(
      "provider_a.limited_networking",
      `environment "${name}": provider_a accepts only unrestricted networking; the tool will not widen limited silently`,
    );
  }
  const packages = nonEmptyPackages(config.packages);
  return {
    name: decl.name ?? name,
    scope: "organization",
    ...(decl.description !== undefined ? { description: decl.description } : {}),
    config: { type: "cloud", networking: { type: "unrestricted" }, ...(packages ? { packages } : {}) },
    metadata,
  };
}

function nonEmptyPackages(packages: unknown): Packages | undefined {
  if (!packages || typeof packages !== "object") return undefined;
  const out: Packages = {};
  for (const pm of PACKAGE_MANAGERS) {
    const list = (packages as Packages)[pm];
    if (Array.isArray(list) && list.length > 0) out[pm] = [...list];
  }
  return Object.keys(out).length ? out : undefined;
}

/** The comparable form of a declaration: what a faithful read-back of it would look like. */
export function environmentDesired(decl: EnvironmentDecl): Spec {
  const packages = nonEmptyPackages(decl.config?.packages);
  return {
    ...(decl.name !== undefined ? { name: decl.name } : {}),
    ...(decl.description ? { description: decl.description } : {}),
    config: {
      type: decl.config?.type ?? "cloud",
      networking: { type: decl.config?.networking?.type ?? "unrestricted" },
      ...(packages ? { packages } : {}),
    },
    metadata: { ...(decl.metadata ?? {}) },
  };
}

export function environmentFromWire(remote: Record<string, unknown>, logicalName: string): Spec {
  const config = (remote.config ?? {}) as Record<string, unknown>;
  const packages = nonEmptyPackages(config.packages);
  const networking = config.networking as { type?: string } | undefined;
  return {
    ...(remote.name !== logicalName ? { name: remote.name } : {}),
    ...(typeof remote.description === "string" && remote.description !== ""
      ? { description: remote.description }
      : {}),
    config: {
      type: typeof config.type === "string" ? config.type : "cloud",
      networking: { type: networking?.type ?? "unrestricted" },
      ...(packages ? { packages } : {}),
    },
    metadata: userMetadata(remote.metadata),
  };
}
