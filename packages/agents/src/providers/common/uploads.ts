// Local files a deployment or Template uploads on the user's behalf are tracked in the
// resource's state (`extra.uploads`): re-uploaded only when their content changes, and deleted
// when replaced or when the resource goes, so no orphan files pile up on the provider.
import type { HttpClient } from "../http.js";
import type { HandlerContext, ListContext, PriorState, UploadIntent } from "../types.js";
import { removeTolerant, type Wire } from "./handler-kit.js";
import { readLocalFile, sha256 } from "./local-files.js";

type UploadLedger = Record<string, { id: string; sha256: string }>;

export function priorUploads(prior: PriorState | undefined): UploadLedger {
  const uploads = prior?.extra?.uploads;
  return uploads && typeof uploads === "object" ? (uploads as UploadLedger) : {};
}

export class Uploads {
  readonly ledger: UploadLedger = {};
  constructor(
    private readonly ctx: HandlerContext,
    private readonly before: UploadLedger,
    private readonly upload: (source: string) => Promise<string>,
  ) {}

  /** The remote file id for a local source: reused when the bytes are unchanged. */
  async idFor(source: string): Promise<string> {
    const recorded = this.ledger[source];
    if (recorded) return recorded.id;
    const local = await readLocalFile(this.ctx.configDir, source);
    const known = this.before[source];
    const id = known && known.sha256 === local.sha256 ? known.id : await this.upload(source);
    this.ledger[source] = { id, sha256: local.sha256 };
    return id;
  }

  /**
   * Deletes what this attempt uploaded that no earlier save recorded: call when the save failed,
   * so a failed create or update never leaves an orphan upload behind. Best effort: the save's
   * own error is what the user needs to see.
   */
  async discardNew(http: HttpClient): Promise<void> {
    const known = new Set(Object.values(this.before).map((u) => u.id));
    for (const u of Object.values(this.ledger)) {
      if (known.has(u.id)) continue;
      await removeTolerant(http, "DELETE", `/files/${u.id}`, this.ctx.signal).catch(() => {});
    }
  }

  /** Deletes earlier uploads that the new version no longer uses (call after the save). */
  async pruneReplaced(http: HttpClient): Promise<void> {
    const keep = new Set(Object.values(this.ledger).map((u) => u.id));
    for (const u of Object.values(this.before)) {
      if (!keep.has(u.id)) await removeTolerant(http, "DELETE", `/files/${u.id}`, this.ctx.signal);
    }
  }
}

export async function deleteUploads(
  ctx: HandlerContext,
  http: HttpClient,
  ledger: UploadLedger,
): Promise<void> {
  for (const u of Object.values(ledger)) await removeTolerant(http, "DELETE", `/files/${u.id}`, ctx.signal);
}

/** Content digests of local sources for `desired`, so an edited file shows as a change. */
export async function sourceDigests(configDir: string, sources: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const source of sources) out[source] = sha256((await readLocalFile(configDir, source)).bytes);
  return out;
}

/** Every file of the provider's Files API, as its list shows them (`filename`, `size_bytes`, `created_at`). */
export type FileLister = (ctx: ListContext) => Promise<Wire[]>;

/**
 * The journal of uploads that carry no ownership metadata (provider_a files and skill packages,
 * provider_c deployment sources), over the provider's own file list: an upload is journaled
 * before its request, and a later run finds what an interrupted one made by the journaled
 * filename and size (docs/state.md#uploads).
 */
export function uploadJournal(listFiles: FileLister) {
  /** The listed files a journaled upload may have made, oldest first. */
  function filesOfUpload(upload: UploadIntent, listed: readonly Wire[]): Wire[] {
    return listed
      .filter(
        (f) =>
          f.filename === upload.filename &&
          Number(f.size_bytes) === upload.size &&
          !upload.before?.includes(String(f.id)),
      )
      .sort((a, b) => String(a.created_at ?? "").localeCompare(String(b.created_at ?? "")));
  }

  /** The files every journaled upload of `uploads` made (each id once, oldest first). */
  async function filesOfUploads(ctx: ListContext, uploads: readonly UploadIntent[]): Promise<Wire[]> {
    if (uploads.length === 0) return [];
    const listed = await listFiles(ctx);
    const seen = new Map<string, Wire>();
    for (const upload of uploads) for (const f of filesOfUpload(upload, listed)) seen.set(String(f.id), f);
    return [...seen.values()];
  }

  return {
    listFiles,
    filesOfUpload,
    filesOfUploads,
    /**
     * Journals an upload before its request. A filename that is not `unique` (a declared file
     * keeps its basename) is journaled with the ids of the files that already carry it, so a
     * later run never takes one of those for this upload.
     */
    async journalUpload(
      ctx: HandlerContext,
      upload: { filename: string; size: number; unique: boolean; carries?: string; digest?: string },
    ): Promise<void> {
      if (!ctx.journalUpload) return;
      const before = upload.unique
        ? undefined
        : (await listFiles(ctx)).filter((f) => f.filename === upload.filename).map((f) => String(f.id));
      await ctx.journalUpload({
        filename: upload.filename,
        size: upload.size,
        since: new Date().toISOString(),
        ...(before ? { before } : {}),
        ...(upload.carries ? { carries: upload.carries } : {}),
        ...(upload.digest ? { digest: upload.digest } : {}),
      });
    },
    /**
     * The newest file an interrupted run uploaded with exactly these bytes (journaled as carrying
     * `carries` with `digest`), that `usable` accepts: reused instead of uploading a copy, so
     * repeated kills between an upload and the call that uses it leave one upload, not one each.
     */
    async reusable(
      ctx: HandlerContext,
      carries: string,
      digest: string,
      usable: (file: Wire) => boolean = () => true,
    ): Promise<Wire | undefined> {
      const same = (ctx.leftoverUploads ?? []).filter((u) => u.carries === carries && u.digest === digest);
      return (await filesOfUploads(ctx, same)).filter(usable).at(-1);
    },
    /** Deletes what the journaled uploads made, apart from the ids in `keep` (KindHandler.settleUploads). */
    async settleUploads(
      ctx: HandlerContext,
      uploads: readonly UploadIntent[],
      keep: ReadonlySet<string>,
    ): Promise<void> {
      for (const file of await filesOfUploads(ctx, uploads)) {
        const id = String(file.id);
        if (keep.has(id)) continue;
        await removeTolerant(ctx.http, "DELETE", `/files/${id}`, ctx.signal);
        ctx.warn(`deleted ${id} (${String(file.filename)}), uploaded by an interrupted run and not used`);
      }
    },
  };
}
