// Environments: same body on both providers (`config: {type:"cloud", networking, packages}`).

import { DeclarationError } from "../common/errors.js";
import { str } from "../common/handler-kit.js";
import { type Metadata, userMetadata } from "../common/ownership.js";
import { compact, isRecord, type Json, nonEmpty, strList } from "./spec.js";

export const PACKAGE_MANAGERS = ["apt", "cargo", "gem", "go", "npm", "pip"] as const;

/** Networking in its canonical form: omitted = unrestricted; false flags and empty lists dropped. */
function canonicalNetworking(value: unknown): Json | undefined {
  if (!isRecord(value) || value.type !== "limited") return undefined;
  return compact({
    type: "limited",
    allowed_hosts: [...new Set(strList(value.allowed_hosts))].sort(),
    allow_mcp_servers: value.allow_mcp_servers === true ? true : undefined,
    allow_package_managers: value.allow_package_managers === true ? true : undefined,
  });
}

function canonicalPackages(value: unknown): Json | undefined {
  if (!isRecord(value)) return undefined;
  const out: Json = {};
  for (const manager of PACKAGE_MANAGERS) {
    const list = strList(value[manager]);
    if (list.length > 0) out[manager] = list;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The compared fields of an environment, read alike from a declaration and from a remote object. */
function comparableEnvironment(source: Json, name: string | undefined): Json {
  const config = isRecord(source.config) ? source.config : {};
  return compact({
    name,
    description: nonEmpty(str(source.description)),
    config: compact({
      type: str(config.type) ?? "cloud",
      networking: canonicalNetworking(config.networking),
      packages: canonicalPackages(config.packages),
    }),
    metadata: userMetadata(source.metadata),
  });
}

/** The comparable form of a declared environment (also what fromWire returns). */
export function canonicalEnvironment(spec: Json): Json {
  return comparableEnvironment(spec, nonEmpty(str(spec.name)));
}

export function environmentToWire(spec: Json, wireName: string, metadata: Metadata): Json {
  const config = isRecord(spec.config) ? spec.config : {};
  if (config.type !== undefined && config.type !== "cloud")
    throw new DeclarationError(
      "managed.environment_type_not_cloud",
      `config.type "${String(config.type)}" is not available here; use "cloud"`,
    );
  if (config.setup_script !== undefined)
    throw new DeclarationError(
      "managed.setup_script",
      "config.setup_script is not supported by this provider; remove it",
    );
  const packages = canonicalPackages(config.packages);
  return {
    name: wireName,
    description: str(spec.description) ?? "",
    metadata,
    config: {
      type: "cloud",
      networking: canonicalNetworking(config.networking) ?? { type: "unrestricted" },
      packages: { type: "packages", ...(packages ?? {}) },
    },
  };
}

/**
 * Remote → declared shape. `name` is left out when it equals the name the adapter would have
 * chosen (`isDefaultName`), so an undeclared display name never shows as drift.
 */
export function environmentFromWire(remote: Json, isDefaultName: (name: string) => boolean): Json {
  const name = str(remote.name);
  return comparableEnvironment(remote, name !== undefined && !isDefaultName(name) ? name : undefined);
}
