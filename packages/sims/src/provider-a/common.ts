import type { NextFunction, Request, Response } from "express";
import type { SimContext } from "../core/sim.js";
import { WireError } from "../kit/errors.js";
import { encodePageToken, queryDescending, queryLimit, queryPageCursor, slicePage } from "../kit/paging.js";
import { publicView } from "../kit/records.js";
import type { Rec } from "../kit/store.js";
import type { AState, Collection } from "./state.js";

export type Ctx = SimContext<AState>;

export const BASE = "/api/v1/agentstudio";
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** The conflict code the live API puts in duplicate-name errors. */
const CONFLICT_CODE = "11300026";

const DEFAULT_CODES: Record<number, string> = {
  400: "invalid_request_error",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found_error",
  405: "method_not_allowed",
  409: CONFLICT_CODE,
  429: "rate_limit_error",
  500: "internal",
  503: "service_unavailable",
};

/** provider_a's error body: `{type:"error", error:{code, message}}`. */
export function errorBody(status: number, message: string, code = ""): unknown {
  return {
    type: "error",
    error: {
      code: code || DEFAULT_CODES[status] || (status >= 500 ? "internal" : "invalid_request_error"),
      message,
    },
  };
}

export const bad = (message: string, code = "") => new WireError(400, code, message);
export const missing = (what: string, id: string) => new WireError(404, "", `${what} ${id} not found`);
const nameTaken = (name: string) =>
  new WireError(409, CONFLICT_CODE, `resource name "${name}" already exists (资源名称已存在)`);

/** `Authorization: Bearer <api key>`; every response carries an `x-request-id`. */
export function auth(ctx: Ctx) {
  let counter = 0;
  return (req: Request, res: Response, next: NextFunction) => {
    counter += 1;
    res.setHeader("x-request-id", `${counter.toString(16).padStart(8, "0")}-sim-a`);
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "");
    if (!m || !ctx.state.apiKeys.includes(m[1]!))
      return next(new WireError(401, "", "invalid or missing API key"));
    next();
  };
}

/** RFC 3339 in Beijing time (`+08:00`), as the live API writes its timestamps. */
export function timestamp(ms: number): string {
  const local = new Date(ms + 8 * 3600_000).toISOString();
  return `${local.slice(0, -1)}+08:00`;
}

export function now(ctx: Ctx): string {
  return timestamp(ctx.clock.now());
}

export function stamp(ctx: Ctx): { created_at: string; updated_at: string } {
  const at = now(ctx);
  return { created_at: at, updated_at: at };
}

/** Deletes a record and answers what the API answers a delete: `{id, type: "<what>_deleted"}`. */
export function removeRecord(
  ctx: Ctx,
  kind: Collection,
  rec: Rec,
  what: string,
): { id: string; type: string } {
  ctx.state.objects[kind].delete(rec.id);
  return { id: rec.id, type: `${what}_deleted` };
}

export function find(ctx: Ctx, kind: Collection, id: string, what: string): Rec {
  const rec = ctx.state.objects[kind].get(id);
  if (!rec) throw missing(what, id);
  return rec;
}

/** Archived objects stay readable but take no more writes. */
export function writable(rec: Rec, what: string): void {
  if (rec.archived_at) throw bad(`${what} ${rec.id} is archived`, "resource_archived");
}

export const view = publicView;

/** `limit` + `page` → `{data, next_page}`; no `has_more`: a null `next_page` is the last page. */
export function listPage(ctx: Ctx, req: Request, items: Rec[], render: (r: Rec) => unknown = view) {
  const limit = queryLimit(req.query.limit, DEFAULT_LIMIT, MAX_LIMIT);
  const afterSeq = queryPageCursor(req.query.page);
  const descending = queryDescending(req.query.order);
  const page = slicePage(items, ctx.state.seq, { limit, afterSeq, descending });
  const last = page.items.at(-1);
  return {
    data: page.items.map(render),
    next_page: page.hasMore && last ? encodePageToken(ctx.state.seq.of(last.id) ?? 0) : null,
  };
}

export function live(ctx: Ctx, kind: Collection, req: Request): Rec[] {
  const all = req.query.include_archived === "true";
  return [...ctx.state.objects[kind].values()].filter((r) => all || !r.archived_at);
}

/** Names unique among live objects of a kind: the live API's 409 / 11300026 otherwise. */
export function assertFreeName(items: Iterable<Rec>, field: string, value: unknown, exceptId?: string): void {
  for (const r of items)
    if (r.id !== exceptId && !r.archived_at && r[field] === value) throw nameTaken(String(value));
}

/** `/mnt` mount root: relative paths are placed under it; absolute ones must already be there. */
export function mountPath(path: unknown, field: string): string {
  if (typeof path !== "string" || path === "") throw bad(`${field} is required`);
  const full = path.startsWith("/") ? path : `/mnt/${path}`;
  if (!full.startsWith("/mnt/") || full.split("/").includes("..")) throw bad(`${field} must be under /mnt`);
  return full;
}
