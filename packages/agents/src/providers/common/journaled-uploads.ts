// Uploads that carry no ownership metadata (a `POST /files` takes only the bytes and a filename on
// provider_a, provider_c and provider_d) are journaled on their resource's intent before the
// request, so the run after an interrupted one finds them again in `GET /files`: adopted, or
// deleted when unused (docs/state.md#uploads). Both wire dialects list files the same way
// (`limit` + `page` → `{data, next_page}`), each file with its `filename` and `size_bytes`; a
// provider that lists them otherwise (provider_b's Forward File API: `after_id`) passes its lister.
import type { HandlerContext, ListContext, UploadIntent } from "../types.js";
import { removeTolerant, str, type Wire } from "./handler-kit.js";
import { collect, walkPages } from "./paging.js";

/** A listed file's id (provider_d may answer it as `file_id`). */
export function fileIdOf(file: Wire): string {
  return str(file.id) ?? str(file.file_id) ?? "";
}

export function listFiles(ctx: ListContext): Promise<Wire[]> {
  return collect(walkPages<Wire>(ctx.http, "/files", {}, ctx.signal));
}

/** Every file `ctx.http` holds, each with its `filename`, `size_bytes` and `created_at`. */
export type FileLister = (ctx: ListContext) => Promise<Wire[]>;

/**
 * Journals an upload before its request. A filename that is not `unique` (a declared file keeps
 * its basename) is journaled with the ids of the files that already carry it, so a later run never
 * takes one of those for this upload.
 */
export async function journalUpload(
  ctx: HandlerContext,
  upload: { filename: string; size: number; unique: boolean; carries?: string; digest?: string },
  list: FileLister = listFiles,
): Promise<void> {
  if (!ctx.journalUpload) return;
  const before = upload.unique
    ? undefined
    : (await list(ctx)).filter((f) => f.filename === upload.filename).map(fileIdOf);
  await ctx.journalUpload({
    filename: upload.filename,
    size: upload.size,
    since: new Date().toISOString(),
    ...(before ? { before } : {}),
    ...(upload.carries ? { carries: upload.carries } : {}),
    ...(upload.digest ? { digest: upload.digest } : {}),
  });
}

/** The listed files a journaled upload may have made, oldest first. */
export function filesOfUpload(upload: UploadIntent, listed: readonly Wire[]): Wire[] {
  return listed
    .filter(
      (f) =>
        f.filename === upload.filename &&
        Number(f.size_bytes) === upload.size &&
        !upload.before?.includes(fileIdOf(f)),
    )
    .sort((a, b) => String(a.created_at ?? "").localeCompare(String(b.created_at ?? "")));
}

/** The files every journaled upload of `uploads` made (each id once, oldest first). */
export async function filesOfUploads(
  ctx: ListContext,
  uploads: readonly UploadIntent[],
  list: FileLister = listFiles,
): Promise<Wire[]> {
  if (uploads.length === 0) return [];
  const listed = await list(ctx);
  const seen = new Map<string, Wire>();
  for (const upload of uploads) for (const f of filesOfUpload(upload, listed)) seen.set(fileIdOf(f), f);
  return [...seen.values()];
}

/**
 * The newest file an interrupted run uploaded with exactly these bytes (journaled as carrying
 * `carries` with `digest`) that `usable` accepts: reused instead of uploading a copy, so repeated
 * kills between an upload and the call that uses it leave one upload, not one each.
 */
export async function reusableUpload(
  ctx: HandlerContext,
  carries: string,
  digest: string,
  usable: (file: Wire) => boolean = () => true,
  list: FileLister = listFiles,
): Promise<Wire | undefined> {
  const same = (ctx.leftoverUploads ?? []).filter((u) => u.carries === carries && u.digest === digest);
  return (await filesOfUploads(ctx, same, list)).filter(usable).at(-1);
}

/** Deletes what the journaled uploads made, apart from the ids in `keep` (KindHandler.settleUploads). */
export async function settleUploads(
  ctx: HandlerContext,
  uploads: readonly UploadIntent[],
  keep: ReadonlySet<string>,
  list: FileLister = listFiles,
): Promise<void> {
  for (const file of await filesOfUploads(ctx, uploads, list)) {
    const id = fileIdOf(file);
    if (keep.has(id)) continue;
    await removeTolerant(ctx.http, "DELETE", `/files/${id}`, ctx.signal);
    ctx.warn(`deleted ${id} (${String(file.filename)}), uploaded by an interrupted run and not used`);
  }
}
