// Uploaded files. Neither provider can change a file in place, so every change (a new
// content digest, another source or purpose) replaces it: upload the new one, then delete.
// Files carry no metadata and keep the source's basename, so there is no ownership marker: each
// upload is journaled before its request (filename, size, the files that already had that name)
// and the run after an interrupted one finds it again in `GET /files`, adopts it and deletes any
// other upload it journaled (docs/state.md#uploads).

import { str } from "../../common/handler-kit.js";
import { fileIdOf, filesOfUploads, journalUpload, settleUploads } from "../../common/journaled-uploads.js";
import { digestBytes, readLocalFile } from "../../common/local-files.js";
import type { HandlerContext, KindHandler, RemoteObject, Spec } from "../../types.js";
import { getOrGone, idOf, ignoreGone, uploadLocalFile } from "../remote.js";
import type { Json } from "../spec.js";

interface FileProfile {
  headers?: Record<string, string>;
  /** provider_d requires `purpose`; provider_c has no such field. */
  purpose?: { field: string; fallback: string };
  /** provider_d answers the id in `file_id` or `id`. */
  idKeys: string[];
}

export function fileHandler(profile: FileProfile): KindHandler {
  const headers = profile.headers ?? {};
  const purposeOf = (spec: Json) =>
    profile.purpose ? (str(spec.purpose) ?? profile.purpose.fallback) : undefined;

  const toRemote = (remote: Json, id: string): RemoteObject => ({
    id,
    spec: {},
    extra: { filename: str(remote.filename) },
  });

  return {
    // Only what reaches the provider: the uploaded name (basename of source), purpose and bytes.
    async desired(spec, ctx) {
      const { filename: name, bytes } = await readLocalFile(ctx.configDir, str(spec.source) ?? "");
      const purpose = purposeOf(spec);
      return { filename: name, ...(purpose ? { purpose } : {}), content_digest: digestBytes(bytes) };
    },
    replaceOn: ["filename", "purpose", "content_digest"],

    async create(ctx: HandlerContext, spec: Spec) {
      const purpose = purposeOf(spec);
      const fields = profile.purpose && purpose ? { [profile.purpose.field]: purpose } : {};
      if (!(profile.purpose && purpose) && spec.purpose !== undefined)
        ctx.warn("purpose is not part of this provider's file upload; not sent");
      const source = str(spec.source) ?? "";
      const local = await readLocalFile(ctx.configDir, source);
      await journalUpload(ctx, { filename: local.filename, size: local.bytes.byteLength, unique: false });
      const body = await uploadLocalFile(ctx.http, ctx.configDir, source, {
        fields,
        headers,
        signal: ctx.signal,
      });
      return toRemote(body, idOf(body, ...profile.idKeys));
    },

    async read(ctx, id) {
      const remote = await getOrGone(ctx.http, { path: `/files/${id}`, headers, signal: ctx.signal });
      return remote === "gone" ? "gone" : toRemote(remote, id);
    },

    async remove(ctx, id) {
      await ignoreGone(() =>
        ctx.http.request({ method: "DELETE", path: `/files/${id}`, headers, signal: ctx.signal }),
      );
    },

    // Only an upload this project journaled is its own: the newest is adopted, settleUploads
    // deletes the others.
    async findOwned(ctx, _owner, exclude) {
      const found = await filesOfUploads(ctx, ctx.leftoverUploads ?? []);
      const newest = found.filter((f) => !exclude?.has(fileIdOf(f))).at(-1);
      return newest ? toRemote(newest, fileIdOf(newest)) : undefined;
    },
    settleUploads,

    createBeforeDestroy: true,
  };
}
