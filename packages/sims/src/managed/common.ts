import type { Request } from "express";
import { invalid, notFound } from "./errors.js";
import { createdAtFilter, type Page, pageParams, paginate, queryBool, type SortKey } from "./http.js";
import type { IdKind, Kit, Obj } from "./state.js";

export function lookup(map: Map<string, Obj>, id: string | undefined, label: string): Obj {
  const found = id === undefined ? undefined : map.get(id);
  if (!found) throw notFound(label, id ?? "");
  return found;
}

const byCreated = (o: Obj): SortKey => [o.created_at, o.id];

/**
 * The common list: `include_archived` (where the kind archives), `created_at[…]` bounds, then keyset
 * pagination newest first.
 */
export function listPage(
  kit: Kit,
  req: Request,
  items: Iterable<Obj>,
  opts: { archivable?: boolean; filter?: (o: Obj) => boolean; bidirectional?: boolean } = {},
): Page<Obj> {
  const includeArchived = opts.archivable ? queryBool(req.query, "include_archived") : true;
  const inRange = createdAtFilter(req.query);
  const selected: Obj[] = [];
  for (const o of items) {
    if (!includeArchived && o.archived_at) continue;
    if (!inRange(o.created_at)) continue;
    if (opts.filter && !opts.filter(o)) continue;
    selected.push(o);
  }
  return paginate(selected, byCreated, pageParams(req.query, kit.dialect.limits), {
    bidirectional: opts.bidirectional ?? false,
  });
}

export function assertNotArchived(o: Obj, label: string): void {
  if (o.archived_at) throw invalid(`${label} ${o.id} is archived and cannot be modified`);
}

/** `POST …/archive`: sets `archived_at` once; archiving again is a no-op answering the object. */
export function archive(kit: Kit, o: Obj): Obj {
  if (!o.archived_at) {
    const now = kit.now();
    o.archived_at = now;
    o.updated_at = now;
  }
  return o;
}

export function deleted(id: string, type: string): { id: string; type: string } {
  return { id, type: `${type}_deleted` };
}

export function param(req: Request, name: string): string {
  const v = req.params[name];
  return typeof v === "string" ? v : "";
}

/**
 * A new object: its id (drawn before `fields` is read, so a refused body still uses one, as the
 * providers do), type, fields and timestamps, and `archived_at: null` where the dialect archives.
 */
export function newObject(
  kit: Kit,
  type: IdKind,
  fields: () => Record<string, unknown>,
  archivable: boolean,
): Obj {
  const now = kit.now();
  const id = kit.newId(type);
  return {
    id,
    type,
    ...fields(),
    created_at: now,
    updated_at: now,
    ...(archivable ? { archived_at: null } : {}),
  };
}
