// Ownership metadata, for every adapter: every resource the tool
// creates carries `agents.project` / `agents.resource`, so a re-run after a crash can adopt it
// instead of creating a duplicate. User keys win on collision (the reference engine's rule).
// Every `agents.*` key is the tool's: read-backs strip them and patches never delete them.
import { logicalNameOf } from "../../model/address.js";
import { OWNER_PROJECT_KEY, OWNER_RESOURCE_KEY, type Owner } from "../types.js";
import { DeclarationError } from "./errors.js";

export type Metadata = Record<string, string>;

/** A provider's limits on a metadata map. */
export interface MetadataLimits {
  pairs: number;
  keyLength: number;
  valueLength: number;
}

/**
 * User metadata plus the two ownership keys; a key the user set explicitly wins. Given the
 * provider's `limits`, an over-limit map fails here, naming the fix, instead of as a provider 400.
 */
export function withOwnership(user: unknown, owner: Owner, limits?: MetadataLimits): Metadata {
  const merged = {
    [OWNER_PROJECT_KEY]: owner.project,
    [OWNER_RESOURCE_KEY]: owner.resource,
    ...asMetadata(user),
  };
  if (limits) checkLimits(merged, limits);
  return merged;
}

function checkLimits(metadata: Metadata, limits: MetadataLimits): void {
  const pairs = Object.keys(metadata).length;
  if (pairs > limits.pairs)
    throw new DeclarationError(
      "common.metadata_too_many_keys",
      `metadata has ${pairs} keys with the two ownership keys; the provider allows ${limits.pairs}: ` +
        `remove ${pairs - limits.pairs}`,
    );
  for (const [key, value] of Object.entries(metadata)) {
    if (key.length > limits.keyLength)
      throw new DeclarationError(
        "common.metadata_key_too_long",
        `metadata key "${key.slice(0, 20)}…" is longer than ${limits.keyLength} characters`,
      );
    if (value.length > limits.valueLength)
      throw new DeclarationError(
        "common.metadata_value_too_long",
        `metadata "${key}" is longer than ${limits.valueLength} characters`,
      );
  }
}

/** The owner recorded in remote metadata, when both keys are present. */
export function ownerOf(metadata: unknown): Owner | undefined {
  const m = asMetadata(metadata);
  const project = m[OWNER_PROJECT_KEY];
  const resource = m[OWNER_RESOURCE_KEY];
  return project && resource ? { project, resource } : undefined;
}

/**
 * The owner as `list` reports it: `agents.project` alone still marks the object as a project's
 * (with an empty `resource`), so sync can refuse an owned object that lost its logical name.
 */
export function listedOwnerOf(metadata: unknown): Owner | undefined {
  const m = asMetadata(metadata);
  const project = m[OWNER_PROJECT_KEY];
  return project ? { project, resource: m[OWNER_RESOURCE_KEY] ?? "" } : undefined;
}

export function sameOwner(a: Owner | undefined, b: Owner): boolean {
  return a !== undefined && a.project === b.project && a.resource === b.resource;
}

/** Whether remote metadata names exactly this owner. */
export function isOwnedBy(metadata: unknown, owner: Owner): boolean {
  return sameOwner(ownerOf(metadata), owner);
}

/**
 * Metadata as the user declared it: every `agents.*` key stripped, `{}` when nothing is left
 * (the managed dialect's `compact` drops an empty map, so "none" has one spelling there too).
 */
export function userMetadata(metadata: unknown): Metadata {
  const out: Metadata = {};
  for (const [k, v] of Object.entries(asMetadata(metadata))) if (!k.startsWith("agents.")) out[k] = v;
  return out;
}

/**
 * Merge-patch tombstones: user keys the remote still has but the declaration dropped are sent as
 * `null` so the provider removes them (`agents.*` keys are the tool's and are left alone).
 */
export function metadataPatch(
  remote: unknown,
  desired: Metadata,
  tombstone: null | "" = null,
): Record<string, string | null> {
  const patch: Record<string, string | null> = { ...desired };
  for (const k of Object.keys(asMetadata(remote))) {
    if (!k.startsWith("agents.") && !(k in desired)) patch[k] = tombstone;
  }
  return patch;
}

function asMetadata(value: unknown): Metadata {
  if (!value || typeof value !== "object" || Array.isArray(value)) return {};
  const out: Metadata = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === "string") out[k] = v;
    else if (typeof v === "number" || typeof v === "boolean") out[k] = String(v);
  }
  return out;
}

/** The logical name (the YAML map key) of the resource an owner names (model/address.ts parses it). */
export function logicalName(owner: Owner): string {
  return logicalNameOf(owner.resource);
}
