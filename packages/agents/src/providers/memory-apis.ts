// How each provider's memory API is spelled, for `agents memory` (engine/memories.ts): data per
// provider, so the engine never branches on a provider's name. provider_a has no memory stores.
import { collect, listAll, walkAfterId } from "./common/paging.js";
import type { HttpClient } from "./http.js";
import { memoryPath as absolutePath } from "./managed-dialect/memory.js";
import type { ProviderName, Spec } from "./types.js";
import { UnforeseeableError } from "./unforeseeable.js";

type Json = Record<string, unknown>;

export interface MemoryApi {
  /** A user's PATH as the provider spells it (absolute on provider_c/d, relative on provider_b). */
  path(path: string): string;
  /** Every item of a list endpoint. */
  list(http: HttpClient, path: string, query: Record<string, string>, signal?: AbortSignal): Promise<Json[]>;
  /** Query that makes list return the short form and get the content (absent: the API always does). */
  basicView?: Record<string, string>;
  fullView?: Record<string, string>;
  /** Where the store's versions are listed and redacted (absent: the provider keeps none). */
  versions?: { path: string; memoryId: string; memoryPath: string; operation: string };
  /** The client for the store (provider_b: the store's API domain). */
  client(session: { http: HttpClient; apis?: Readonly<Record<string, HttpClient>> }, spec: Spec): HttpClient;
}

const PAGE = 100;
const pages = (http: HttpClient, path: string, query: Record<string, string>, signal?: AbortSignal) =>
  listAll<Json>(http, path, { pageSize: PAGE, query, ...(signal ? { signal } : {}) });
const managed = (session: { http: HttpClient }) => session.http;

/** provider_b spells paths relative: the same checks, without the leading `/`. */
const relativePath = (path: string) => absolutePath(path).slice(1);

/**
 * provider_b: a store lives on one API domain, recorded in its state spec as `derived.domain`
 * (the engine's `derive` step); a Forward store is reached through the session's `forward` root.
 */
function storeDomainClient(
  session: { http: HttpClient; apis?: Readonly<Record<string, HttpClient>> },
  spec: Spec,
): HttpClient {
  const derived = spec.derived as { domain?: string } | undefined;
  if (derived?.domain !== "forward") return session.http;
  const forward = session.apis?.forward;
  if (!forward) throw new UnforeseeableError("internal", "provider_b: the Forward API client is missing");
  return forward;
}

export const MEMORY_APIS: Partial<Record<ProviderName, MemoryApi>> = {
  provider_b: {
    path: relativePath,
    list: (http, path, query, signal) => collect(walkAfterId<Json>(http, path, query, signal)),
    versions: { path: "versions", memoryId: "entry_id", memoryPath: "entry_path", operation: "action" },
    client: storeDomainClient,
  },
  provider_c: {
    path: absolutePath,
    list: pages,
    basicView: { view: "basic" },
    fullView: { view: "full" },
    versions: { path: "memory_versions", memoryId: "memory_id", memoryPath: "path", operation: "operation" },
    client: managed,
  },
  provider_d: { path: absolutePath, list: pages, client: managed },
};
