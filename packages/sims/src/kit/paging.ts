import { WireError } from "./errors.js";

/**
 * Creation order and cursors. Every record gets a sequence number when stored; cursors name a
 * sequence number, so a page boundary stays valid when the object it names is deleted meanwhile.
 */
export class Sequencer {
  private next = 1;
  readonly seqOf = new Map<string, number>();
  assign(id: string): number {
    const existing = this.seqOf.get(id);
    if (existing !== undefined) return existing;
    const n = this.next++;
    this.seqOf.set(id, n);
    return n;
  }
  of(id: string): number | undefined {
    return this.seqOf.get(id);
  }
}

interface PageRequest {
  limit: number;
  /** Sequence number after which the page starts (0 = from the beginning). */
  afterSeq: number;
  /** Newest first: the page holds items created before `afterSeq` (0 = from the newest). */
  descending?: boolean;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

/** Items (already filtered, in creation order) after the cursor, at most `limit` of them. */
export function slicePage<T extends { id: string }>(items: T[], seq: Sequencer, req: PageRequest): Page<T> {
  const out: T[] = [];
  let hasMore = false;
  const ordered = req.descending ? [...items].reverse() : items;
  for (const item of ordered) {
    const n = seq.of(item.id) ?? 0;
    if (req.descending ? req.afterSeq > 0 && n >= req.afterSeq : n <= req.afterSeq) continue;
    if (out.length === req.limit) {
      hasMore = true;
      break;
    }
    out.push(item);
  }
  return { items: out, hasMore };
}

/** Opaque page tokens (`page=` / `next_page`): base64url of the last sequence number served. */
export function encodePageToken(seq: number): string {
  return Buffer.from(`p:${seq}`).toString("base64url");
}

export function decodePageToken(token: string): number | undefined {
  const text = Buffer.from(token, "base64url").toString("utf8");
  const m = /^p:(\d+)$/.exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * The paging query of provider_a and provider_b, read the same way by both: `limit` in [1, max],
 * `page` a token this simulator issued (its cursor; 0 when absent), `order` "asc" or "desc".
 * Each throws the 400 both simulators answer.
 */
export function queryLimit(raw: unknown, dflt: number, max: number): number {
  const limit = parseLimit(raw, dflt, max);
  if (limit === undefined) throw new WireError(400, "", `limit must be an integer between 1 and ${max}`);
  return limit;
}

export function queryPageCursor(raw: unknown): number {
  if (raw === undefined || raw === "") return 0;
  const seq = typeof raw === "string" ? decodePageToken(raw) : undefined;
  if (seq === undefined) throw new WireError(400, "", "page is not a valid page token");
  return seq;
}

export function queryDescending(raw: unknown): boolean {
  if (raw !== undefined && raw !== "asc" && raw !== "desc")
    throw new WireError(400, "", 'order must be "asc" or "desc"');
  return raw === "desc";
}

/** Parses `limit`; undefined when malformed or out of [1, max]. */
export function parseLimit(raw: unknown, dflt: number, max: number): number | undefined {
  if (raw === undefined || raw === "") return dflt;
  if (typeof raw !== "string" || !/^\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= 1 && n <= max ? n : undefined;
}
