import { randomBytes } from "node:crypto";
import type { NextFunction, Request, Response, Router } from "express";
import type { SimContext } from "../core/sim.js";
import { WireError } from "../kit/errors.js";
import { encodePageToken, queryDescending, queryLimit, queryPageCursor, slicePage } from "../kit/paging.js";
import { patchMetadata, publicView, sha256 } from "../kit/records.js";
import { answer, getView } from "../kit/routes.js";
import type { Rec } from "../kit/store.js";
import type { BState, Collection, Domain } from "./state.js";

export type Ctx = SimContext<BState>;

export const MANAGED_BASE = "/api/v1/cloud";
export const FORWARD_BASE = "/api/v1/forward";
const MAX_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

const ERROR_TYPES: Record<number, [string, string]> = {
  400: ["invalid_request_error", "INVALID_REQUEST"],
  401: ["authentication_error", "UNAUTHORIZED"],
  403: ["permission_error", "FORBIDDEN"],
  404: ["not_found_error", "NOT_FOUND"],
  405: ["invalid_request_error", "METHOD_NOT_ALLOWED"],
  409: ["conflict_error", "CONFLICT"],
  429: ["rate_limit_error", "RATE_LIMITED"],
  500: ["api_error", "INTERNAL_ERROR"],
  502: ["api_error", "BAD_GATEWAY"],
  503: ["overloaded_error", "SERVICE_UNAVAILABLE"],
};

/** Opaque, like the provider's: random, so no counter outlives `/_sim/reset` or leaks between sims. */
function requestId(): string {
  return `req_${randomBytes(6).toString("hex")}`;
}

/** provider_b's error envelope: `{type:"error", request_id, error:{type, code, message}}`. */
export function errorBody(status: number, message: string, code = ""): unknown {
  const [type, dflt] =
    ERROR_TYPES[status] ??
    (status >= 500 ? ["api_error", "INTERNAL_ERROR"] : ["invalid_request_error", "INVALID_REQUEST"]);
  return { type: "error", request_id: requestId(), error: { type, code: code || dflt, message } };
}

export const bad = (message: string, code = "") => new WireError(400, code, message);
export const conflict = (message: string, code = "") => new WireError(409, code, message);
export const missing = (what: string, id: string) => new WireError(404, "", `${what} ${id} not found`);

/** Bearer personal access tokens: the default key plus any seeded one. */
export function auth(ctx: Ctx) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? "";
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m) return next(new WireError(401, "", "missing bearer token"));
    if (!ctx.state.apiKeys.includes(m[1]!))
      return next(new WireError(401, "", "invalid personal access token"));
    next();
  };
}

/** The 4 MB request limit: the real gateway truncates bigger bodies and then fails to parse them. */
export function bodyLimit(req: Request, _res: Response, next: NextFunction) {
  const length = Number(req.headers["content-length"] ?? 0);
  if (length > MAX_BODY_BYTES) return next(new WireError(400, "", "request body exceeds 4 MB"));
  next();
}

export function find(ctx: Ctx, kind: Collection, id: string, what: string, domain?: Domain): Rec {
  const rec = ctx.state.objects[kind].get(id);
  if (!rec || (domain && rec._domain !== domain)) throw missing(what, id);
  return rec;
}

export function notArchived(rec: Rec, what: string): void {
  if (rec.archived_at) throw conflict(`${what} ${rec.id} is already archived`, "ALREADY_ARCHIVED");
}

export const view = publicView;

/** The end of an update: the metadata patch merged, `updated_at` stamped, the view answered. */
export function updatedView(ctx: Ctx, rec: Rec, metadataPatch: unknown): Record<string, unknown> {
  rec.metadata = patchMetadata(rec.metadata as Record<string, string>, metadataPatch);
  rec.updated_at = ctx.clock.iso();
  return view(rec);
}

/** `POST <path>`: archives the object `find` reads (a second archive is refused) and answers its view. */
export function archiveRoute(
  r: Router,
  ctx: Ctx,
  path: string,
  what: string,
  find: (req: Request) => Rec,
): void {
  r.post(
    path,
    answer((req) => {
      const rec = find(req);
      notArchived(rec, what);
      rec.archived_at = ctx.clock.iso();
      rec.updated_at = rec.archived_at;
      return view(rec);
    }),
  );
}

/** Most lists: `limit` + `after_id` → `{data, has_more, last_id}`. */
export function listAfterId(ctx: Ctx, req: Request, items: Rec[]) {
  const limit = queryLimit(req.query.limit, DEFAULT_LIMIT, MAX_LIMIT);
  let afterSeq = 0;
  const after = req.query.after_id;
  if (after !== undefined && after !== "") {
    const seq = typeof after === "string" ? ctx.state.seq.of(after) : undefined;
    if (seq === undefined) throw bad("after_id does not name a known object");
    afterSeq = seq;
  }
  const page = slicePage(items, ctx.state.seq, {
    limit,
    afterSeq,
    descending: queryDescending(req.query.order),
  });
  const data = page.items.map(view);
  return { data, has_more: page.hasMore, last_id: page.items.at(-1)?.id ?? null };
}

/** Deployments and managed sessions: `limit` + `page` → `{data, has_more, next_page}`. */
export function listByPage(ctx: Ctx, req: Request, items: Rec[]) {
  const limit = queryLimit(req.query.limit, DEFAULT_LIMIT, MAX_LIMIT);
  const afterSeq = queryPageCursor(req.query.page);
  const page = slicePage(items, ctx.state.seq, {
    limit,
    afterSeq,
    descending: queryDescending(req.query.order),
  });
  const last = page.items.at(-1);
  const nextPage = page.hasMore && last ? encodePageToken(ctx.state.seq.of(last.id) ?? 0) : null;
  return { data: page.items.map(view), has_more: page.hasMore, next_page: nextPage };
}

export function includeArchived(req: Request): boolean {
  return req.query.include_archived === "true";
}

export function domainItems(ctx: Ctx, kind: Collection, domain: Domain, req: Request): Rec[] {
  const all = includeArchived(req);
  return [...ctx.state.objects[kind].values()].filter((r) => r._domain === domain && (all || !r.archived_at));
}

/** Names that must be unique among live (non-archived) objects of a kind: 409 on a duplicate. */
export function assertUnique(items: Iterable<Rec>, field: string, value: unknown, exceptId?: string): void {
  for (const r of items) {
    if (r.id !== exceptId && !r.archived_at && r.status !== "archived" && r[field] === value) {
      throw conflict(
        `a resource with ${field} "${String(value)}" already exists (${r.id})`,
        "ALREADY_EXISTS",
      );
    }
  }
}

function idempotencySlot(req: Request): string | undefined {
  const key = req.headers["idempotency-key"];
  if (typeof key !== "string" || key === "" || !req.baseUrl.endsWith("/forward")) return undefined;
  return `${req.method} ${req.baseUrl}${req.path} ${key}`;
}

const fingerprintOf = (source: unknown) => sha256(JSON.stringify(source ?? null));

/**
 * Forward creates honour `Idempotency-Key`. Called first in a create handler (before any check that
 * depends on state, such as name uniqueness): a repeat with the same body replays the first reply;
 * the same key with another body is a 409. `source` is what identifies the body (multipart
 * handlers pass their parsed parts).
 */
export function replayIfSeen(ctx: Ctx, req: Request, res: Response, source: unknown = req.body): boolean {
  const slot = idempotencySlot(req);
  const prior = slot ? ctx.state.idempotency.get(slot) : undefined;
  if (!prior) return false;
  if (prior.fingerprint !== fingerprintOf(source)) {
    throw conflict(
      "Idempotency-Key was already used with a different request body",
      "IDEMPOTENCY_KEY_REUSED",
    );
  }
  res.setHeader("idempotent-replayed", "true");
  res.status(prior.status).json(prior.body);
  return true;
}

/** Runs a create once per Forward `Idempotency-Key` and remembers its reply. */
export function idempotent(
  ctx: Ctx,
  req: Request,
  res: Response,
  create: () => unknown,
  source: unknown = req.body,
): void {
  if (replayIfSeen(ctx, req, res, source)) return;
  const out = create();
  const slot = idempotencySlot(req);
  if (slot) ctx.state.idempotency.set(slot, { fingerprint: fingerprintOf(source), status: 200, body: out });
  res.status(200).json(out);
}

export function stamp(ctx: Ctx): { created_at: string; updated_at: string } {
  const at = ctx.clock.iso();
  return { created_at: at, updated_at: at };
}

/** `/data` mount root: explicit mount paths must sit under it. */
export function checkMountPath(path: unknown, field = "mount_path"): void {
  if (path === undefined) return;
  if (typeof path !== "string" || !path.startsWith("/data/") || path.includes("/../")) {
    throw bad(`${field} must be an absolute path under /data/`);
  }
}

/** A live (non-archived) object created through the given gateway. */
export function liveIn(rec: Rec | undefined, domain: Domain): rec is Rec {
  return rec !== undefined && rec._domain === domain && !rec.archived_at;
}

/**
 * `GET /{kind}` (this gateway's objects, paged by `after_id`) and `GET /{kind}/:id`: the two reads
 * every gateway-scoped kind answers the same way.
 */
export function listAndGetRoutes(r: Router, ctx: Ctx, kind: Collection, what: string, domain: Domain): void {
  r.get(
    `/${kind}`,
    answer((req) => listAfterId(ctx, req, domainItems(ctx, kind, domain, req))),
  );
  getView(r, `/${kind}/:id`, (req) => find(ctx, kind, req.params.id as string, what, domain));
}
