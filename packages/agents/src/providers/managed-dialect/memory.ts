// Memory stores and their declared entries ("managed seeds"): apply creates or rewrites the
// declared paths and leaves every other memory (what agents wrote) alone.

import { createHash } from "node:crypto";
import { DeclarationError } from "../common/errors.js";
import { str } from "../common/handler-kit.js";
import { type Metadata, userMetadata } from "../common/ownership.js";
import { compact, type Json, nonEmpty, records } from "./spec.js";

export interface SeedEntry {
  path: string;
  content: string;
}

const MAX_PATH_BYTES = 1024;
const MAX_SEGMENTS = 20;

/** A declared entry key → the absolute memory path both providers use (`notes/a.md` → `/notes/a.md`). */
export function memoryPath(key: string): string {
  const trimmed = key.normalize("NFC").replace(/^\/+/, "");
  const segments = trimmed.split("/").filter((s) => s !== "");
  if (segments.length === 0)
    throw new DeclarationError("managed.memory_key_empty", `memory entry key "${key}" is empty`);
  if (segments.length > MAX_SEGMENTS)
    throw new DeclarationError(
      "managed.memory_key_too_deep",
      `memory entry key "${key}" has more than ${MAX_SEGMENTS} path segments`,
    );
  if (segments.some((s) => s === "." || s === ".."))
    throw new DeclarationError(
      "managed.memory_key_dot_segment",
      `memory entry key "${key}" may not contain "." or ".." segments`,
    );
  const path = `/${segments.join("/")}`;
  if (Buffer.byteLength(path, "utf8") > MAX_PATH_BYTES)
    throw new DeclarationError(
      "managed.memory_key_too_long",
      `memory entry key "${key}" is longer than ${MAX_PATH_BYTES} bytes`,
    );
  return path;
}

export function seedEntries(spec: Json): SeedEntry[] {
  const seen = new Set<string>();
  const out: SeedEntry[] = [];
  for (const entry of records(spec.entries)) {
    const key = str(entry.key);
    if (key === undefined)
      throw new DeclarationError("managed.memory_entry_without_key", "every memory entry needs a key");
    const path = memoryPath(key);
    if (seen.has(path))
      throw new DeclarationError("managed.memory_key_twice", `memory entry path "${path}" is declared twice`);
    seen.add(path);
    out.push({ path, content: str(entry.content) ?? "" });
  }
  return out;
}

/** Lowercase hex SHA-256 of the UTF-8 bytes, as the providers report `content_sha256`. */
export function contentSha256(content: string): string {
  return createHash("sha256").update(content, "utf8").digest("hex");
}

export function memoryStoreToWire(spec: Json, logicalName: string, metadata: Metadata): Json {
  return { name: logicalName, description: str(spec.description) ?? "", metadata };
}

export function canonicalMemoryStore(spec: Json): Json {
  return compact({
    description: nonEmpty(str(spec.description)),
    metadata: userMetadata(spec.metadata),
    entries: records(spec.entries).map((e) => ({ key: str(e.key) ?? "", content: str(e.content) ?? "" })),
  });
}

/**
 * Remote → declared shape. `entries` lists the declared keys as the remote holds them now: a
 * seed an agent rewrote shows its current content, a deleted seed is missing.
 */
export function memoryStoreFromWire(remote: Json, declaredKeys: string[], byPath: Map<string, string>): Json {
  const entries: Json[] = [];
  for (const key of declaredKeys) {
    const content = byPath.get(memoryPath(key));
    if (content !== undefined) entries.push({ key, content });
  }
  return compact({
    description: nonEmpty(str(remote.description)),
    metadata: userMetadata(remote.metadata),
    entries: declaredKeys.length > 0 ? entries : undefined,
  });
}

interface SeedPlan {
  create: SeedEntry[];
  rewrite: Array<SeedEntry & { id: string; remoteSha: string }>;
  unchanged: Array<SeedEntry & { id: string }>;
}

/** Which declared seeds must be created or rewritten, given the remote memories by path. */
export function planSeeds(
  entries: SeedEntry[],
  remote: Map<string, { id: string; content_sha256?: string | undefined }>,
): SeedPlan {
  const plan: SeedPlan = { create: [], rewrite: [], unchanged: [] };
  for (const entry of entries) {
    const existing = remote.get(entry.path);
    if (!existing) plan.create.push(entry);
    else if (existing.content_sha256 !== contentSha256(entry.content))
      plan.rewrite.push({ ...entry, id: existing.id, remoteSha: existing.content_sha256 ?? "" });
    else plan.unchanged.push({ ...entry, id: existing.id });
  }
  return plan;
}
