import { createHash } from "node:crypto";
import { WireError } from "./errors.js";

/** Wire view of a stored record: keys starting with `_` are simulator bookkeeping, never sent. */
export function publicView<T extends object>(record: T): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) if (!k.startsWith("_")) out[k] = v;
  return out;
}

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

export type Metadata = Record<string, string>;

/**
 * JSON merge-patch of a flat metadata map. `removal` is what the provider treats as "delete this
 * key": `null` for most kinds, `""` for provider_b identities.
 */
export function patchMetadata(current: Metadata, patch: unknown, removal: null | "" = null): Metadata {
  if (patch === undefined) return current;
  if (patch === null) return {};
  const next = { ...current };
  for (const [k, v] of Object.entries(checkMetadata(patch, removal))) {
    if (v === removal || v === null) delete next[k];
    else next[k] = v as string;
  }
  return next;
}

/** Validates a metadata object: string values only (plus the removal marker in patches). */
export function checkMetadata(value: unknown, removal?: null | ""): Record<string, string | null> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value))
    throw new WireError(400, "", "metadata must be an object");
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === "string") continue;
    if (v === null && removal !== undefined) continue;
    throw new WireError(400, "", `metadata.${k} must be a string`);
  }
  return value as Record<string, string | null>;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * An agent's fields as every provider's agent API takes them (the one Managed-Agents shape); a
 * change to any of them makes a new agent version.
 */
export const AGENT_FIELDS: readonly string[] = [
  "name",
  "description",
  "model",
  "system",
  "tools",
  "mcp_servers",
  "skills",
  "multiagent",
  "metadata",
];

/** A new agent record: version 1 of `fields`, with no earlier version kept yet. */
export function firstAgentVersion(
  id: string,
  fields: Record<string, unknown>,
  stamp: { created_at: string; updated_at: string },
): { id: string; [k: string]: unknown } {
  return { id, type: "agent", ...fields, version: 1, ...stamp, archived_at: null, _versions: [] };
}
