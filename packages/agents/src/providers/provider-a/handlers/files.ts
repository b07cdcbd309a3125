// provider_a files: multipart upload (filename = basename of `source`), then the content audit
// (`checking` → `available`) is awaited with a bounded, announced wait before anything binds it.
// Files carry no metadata, so every upload is journaled in state before its request (filename,
// size, and the files that already had that name): a run that dies before recording the result
// lets the next one find the upload again, adopt it or delete it (docs/state.md#uploads).
import { basename } from "node:path";
import { getOrGone, multipartFile, removeTolerant, send, str, type Wire } from "../../common/handler-kit.js";
import { readLocalFile } from "../../common/local-files.js";
import { collect, walkPages } from "../../common/paging.js";
import { pollUntil } from "../../common/wait.js";
import type { HandlerContext, KindHandler, ListContext, RemoteObject, UploadIntent } from "../../types.js";
import type { ProviderAOptions } from "./options.js";

interface FileDecl {
  source: string;
  name?: string;
  purpose?: string;
}

const AUDIT_FAILED = new Set(["rejected", "type_rejected"]);

export async function uploadFile(
  ctx: HandlerContext,
  opts: ProviderAOptions,
  source: string,
  filename?: string,
  mimeType?: string,
): Promise<Wire> {
  const local = await readLocalFile(ctx.configDir, source);
  const name = filename ?? local.filename;
  await journalUpload(ctx, { filename: name, size: local.bytes.byteLength, unique: false });
  const form = multipartFile("file", local.bytes, name, mimeType ?? local.mimeType);
  const created = await send(ctx, ctx.http, { method: "POST", path: "/files", body: form });
  return waitAvailable(ctx, opts, String(created.id), created);
}

/**
 * Journals an upload before its request. A filename that is not `unique` (a declared file keeps
 * its basename) is journaled with the ids of the files that already carry it, so a later run never
 * takes one of those for this upload.
 */
export async function journalUpload(
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
}

export function listFiles(ctx: ListContext): Promise<Wire[]> {
  return collect(walkPages<Wire>(ctx.http, "/files", {}, ctx.signal));
}

/** The listed files a journaled upload may have made, oldest first. */
export function filesOfUpload(upload: UploadIntent, listed: readonly Wire[]): Wire[] {
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
export async function filesOfUploads(ctx: ListContext, uploads: readonly UploadIntent[]): Promise<Wire[]> {
  if (uploads.length === 0) return [];
  const listed = await listFiles(ctx);
  const seen = new Map<string, Wire>();
  for (const upload of uploads) for (const f of filesOfUpload(upload, listed)) seen.set(String(f.id), f);
  return [...seen.values()];
}

/** Deletes what the journaled uploads made, apart from the ids in `keep` (KindHandler.settleUploads). */
export async function settleUploads(
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
}

export async function waitAvailable(
  ctx: HandlerContext,
  opts: ProviderAOptions,
  id: string,
  first?: Wire,
): Promise<Wire> {
  let current = first;
  return pollUntil({
    what: `provider_a content audit of file ${id}`,
    policy: opts.fileAudit,
    sleep: opts.sleep,
    signal: ctx.signal,
    onWait: (m) => ctx.warn(m),
    read: async () => {
      if (current) {
        const value = current;
        current = undefined;
        return value;
      }
      return send(ctx, ctx.http, { method: "GET", path: `/files/${id}` });
    },
    classify: (file) => {
      const status = str(file.status);
      if (status === undefined || status === "available") return "done";
      if (AUDIT_FAILED.has(status)) return { failed: `the provider ${status} the file` };
      return "pending";
    },
  });
}

function toRemote(wire: Wire): RemoteObject {
  return { id: String(wire.id), spec: { filename: wire.filename }, extra: { status: wire.status } };
}

export function createFileHandler(opts: ProviderAOptions): KindHandler {
  return {
    replaceOn: ["source", "sha256", "filename"],
    async desired(spec, dctx) {
      const decl = spec as unknown as FileDecl;
      const local = await readLocalFile(dctx.configDir, decl.source);
      return { ...spec, filename: basename(decl.source), sha256: local.sha256 };
    },
    async create(ctx, spec) {
      return toRemote(await uploadFile(ctx, opts, (spec as unknown as FileDecl).source));
    },
    async read(ctx, id, prior) {
      const wire = await getOrGone(ctx.http, `/files/${id}`, ctx.signal);
      if (wire === "gone") return "gone";
      // Adopting an interrupted run's upload: what binds the file needs its audit passed.
      if (!prior && ctx.leftoverUploads?.length) return toRemote(await waitAvailable(ctx, opts, id, wire));
      return toRemote(wire);
    },
    async remove(ctx, id) {
      await removeTolerant(ctx.http, "DELETE", `/files/${id}`, ctx.signal);
    },
    // Files carry no ownership metadata: only an upload this project journaled is its own. The
    // newest one that passed (or is still in) its audit is adopted; settleUploads deletes the rest.
    async findOwned(ctx) {
      const found = (await filesOfUploads(ctx, ctx.leftoverUploads ?? [])).filter(
        (f) => !AUDIT_FAILED.has(String(f.status)),
      );
      const newest = found.at(-1);
      return newest ? toRemote(newest) : undefined;
    },
    settleUploads,
  };
}
