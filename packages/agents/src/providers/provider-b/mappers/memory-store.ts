// provider_b memory stores (docs/wire/provider-b.md §3.6): declared entries are managed seeds. Apply
// creates missing paths and updates declared paths whose content changed (by sha256); memories the agents
// wrote at other paths are left alone.

import { DeclarationError } from "../../common/errors.js";
import { sha256 } from "../../common/local-files.js";

export interface MemoryStoreDecl {
  description?: string;
  metadata?: Record<string, string>;
  entries?: { key: string; content: string }[];
}

export interface RemoteMemory {
  id: string;
  type?: string;
  path: string;
  content_sha256?: string;
}

type SeedAction =
  | { action: "create"; path: string; content: string }
  | { action: "update"; id: string; path: string; content: string; expectedSha256?: string };

/** Paths are relative on the wire: a declared leading `/` is dropped. */
export function memoryPath(key: string): string {
  const path = key.replace(/^\/+/, "");
  if (path === "" || path.split("/").some((part) => part === ".." || part === ".")) {
    throw new DeclarationError(
      "provider_b.memory_key_not_relative",
      `memory entry key "${key}" is not a valid relative path`,
    );
  }
  return path;
}

export function planSeeds(entries: MemoryStoreDecl["entries"], remote: RemoteMemory[]): SeedAction[] {
  const byPath = new Map(
    remote.filter((m) => m.type !== "memory_prefix").map((m) => [m.path.replace(/^\/+/, ""), m]),
  );
  const seen = new Set<string>();
  const out: SeedAction[] = [];
  for (const entry of entries ?? []) {
    const path = memoryPath(entry.key);
    if (seen.has(path))
      throw new DeclarationError("provider_b.memory_key_twice", `memory entry "${path}" is declared twice`);
    seen.add(path);
    const existing = byPath.get(path);
    if (!existing) out.push({ action: "create", path, content: entry.content });
    else if (existing.content_sha256 !== sha256(entry.content)) {
      out.push({
        action: "update",
        id: existing.id,
        path,
        content: entry.content,
        expectedSha256: existing.content_sha256,
      });
    }
  }
  return out;
}

/** The declared seeds by path, with their text: what plans compare and show (as provider_c/d's do). */
export function seedContents(entries: MemoryStoreDecl["entries"]): Record<string, string> {
  return Object.fromEntries((entries ?? []).map((e) => [memoryPath(e.key), e.content]));
}
