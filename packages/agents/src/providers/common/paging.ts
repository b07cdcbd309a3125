// The one set of list walkers for every provider. Two cursor styles exist on the wires:
// `limit` + `page` → `{data, next_page}` (all four providers) and `limit` + `after_id` →
// `{data, has_more, last_id}` (most provider_b lists). Both walks end on the provider's own
// "last page" signal, and both refuse to go round in circles: a repeated cursor, or more than
// MAX_PAGES pages, is an error naming the list, never a silently short result.
import type { HttpClient } from "../http.js";
import type { KindHandler } from "../types.js";
import { UnforeseeableError } from "../unforeseeable.js";

type Query = Record<string, string | number | boolean | undefined>;

interface ListOptions {
  query?: Query;
  headers?: Record<string, string>;
  pageSize?: number;
  signal?: AbortSignal;
  /**
   * An empty page also ends a `next_page` walk (provider_a's lists: "stop when `data` is empty
   * or `next_page` null"). Off, only a missing `next_page` ends it.
   */
  emptyPageEnds?: boolean;
}

/** Upper bound on pages walked, so a server that keeps answering a cursor cannot loop us forever. */
const MAX_PAGES = 10_000;

function request<B>(http: HttpClient, path: string, options: ListOptions, cursor: Query) {
  return http.request<B>({
    method: "GET",
    path,
    query: { limit: options.pageSize ?? 100, ...options.query, ...cursor },
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

function cursorGuard(path: string) {
  const seen = new Set<string>();
  return (cursor: string) => {
    if (seen.has(cursor))
      throw new UnforeseeableError(
        "answer",
        `${path}: the provider returned the page cursor "${cursor}" twice`,
      );
    seen.add(cursor);
  };
}

const tooManyPages = (path: string) =>
  new UnforeseeableError("answer", `${path}: more than ${MAX_PAGES} pages; refusing to walk further`);

/** The pages of a `limit` + `page` list, each as the array under `data`. */
export async function* listPages<T>(
  http: HttpClient,
  path: string,
  options: ListOptions = {},
): AsyncGenerator<T[]> {
  const check = cursorGuard(path);
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const body =
      (
        await request<{ data?: T[]; next_page?: string | number | null }>(http, path, options, {
          page: cursor,
        })
      ).body ?? {};
    const data = Array.isArray(body.data) ? body.data : [];
    yield data;
    const next = body.next_page;
    if ((typeof next !== "string" && typeof next !== "number") || next === "") return;
    if (options.emptyPageEnds && data.length === 0) return;
    cursor = String(next);
    check(cursor);
  }
  throw tooManyPages(path);
}

/** The pages of a `limit` + `after_id` list: `has_more` false or no `last_id` ends the walk. */
export async function* listPagesAfterId<T>(
  http: HttpClient,
  path: string,
  options: ListOptions = {},
): AsyncGenerator<T[]> {
  const check = cursorGuard(path);
  let after: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const body =
      (
        await request<{ data?: T[]; has_more?: boolean; last_id?: string | null }>(http, path, options, {
          after_id: after,
        })
      ).body ?? {};
    const data = Array.isArray(body.data) ? body.data : [];
    yield data;
    const last = body.last_id;
    if (!body.has_more || !last || data.length === 0) return;
    check(last);
    after = last;
  }
  throw tooManyPages(path);
}

/** Every item of a `limit` + `page` list. */
export async function listAll<T>(http: HttpClient, path: string, options: ListOptions = {}): Promise<T[]> {
  const all: T[] = [];
  for await (const page of listPages<T>(http, path, options)) all.push(...page);
  return all;
}

/** The first item of a `limit` + `page` list matching `match`, stopping as soon as it is found. */
export async function findFirst<T>(
  http: HttpClient,
  path: string,
  match: (item: T) => boolean,
  options: ListOptions = {},
): Promise<T | undefined> {
  return firstMatch(walk(listPages<T>(http, path, options)), match);
}

/**
 * The listed objects whose id is in `ids`, walking pages only until every id has been seen
 * (plan from lists). Ids the list does not show are simply absent from the result.
 */
async function listByIds<T extends { id?: unknown }>(
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

/**
 * A `listForRead` over a `limit` + `page` list whose items are the objects exactly as a GET
 * returns them (provider_a: `{data, next_page}`, an empty page also ends the walk).
 */
export function pageListReader(path: string, pageSize = 100): Pick<KindHandler, "listForRead"> {
  return {
    listForRead: (ctx, ids) =>
      listByIds(ctx.http, path, ids, { pageSize, emptyPageEnds: true, signal: ctx.signal }),
  };
}

async function* walk<T>(pages: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const page of pages) yield* page;
}

/** Items of a `limit` + `page` list, one by one (provider_a's stop rule: an empty page ends it). */
export function walkPages<T>(http: HttpClient, path: string, query: Query = {}, signal?: AbortSignal) {
  return walk(listPages<T>(http, path, { query, signal, emptyPageEnds: true }));
}

/** Items of a `limit` + `after_id` list, one by one. */
export function walkAfterId<T>(http: HttpClient, path: string, query: Query = {}, signal?: AbortSignal) {
  return walk(listPagesAfterId<T>(http, path, { query, signal }));
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The first item matching `match`; the walk stops there. */
export async function firstMatch<T>(
  items: AsyncIterable<T>,
  match: (item: T) => boolean,
): Promise<T | undefined> {
  for await (const item of items) if (match(item)) return item;
  return undefined;
}
