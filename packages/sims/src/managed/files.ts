import type { Router } from "express";
import { fileBytes, readMultipart } from "../core/multipart.js";
import { deleted, listPage, lookup, param } from "./common.js";
import { invalid } from "./errors.js";
import type { Kit, Obj } from "./state.js";

const BY_EXTENSION: Record<string, string> = {
  md: "text/markdown",
  txt: "text/plain",
  csv: "text/csv",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  py: "text/x-python",
  js: "text/javascript",
  ts: "text/x-typescript",
  html: "text/html",
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  zip: "application/zip",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
};

/** provider_d `purpose: user_data` takes documents and images only (it rejects `text/plain`). */
const USER_DATA_TYPES = new Set([
  "application/pdf",
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "text/csv",
  BY_EXTENSION.docx,
  BY_EXTENSION.xlsx,
  BY_EXTENSION.pptx,
]);

export function mimeType(filename: string, sent: string): string {
  const declared = sent.split(";")[0]?.trim().toLowerCase() ?? "";
  if (declared && declared !== "application/octet-stream") return declared;
  const ext = filename.toLowerCase().split(".").pop() ?? "";
  return BY_EXTENSION[ext] ?? "application/octet-stream";
}

const MAX_FILE_BYTES = 500 * 1024 * 1024;

export function fileRoutes(router: Router, kit: Kit): void {
  const withPurpose = kit.dialect.name === "provider_d";

  router.post("/files", async (req, res) => {
    const form = await readMultipart(req);
    const parts = await fileBytes(form, "file");
    const part = parts[0];
    if (!part || parts.length > 1) throw invalid('file: exactly one file part named "file" is required');
    if (part.bytes.length === 0) throw invalid("file: the uploaded file is empty");
    if (part.bytes.length > MAX_FILE_BYTES) throw invalid("file: larger than 500 MB");
    const filename = part.name || "upload";
    const mime = mimeType(filename, part.type);
    const f: Obj = {
      id: kit.newId("file"),
      type: "file",
      filename,
      mime_type: mime,
      size_bytes: part.bytes.length,
      created_at: kit.now(),
    };
    if (withPurpose) {
      const purpose = form.get("purpose");
      if (purpose !== "agent" && purpose !== "user_data") {
        throw invalid(`purpose: required, one of "agent", "user_data"`);
      }
      if (purpose === "user_data" && !USER_DATA_TYPES.has(mime)) {
        throw invalid(`file: MIME type ${mime} is not accepted for purpose "user_data"`);
      }
      f.purpose = purpose;
    } else {
      // Uploaded files cannot be downloaded again on provider_c; only seeded ones can.
      f.downloadable = false;
    }
    const s = kit.state();
    s.files.set(f.id, f);
    s.fileContents.set(f.id, Buffer.from(part.bytes).toString("base64"));
    res.json(f);
  });

  router.get("/files", (req, res) => {
    res.json(listPage(kit, req, kit.state().files.values()));
  });
  router.get("/files/:id", (req, res) => {
    res.json(lookup(kit.state().files, param(req, "id"), "file"));
  });
  router.delete("/files/:id", (req, res) => {
    const s = kit.state();
    const f = lookup(s.files, param(req, "id"), "file");
    s.files.delete(f.id);
    s.fileContents.delete(f.id);
    res.json(deleted(f.id, "file"));
  });
  if (!withPurpose) {
    router.get("/files/:id/content", (req, res) => {
      const s = kit.state();
      const f = lookup(s.files, param(req, "id"), "file");
      if (!f.downloadable) throw invalid(`file ${f.id} is not downloadable`);
      res.type(f.mime_type).send(Buffer.from(s.fileContents.get(f.id) ?? "", "base64"));
    });
  }
}
