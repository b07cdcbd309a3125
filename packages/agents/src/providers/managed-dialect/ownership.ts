// Ownership keys let the engine adopt what a crashed run created instead of duplicating it.
import { OWNER_PROJECT_KEY, OWNER_RESOURCE_KEY, type Owner } from "../types.js";

export type StringMap = Record<string, string>;

/** User metadata plus the two ownership keys; a key the user set explicitly wins. */
export function withOwnerMetadata(user: StringMap | undefined, owner: Owner): StringMap {
  return { [OWNER_PROJECT_KEY]: owner.project, [OWNER_RESOURCE_KEY]: owner.resource, ...(user ?? {}) };
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
