// List walkers for the two cursor styles of provider_a and provider_b. Both stop on the provider's
// own "last page" signal and also on a repeated cursor, so a misbehaving server cannot loop us.
import type { HttpClient } from "../http.js";

type Query = Record<string, string | number | boolean | undefined>;

const MAX_PAGES = 10_000;

/** `limit` + `page` → `{data, next_page}`; a null/absent `next_page` or empty page ends the walk. */
export async function* walkPages<T>(
  http: HttpClient,
  path: string,
  query: Query = {},
  signal?: AbortSignal,
): AsyncGenerator<T> {
  let page: string | undefined;
  const seen = new Set<string>();
  for (let i = 0; i < MAX_PAGES; i++) {
    const res = await http.request<{ data?: T[]; next_page?: string | number | null }>({
      method: "GET",
      path,
      query: { limit: 100, ...query, page },
      signal,
    });
    const data = res.body?.data ?? [];
    yield* data;
    const next = res.body?.next_page;
    if (data.length === 0 || next === null || next === undefined || next === "") return;
    const cursor = String(next);
    if (seen.has(cursor)) return;
    seen.add(cursor);
    page = cursor;
  }
}

/** `limit` + `after_id` → `{data, has_more, last_id}`; stops when `has_more` is false or `last_id` missing. */
export async function* walkAfterId<T>(
  http: HttpClient,
  path: string,
  query: Query = {},
  signal?: AbortSignal,
): AsyncGenerator<T> {
  let after: string | undefined;
  const seen = new Set<string>();
  for (let i = 0; i < MAX_PAGES; i++) {
    const res = await http.request<{ data?: T[]; has_more?: boolean; last_id?: string | null }>({
      method: "GET",
      path,
      query: { limit: 100, ...query, after_id: after },
      signal,
    });
    const data = res.body?.data ?? [];
    yield* data;
    const last = res.body?.last_id;
    if (!res.body?.has_more || !last || data.length === 0 || seen.has(last)) return;
    seen.add(last);
    after = last;
  }
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

export async function findFirst<T>(
  items: AsyncIterable<T>,
  match: (item: T) => boolean,
): Promise<T | undefined> {
  for await (const item of items) if (match(item)) return item;
  return undefined;
}
