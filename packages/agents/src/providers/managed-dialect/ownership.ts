// Ownership keys let the engine adopt what a crashed run created instead of duplicating it.
import { OWNER_PROJECT_KEY, OWNER_RESOURCE_KEY, type Owner } from "../types.js";
import { WireMappingError } from "./spec.js";

export type StringMap = Record<string, string>;

/** The providers' metadata limits: at most 16 pairs, keys ≤ 64 and values ≤ 512 characters. */
export const METADATA_LIMITS = { pairs: 16, keyLength: 64, valueLength: 512 } as const;

/**
 * User metadata plus the two ownership keys; a key the user set explicitly wins. Over-limit maps
 * fail here, naming the fix, instead of as a provider 400.
 */
export function withOwnerMetadata(user: StringMap | undefined, owner: Owner): StringMap {
  const merged = {
    [OWNER_PROJECT_KEY]: owner.project,
    [OWNER_RESOURCE_KEY]: owner.resource,
    ...(user ?? {}),
  };
  const pairs = Object.keys(merged).length;
  if (pairs > METADATA_LIMITS.pairs)
    throw new WireMappingError(
      `metadata has ${pairs} keys with the two ownership keys; the provider allows ${METADATA_LIMITS.pairs}: ` +
        `remove ${pairs - METADATA_LIMITS.pairs}`,
    );
  for (const [key, value] of Object.entries(merged)) {
    if (key.length > METADATA_LIMITS.keyLength)
      throw new WireMappingError(
        `metadata key "${key.slice(0, 20)}…" is longer than ${METADATA_LIMITS.keyLength} characters`,
      );
    if (value.length > METADATA_LIMITS.valueLength)
      throw new WireMappingError(
        `metadata "${key}" is longer than ${METADATA_LIMITS.valueLength} characters`,
      );
  }
  return merged;
}

export function ownerFromMetadata(metadata: unknown): Owner | undefined {
  if (!metadata || typeof metadata !== "object") return undefined;
  const m = metadata as Record<string, unknown>;
  const project = m[OWNER_PROJECT_KEY];
  const resource = m[OWNER_RESOURCE_KEY];
  if (typeof project !== "string" || typeof resource !== "string") return undefined;
  return { project, resource };
}

/**
 * The owner as `list` reports it: `agents.project` alone still marks the object as a project's,
 * with an empty `resource`, so sync can refuse an owned object that lost its logical name.
 */
export function listedOwner(metadata: unknown): Owner | undefined {
  if (!metadata || typeof metadata !== "object") return undefined;
  const m = metadata as Record<string, unknown>;
  const project = m[OWNER_PROJECT_KEY];
  if (typeof project !== "string") return undefined;
  const resource = m[OWNER_RESOURCE_KEY];
  return { project, resource: typeof resource === "string" ? resource : "" };
}

export function isOwnedBy(metadata: unknown, owner: Owner): boolean {
  const found = ownerFromMetadata(metadata);
  return found?.project === owner.project && found.resource === owner.resource;
}

/** Metadata as the user declared it: ownership keys removed, undefined when nothing is left. */
export function userMetadata(metadata: unknown): StringMap | undefined {
  if (!metadata || typeof metadata !== "object") return undefined;
  const out: StringMap = {};
  for (const [k, v] of Object.entries(metadata as Record<string, unknown>)) {
    if (k === OWNER_PROJECT_KEY || k === OWNER_RESOURCE_KEY) continue;
    if (typeof v === "string") out[k] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * A metadata patch for providers whose update merges metadata: every desired key is upserted
 * and every key the remote holds but the declaration dropped is sent as null (deleted).
 */
export function metadataPatch(desired: StringMap, remote: unknown): Record<string, string | null> {
  const patch: Record<string, string | null> = { ...desired };
  if (remote && typeof remote === "object") {
    for (const key of Object.keys(remote as Record<string, unknown>))
      if (!(key in desired)) patch[key] = null;
  }
  return patch;
}
