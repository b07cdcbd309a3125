import express, { type Express, type NextFunction, type Request, type Response, type Router } from "express";
import { ApiError, invalid, typeForStatus } from "./errors.js";

/** Query values as the "extended" parser leaves them. */
type Query = Request["query"];

export interface PageLimits {
  defaultLimit: number;
  maxLimit: number;
}

type KeyPart = string | number;
export type SortKey = KeyPart[];

export interface Page<T> {
  data: T[];
  next_page: string | null;
  prev_page?: string | null;
}

interface Cursor {
  /** Items strictly after this key (in list order). */
  a?: SortKey;
  /** Items strictly before this key (in list order). */
  b?: SortKey;
}

const CURSOR_PREFIX = "page_";

function encodeCursor(c: Cursor): string {
  return CURSOR_PREFIX + Buffer.from(JSON.stringify(c)).toString("base64url");
}

function decodeCursor(token: string): Cursor {
  const fail = () => invalid(`page: invalid page cursor ${JSON.stringify(token)}`);
  if (!token.startsWith(CURSOR_PREFIX)) throw fail();
  try {
    const parsed = JSON.parse(Buffer.from(token.slice(CURSOR_PREFIX.length), "base64url").toString("utf8"));
    if (parsed && typeof parsed === "object" && (Array.isArray(parsed.a) || Array.isArray(parsed.b))) {
      return parsed as Cursor;
    }
  } catch {
    // fall through to the error below
  }
  throw fail();
}

function compareKeys(x: SortKey, y: SortKey): number {
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const a = x[i];
    const b = y[i];
    if (a === b) continue;
    if (a === undefined) return -1;
    if (b === undefined) return 1;
    return a < b ? -1 : 1;
  }
  return 0;
}

/**
 * Keyset pagination (`limit` + opaque `page` cursor → `{data, next_page}`): a cursor names the
 * last item's sort key, not an offset, so deletes and inserts between two pages neither skip nor
 * repeat items. The last page answers `next_page: null`.
 */
export function paginate<T>(
  items: Iterable<T>,
  keyOf: (item: T) => SortKey,
  params: { limit: number; page?: string | undefined; order: "asc" | "desc" },
  opts: { bidirectional?: boolean } = {},
): Page<T> {
  const dir = params.order === "desc" ? -1 : 1;
  const keyed = Array.from(items, (item) => ({ key: keyOf(item), item }));
  keyed.sort((x, y) => dir * compareKeys(x.key, y.key));
  const cursor = params.page ? decodeCursor(params.page) : {};
  let start = 0;
  let end = keyed.length;
  if (cursor.a) {
    const after = cursor.a;
    start = keyed.findIndex((k) => dir * compareKeys(k.key, after) > 0);
    if (start < 0) start = keyed.length;
    end = Math.min(keyed.length, start + params.limit);
  } else if (cursor.b) {
    const before = cursor.b;
    end = keyed.findIndex((k) => dir * compareKeys(k.key, before) >= 0);
    if (end < 0) end = keyed.length;
    start = Math.max(0, end - params.limit);
  } else {
    end = Math.min(keyed.length, params.limit);
  }
  const slice = keyed.slice(start, end);
  const last = slice[slice.length - 1];
  const first = slice[0];
  const page: Page<T> = {
    data: slice.map((k) => k.item),
    next_page: end < keyed.length && last ? encodeCursor({ a: last.key }) : null,
  };
  if (opts.bidirectional) page.prev_page = start > 0 && first ? encodeCursor({ b: first.key }) : null;
  return page;
}

export function queryString(query: Query, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== "string") throw invalid(`${name}: expected a single string value`);
  return v;
}

export function queryInt(query: Query, name: string, min: number, max: number): number | undefined {
  const raw = queryString(query, name);
  if (raw === undefined || raw === "") return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw invalid(`${name}: must be an integer between ${min} and ${max}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

export function queryBool(query: Query, name: string): boolean {
  const raw = queryString(query, name);
  if (raw === undefined || raw === "") return false;
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  throw invalid(`${name}: must be true or false, got ${JSON.stringify(raw)}`);
}

export function queryList(query: Query, name: string): string[] | undefined {
  const v = query[name] ?? query[`${name}[]`];
  if (v === undefined) return undefined;
  const values = Array.isArray(v) ? v : [v];
  return values.flatMap((x) => (typeof x === "string" ? x.split(",") : [])).filter(Boolean);
}

export function pageParams(
  query: Query,
  limits: PageLimits,
  order: "asc" | "desc" = "desc",
): { limit: number; page?: string | undefined; order: "asc" | "desc" } {
  const limit = queryInt(query, "limit", 1, limits.maxLimit) ?? limits.defaultLimit;
  const page = queryString(query, "page") || undefined;
  const o = queryString(query, "order");
  if (o !== undefined && o !== "asc" && o !== "desc") throw invalid(`order: must be asc or desc`);
  return { limit, page, order: (o as "asc" | "desc" | undefined) ?? order };
}

/** `created_at[gte]=…` filters; the extended parser nests them, a plain parser leaves them flat. */
export function createdAtFilter(query: Query): (createdAt: string) => boolean {
  const nested = query.created_at;
  const bounds: Record<string, string> = {};
  for (const op of ["gte", "lte", "gt", "lt"]) {
    const v =
      nested && typeof nested === "object" && !Array.isArray(nested)
        ? (nested as Record<string, unknown>)[op]
        : query[`created_at[${op}]`];
    if (v === undefined) continue;
    if (typeof v !== "string" || Number.isNaN(Date.parse(v))) {
      throw invalid(`created_at[${op}]: must be an RFC 3339 timestamp`);
    }
    bounds[op] = new Date(v).toISOString();
  }
  return (createdAt) =>
    (bounds.gte === undefined || createdAt >= bounds.gte) &&
    (bounds.lte === undefined || createdAt <= bounds.lte) &&
    (bounds.gt === undefined || createdAt > bounds.gt) &&
    (bounds.lt === undefined || createdAt < bounds.lt);
}

interface ApiMount {
  basePath: string;
  /** Throws an ApiError when the request may not proceed (credentials, version and beta headers). */
  authenticate(req: Request): void;
  /** Runs first on every request (provider_c stamps a `request-id` header). */
  onRequest?(req: Request, res: Response): void;
  render(err: ApiError, req: Request): unknown;
  routes(router: Router): void;
}

/**
 * Mounts one provider API: authentication first, then the routes, then an error handler that turns
 * every failure (ours, body parsers', multipart's) into the provider's own error body.
 */
export function mountApi(app: Express, mount: ApiMount): void {
  // No `mergeParams`: every base path is static, so there is nothing to merge, and on Node 20 the
  // merge kept Express's router in a deoptimise/re-optimise loop that cost ~20% of each request's
  // CPU (bench/results/sims.md).
  const router = express.Router();
  router.use((req, res, next) => {
    mount.onRequest?.(req, res);
    mount.authenticate(req);
    next();
  });
  mount.routes(router);
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    let apiError: ApiError;
    if (err instanceof ApiError) apiError = err;
    else {
      const status =
        typeof (err as { status?: unknown })?.status === "number" ? (err as { status: number }).status : 500;
      const message = status < 500 ? (err as Error).message || "invalid request" : "internal server error";
      if (status >= 500) console.error(err);
      apiError = new ApiError(status, typeForStatus(status), message);
    }
    if (res.headersSent) return void res.end();
    res.status(apiError.status).json(mount.render(apiError, req));
  });
  app.use(mount.basePath, router);
}
