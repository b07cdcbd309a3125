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

/** Parses `limit`; undefined when malformed or out of [1, max]. */
export function parseLimit(raw: unknown, dflt: number, max: number): number | undefined {
  if (raw === undefined || raw === "") return dflt;
  if (typeof raw !== "string" || !/^\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= 1 && n <= max ? n : undefined;
}
