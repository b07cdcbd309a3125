// The dialect's part of ownership metadata: the providers' limits on metadata maps, and user
// metadata read back as undefined when empty. Owner parsing and patches are common/ownership.ts.

import { DeclarationError } from "../common/errors.js";
import { OWNER_PROJECT_KEY, OWNER_RESOURCE_KEY, type Owner } from "../types.js";

export type StringMap = Record<string, string>;

/** The providers' metadata limits: at most 16 pairs, keys ≤ 64 and values ≤ 512 characters. */
const METADATA_LIMITS = { pairs: 16, keyLength: 64, valueLength: 512 } as const;

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
    throw new DeclarationError(
      "invalid",
      `metadata has ${pairs} keys with the two ownership keys; the provider allows ${METADATA_LIMITS.pairs}: ` +
        `remove ${pairs - METADATA_LIMITS.pairs}`,
    );
  for (const [key, value] of Object.entries(merged)) {
    if (key.length > METADATA_LIMITS.keyLength)
      throw new DeclarationError(
        "invalid",
        `metadata key "${key.slice(0, 20)}…" is longer than ${METADATA_LIMITS.keyLength} characters`,
      );
    if (value.length > METADATA_LIMITS.valueLength)
      throw new DeclarationError(
        "invalid",
        `metadata "${key}" is longer than ${METADATA_LIMITS.valueLength} characters`,
      );
  }
  return merged;
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
