import { z } from "zod";
import type { ApiResult, ForgeApi } from "../forge/api.js";
import { enc } from "../forge/api.js";
import { projectId, tool } from "./define.js";

/**
 * Files in and out of a project: uploading a file for markdown, downloading an upload (a
 * comment's attachment) and a release asset. Downloads are bounded: at most max_bytes are read from
 * the forge (the rest is never transferred), and the answer says when it was cut. Text comes back
 * as text, anything else as base64.
 */

const MAX_DOWNLOAD = 1024 * 1024;
const MAX_UPLOAD = 10 * 1024 * 1024;
const maxBytes = z
  .number()
  .int()
  .min(1)
  .max(MAX_DOWNLOAD)
  .default(256 * 1024)
  .describe(`Read at most this many bytes (default 256 KiB, max ${MAX_DOWNLOAD})`);

interface Downloaded {
  bytes?: Buffer;
  truncated?: boolean;
  content_type?: string | null;
  location?: string;
}

/** A download as the model reads it: text when the bytes are UTF-8 text, base64 otherwise. */
function describe(name: string, d: Downloaded): ApiResult {
  const bytes = d.bytes ?? Buffer.alloc(0);
  let text: string | undefined;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    if (text.includes("\u0000")) text = undefined;
  } catch {
    // a cut multibyte character at the end is still text; anything else is binary
    if (d.truncated)
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(
          bytes.subarray(0, Math.max(0, bytes.length - 3)),
        );
      } catch {}
  }
  return {
    data: {
      file: name,
      content_type: d.content_type ?? null,
      bytes_read: bytes.length,
      truncated: d.truncated ?? false,
      encoding: text === undefined ? "base64" : "utf-8",
      content: text ?? bytes.toString("base64"),
    },
    page: undefined,
  };
}

/**
 * Reads a download; a redirect is followed once when it stays on the forge's REST API (the token
 * goes nowhere else), otherwise its target is answered, not fetched.
 */
async function fetchBounded(api: ForgeApi, path: string, name: string, max: number): Promise<ApiResult> {
  const r = await api.download(path, max);
  const d = r.data as Downloaded;
  if (d.location === undefined) return describe(name, d);
  if (d.location.startsWith(`${api.base}/`)) {
    const again = (await api.download(d.location.slice(api.base.length), max)).data as Downloaded;
    if (again.location === undefined) return describe(name, again);
    return { data: { file: name, redirect: again.location, fetched: false }, page: undefined };
  }
  return {
    data: {
      file: name,
      redirect: d.location,
      fetched: false,
      note: "the asset is stored outside the forge's API; it was not fetched (the token is never sent elsewhere)",
    },
    page: undefined,
  };
}

export const uploadTools = [
  tool({
    name: "upload_markdown",
    description:
      "Upload a file (base64 content) to a project and get the markdown that links to it, for issue, merge request or wiki text.",
    write: true,
    endpoint: "POST /projects/:id/uploads",
    input: {
      project_id: projectId,
      filename: z
        .string()
        .min(1)
        .max(255)
        .regex(/^[^/\\]+$/, "a file name, without directories"),
      content: z.string().describe("The file's bytes, base64-encoded (at most 10 MiB decoded)"),
    },
    run: (api, a) => {
      const bytes = Buffer.from(a.content, "base64");
      if (bytes.length > MAX_UPLOAD) throw new Error(`the file is larger than ${MAX_UPLOAD} bytes`);
      return api.upload(`/projects/${enc(a.project_id)}/uploads`, a.filename, bytes);
    },
  }),
  tool({
    name: "download_attachment",
    description:
      "Download a project upload (an attachment linked from markdown as /uploads/<secret>/<filename>), bounded by max_bytes.",
    write: false,
    endpoint: "GET /projects/:id/uploads/:secret/:filename",
    input: {
      project_id: projectId,
      secret: z
        .string()
        .min(1)
        .describe("The upload's secret (32 characters, from its /uploads/<secret>/ URL)"),
      filename: z.string().min(1),
      max_bytes: maxBytes,
    },
    run: (api, a) =>
      fetchBounded(
        api,
        `/projects/${enc(a.project_id)}/uploads/${enc(a.secret)}/${enc(a.filename)}`,
        a.filename,
        a.max_bytes,
      ),
  }),
];

export const releaseAssetTools = [
  tool({
    name: "download_release_asset",
    description:
      "Download a release asset by its direct asset path, bounded by max_bytes. An asset stored outside the forge's API is answered as its URL, not fetched.",
    write: false,
    endpoint: "GET /projects/:id/releases/:tag_name/downloads/*direct_asset_path",
    input: {
      project_id: projectId,
      tag_name: z.string().min(1),
      direct_asset_path: z.string().min(1).describe("The link's direct asset path, e.g. /bin/app.tar.gz"),
      max_bytes: maxBytes,
    },
    run: (api, a) => {
      const segments = a.direct_asset_path.replace(/^\/+/, "").split("/").map(enc).join("/");
      return fetchBounded(
        api,
        `/projects/${enc(a.project_id)}/releases/${enc(a.tag_name)}/downloads/${segments}`,
        a.direct_asset_path,
        a.max_bytes,
      );
    },
  }),
  tool({
    name: "create_release_evidence",
    description:
      "Collect a new evidence snapshot (milestones, issues, test reports) for an existing release.",
    write: true,
    endpoint: "POST /projects/:id/releases/:tag_name/evidence",
    input: { project_id: projectId, tag_name: z.string().min(1) },
    run: (api, a) => api.post(`/projects/${enc(a.project_id)}/releases/${enc(a.tag_name)}/evidence`),
  }),
];

export const tagSignatureTools = [
  tool({
    name: "get_tag_signature",
    description: "Get the signature of a signed tag (X.509, GPG or SSH) and whether the forge verified it.",
    write: false,
    endpoint: "GET /projects/:id/repository/tags/:tag_name/signature",
    input: { project_id: projectId, tag_name: z.string().min(1) },
    run: (api, a) => api.get(`/projects/${enc(a.project_id)}/repository/tags/${enc(a.tag_name)}/signature`),
  }),
];
