import type { Request, Response } from "express";

const DEFAULT_PER_PAGE = 20;
const MAX_PER_PAGE = 100;
/** Above this many rows GitLab stops counting: no x-total, x-total-pages or rel="last". */
const COUNT_LIMIT = 10_000;

function positiveInt(v: unknown): number | undefined {
  const n = typeof v === "string" ? Number(v) : Number.NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

export function pageParams(req: Request): { page: number; perPage: number } {
  const q = req.query as Record<string, unknown>;
  return {
    page: positiveInt(q.page) ?? 1,
    perPage: Math.min(positiveInt(q.per_page) ?? DEFAULT_PER_PAGE, MAX_PER_PAGE),
  };
}

/**
 * Offset pagination as GitLab serves it: one page of `items`, the `x-*` headers and a `Link` header
 * (prev, next, first, last) whose URLs repeat the request's own query with `page` replaced.
 */
export function paginate<T>(req: Request, res: Response, origin: string, items: readonly T[]): T[] {
  const { page, perPage } = pageParams(req);
  const total = items.length;
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  const counted = total <= COUNT_LIMIT;
  const next = page < totalPages ? page + 1 : null;
  const prev = page > 1 ? Math.min(page - 1, totalPages) : null;

  const base = new URL(req.originalUrl, origin);
  const link = (p: number, rel: string) => {
    base.searchParams.set("page", String(p));
    base.searchParams.set("per_page", String(perPage));
    return `<${base.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (prev !== null) links.push(link(prev, "prev"));
  if (next !== null) links.push(link(next, "next"));
  links.push(link(1, "first"));
  if (counted) links.push(link(totalPages, "last"));

  res.setHeader("x-page", String(page));
  res.setHeader("x-per-page", String(perPage));
  res.setHeader("x-next-page", next === null ? "" : String(next));
  res.setHeader("x-prev-page", prev === null ? "" : String(prev));
  if (counted) {
    res.setHeader("x-total", String(total));
    res.setHeader("x-total-pages", String(totalPages));
  }
  res.setHeader("Link", links.join(", "));
  return items.slice((page - 1) * perPage, page * perPage);
}

/** Whether the request asks for keyset pagination (`pagination=keyset`). */
export function wantsKeyset(req: Request): boolean {
  return (req.query as Record<string, unknown>).pagination === "keyset";
}

export function keysetUnavailable(res: Response): void {
  res.status(405).json({ message: "Keyset pagination is not yet available for this type of request" });
}

/**
 * Keyset pagination: `items` are already in order; the page starts after the row whose cursor is
 * `after` (the `cursorParam` of the request). The only navigation is a `Link rel="next"` whose URL
 * carries the last row's cursor; there are no totals and no page numbers.
 */
export function keysetPaginate<T>(
  req: Request,
  res: Response,
  origin: string,
  items: readonly T[],
  cursorParam: string,
  cursorOf: (item: T) => string,
): T[] {
  const { perPage } = pageParams(req);
  const after = (req.query as Record<string, unknown>)[cursorParam];
  let start = 0;
  if (typeof after === "string" && after) {
    const at = items.findIndex((x) => cursorOf(x) === after);
    start = at < 0 ? items.length : at + 1;
  }
  const page = items.slice(start, start + perPage);
  res.setHeader("x-per-page", String(perPage));
  const last = page.at(-1);
  if (last !== undefined && start + perPage < items.length) {
    const next = new URL(req.originalUrl, origin);
    next.searchParams.set(cursorParam, cursorOf(last));
    next.searchParams.set("per_page", String(perPage));
    res.setHeader("Link", `<${next.toString()}>; rel="next"`);
  }
  return page;
}
