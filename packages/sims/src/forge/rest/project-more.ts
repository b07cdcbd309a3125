import type { Express } from "express";
import express from "express";
import type { SimContext } from "../../core/sim.js";
import { loadProject } from "../model/access.js";
import { ACCESS, type ForgeState, nextId, type Project } from "../model/state.js";
import { API, missing, notFound } from "../wire/answers.js";

/**
 * Release evidence and release asset downloads, tag signatures, and project uploads (the files
 * markdown links to), answered as GitLab's REST API answers them.
 */

const UPLOAD_LIMIT = 10 * 1024 * 1024;

export function projectMoreRoutes(app: Express, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;
  const m = () => ctx.state;
  const R = `${API}/projects/:id/releases/:tag_name`;
  const release = (p: Project, tag: string) =>
    s().releases.find((r) => r.project_id === p.id && r.tag_name === tag);

  // Premium: a new evidence snapshot of an existing release (201, body true)
  app.post(`${R}/evidence`, (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.reporter);
    if (!p) return;
    const r = release(p, String(req.params.tag_name));
    if (!r) return notFound(res);
    const tag = p.repository.tags.get(r.tag_name);
    m().evidence.push({
      id: nextId(s(), "record2"),
      project_id: p.id,
      tag_name: r.tag_name,
      sha: (tag?.target ?? "").padEnd(40, "0").slice(0, 40),
      collected_at: s().clock.iso(),
    });
    res.status(201).json(true);
  });

  // a release asset by its direct_asset_path: a redirect to the link's URL
  app.get(`${R}/downloads/*asset`, (req, res) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const r = release(p, String(req.params.tag_name));
    if (!r) return notFound(res);
    const raw = (req.params as Record<string, unknown>).asset;
    const path = `/${Array.isArray(raw) ? raw.join("/") : String(raw)}`;
    const link = m().releaseLinks.find(
      (l) => l.project_id === p.id && l.tag_name === r.tag_name && l.direct_asset_path === path,
    );
    if (!link) return notFound(res);
    res.redirect(302, link.url);
  });

  // a tag's signature (X.509, GPG or SSH); an unsigned tag is 404
  app.get(`${API}/projects/:id/repository/tags/:tag_name/signature`, (req, res) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const name = String(req.params.tag_name);
    if (!p.repository.tags.has(name)) return notFound(res, "Tag");
    const sig = m().tagSignatures[`${p.id}:${name}`];
    if (!sig) return notFound(res, "Signature");
    const base = { signature_type: sig.signature_type, verification_status: sig.verification_status };
    if (sig.signature_type === "X509")
      return void res.json({
        ...base,
        x509_certificate: {
          id: 1,
          subject: "CN=gitlab@example.org,OU=Example,O=World",
          subject_key_identifier: "BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC:BC",
          email: "gitlab@example.org",
          serial_number: 1234567890,
          certificate_status: "good",
          x509_issuer: {
            id: 1,
            subject: "CN=PKI,OU=Example,O=World",
            subject_key_identifier: "AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB",
            crl_url: "http://example.com/pki.crl",
          },
        },
      });
    res.json({
      ...base,
      gpg_key_id: 1,
      gpg_key_primary_keyid: "8254AAB3FBD54AC9",
      gpg_key_user_name: "John Doe",
    });
  });

  // uploads: multipart `file`, answered with the markdown that links to it
  app.post(
    `${API}/projects/:id/uploads`,
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
      m().uploads.push(row);
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
  app.get(`${API}/projects/:id/uploads/:secret/:filename`, (req, res) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const u = m().uploads.find(
      (x) => x.project_id === p.id && x.secret === req.params.secret && x.filename === req.params.filename,
    );
    if (!u) return notFound(res, "Upload");
    res.setHeader("Content-Type", u.content_type);
    res.setHeader("Content-Disposition", `attachment; filename="${u.filename}"`);
    res.send(Buffer.from(u.content, "base64"));
  });
}
