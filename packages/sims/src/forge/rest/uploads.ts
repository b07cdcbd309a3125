import express from "express";
import type { SimContext } from "../../core/sim.js";
import { loadProject } from "../model/access.js";
import { ACCESS, type ForgeState, nextId } from "../model/state.js";
import { missing, notFound } from "../wire/answers.js";
import type { Routes } from "../wire/router.js";

/** Project uploads (files markdown links to): a multipart `file` in, the markdown linking it out. */

const UPLOAD_LIMIT = 10 * 1024 * 1024;

export function uploadRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;

  // uploads: multipart `file`, answered with the markdown that links to it
  r.post(
    "/projects/:id/uploads",
    express.raw({ type: "multipart/form-data", limit: UPLOAD_LIMIT }),
    async (req, res) => {
      const p = loadProject(s(), req, res, ACCESS.guest);
      if (!p) return;
      const type = req.headers["content-type"] ?? "";
      if (!Buffer.isBuffer(req.body) || !type.startsWith("multipart/form-data")) return missing(res, "file");
      let file: unknown;
      try {
        file = (await new Response(req.body, { headers: { "content-type": type } }).formData()).get("file");
      } catch {
        return missing(res, "file");
      }
      if (!(file instanceof Blob)) return missing(res, "file");
      const filename = (file as File).name || "file";
      const secret = s().ids.next("", 32);
      const row = {
        id: nextId(s(), "record2"),
        project_id: p.id,
        secret,
        filename,
        content: Buffer.from(await file.arrayBuffer()).toString("base64"),
        content_type: file.type || "application/octet-stream",
        created_at: s().clock.iso(),
      };
      ctx.state.uploads.push(row);
      const url = `/uploads/${secret}/${filename}`;
      const image = /\.(png|jpe?g|gif|svg|webp)$/i.test(filename);
      const alt = filename.replace(/\.[^.]*$/, "");
      res.status(201).json({
        id: row.id,
        alt,
        url,
        full_path: `/-/project/${p.id}/uploads/${secret}/${filename}`,
        markdown: `${image ? "!" : ""}[${alt}](${url})`,
      });
    },
  );

  // GitLab 17.4+: an upload by secret and file name (the bytes, with their type)
  r.get("/projects/:id/uploads/:secret/:filename", (req, res) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const u = ctx.state.uploads.find(
      (x) => x.project_id === p.id && x.secret === req.params.secret && x.filename === req.params.filename,
    );
    if (!u) return notFound(res, "Upload");
    res.setHeader("Content-Type", u.content_type);
    res.setHeader("Content-Disposition", `attachment; filename="${u.filename}"`);
    res.send(Buffer.from(u.content, "base64"));
  });
}
