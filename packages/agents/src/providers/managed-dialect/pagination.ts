// Both providers page with `limit` + `page` and answer `{data, next_page}`; a non-null
// `next_page` is the cursor of the next page (there is no `has_more` on most lists).
import type { HttpClient } from "../http.js";
import type { KindHandler } from "../types.js";

export interface ListOptions {
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  pageSize?: number;
  signal?: AbortSignal;
}

/** Upper bound on pages walked, so a server that keeps answering a cursor cannot loop us forever. */
export const MAX_PAGES = 10_000;

export async function* listPages<T>(http: HttpClient, path: string, options: ListOptions = {}) {
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const response = await http.request<{ data?: T[]; next_page?: string | null }>({
      method: "GET",
      path,
      query: { ...options.query, limit: options.pageSize ?? 100, page: cursor },
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const body = response.body ?? {};
    yield Array.isArray(body.data) ? body.data : [];
    const next = body.next_page;
    if (typeof next !== "string" || next === "") return;
    if (seen.has(next)) throw new Error(`${path}: the provider returned the page cursor "${next}" twice`);
    seen.add(next);
    cursor = next;
  }
  throw new Error(`${path}: more than ${MAX_PAGES} pages; refusing to walk further`);
}

/** Every item of a list. */
export async function listAll<T>(http: HttpClient, path: string, options: ListOptions = {}): Promise<T[]> {
  const all: T[] = [];
  for await (const page of listPages<T>(http, path, options)) all.push(...page);
  return all;
}

/** The first item matching `match`, stopping as soon as it is found. */
export async function findFirst<T>(
  http: HttpClient,
  path: string,
  match: (item: T) => boolean,
  options: ListOptions = {},
): Promise<T | undefined> {
  for await (const page of listPages<T>(http, path, options)) {
    const hit = page.find(match);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/**
 * The listed objects whose id is in `ids`, walking pages only until every id has been seen
 * (plan from lists). Ids the list does not show are simply absent from the result.
 */
export async function listByIds<T extends { id?: unknown }>(
  http: HttpClient,
  path: string,
  ids: ReadonlySet<string>,
  options: ListOptions = {},
): Promise<Map<string, T>> {
  const found = new Map<string, T>();
  for await (const page of listPages<T>(http, path, options)) {
    for (const item of page) if (typeof item.id === "string" && ids.has(item.id)) found.set(item.id, item);
    if (found.size === ids.size) break;
  }
  return found;
}

/** A handler's `listForRead` over `path`, when the provider's lists show whole objects. */
export function listReader(
  profile: { pageSize: number; listsShowFullObjects: boolean },
  path: string,
): Pick<KindHandler, "listForRead"> {
  if (!profile.listsShowFullObjects) return {};
  return {
    listForRead: (ctx, ids) =>
      listByIds(ctx.http, path, ids, { pageSize: profile.pageSize, signal: ctx.signal }),
  };
}
