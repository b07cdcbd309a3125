// provider_a files: multipart upload (filename = basename of `source`), then the content audit
// (`checking` → `available`) is awaited with a bounded, announced wait before anything binds it.
// Files carry no metadata, so every upload is journaled in state before its request (filename,
// size, and the files that already had that name): a run that dies before recording the result
// lets the next one find the upload again, adopt it or delete it (docs/state.md#uploads).
import { basename } from "node:path";
import { getOrGone, multipartFile, removeTolerant, send, str, type Wire } from "../../common/handler-kit.js";
import {
  filesOfUploads,
  journalUpload,
  reusableUpload,
  settleUploads,
} from "../../common/journaled-uploads.js";
import { readLocalFile } from "../../common/local-files.js";
import { pollUntil } from "../../common/wait.js";
import type { HandlerContext, KindHandler, RemoteObject } from "../../types.js";
import type { ProviderAOptions } from "./options.js";

interface FileDecl {
  source: string;
  name?: string;
  purpose?: string;
}

// The journaled-upload helpers moved to common/ (provider_c and provider_d files use them too);
// skills and deployments still import them from here.
export { filesOfUploads, journalUpload, reusableUpload, settleUploads };

export const AUDIT_FAILED = new Set(["rejected", "type_rejected"]);

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
