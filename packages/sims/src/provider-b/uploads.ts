import type { Express, Router } from "express";
import { fileBytes, readMultipart } from "../core/multipart.js";
import { h } from "../kit/errors.js";
import { sha256 } from "../kit/records.js";
import { readSkillZip } from "../kit/skillzip.js";
import { put, type Rec } from "../kit/store.js";
import {
  assertUnique,
  bad,
  type Ctx,
  conflict,
  domainItems,
  find,
  idempotent,
  listAfterId,
  listAndGetRoutes,
  missing,
  replayIfSeen,
  stamp,
  view,
} from "./common.js";
import type { Domain } from "./state.js";

const FORWARD_PURPOSES = ["user_upload", "session_resource"];
const URL_TTL_MS = 5 * 60_000;

/** The provider's own skills, listed with `?source=qoder` and referenced as `{type:"qoder"}`. */
export const BUILTIN_SKILLS: Rec[] = ["pdf", "docx", "xlsx"].map((name) => ({
  id: `skill_qoder_${name}`,
  type: "skill",
  name,
  display_title: name.toUpperCase(),
  description: `Built-in ${name} skill`,
  source: "qoder",
  latest_version: "1",
}));

function field(form: FormData, name: string): string | undefined {
  const v = form.get(name);
  return typeof v === "string" ? v : undefined;
}

/** What identifies a multipart body for `Idempotency-Key`: its text fields and each file's hash. */
async function formFingerprint(form: FormData): Promise<unknown> {
  const out: unknown[] = [];
  for (const [k, v] of form.entries()) {
    out.push([k, typeof v === "string" ? v : sha256(new Uint8Array(await v.arrayBuffer()))]);
  }
  return out;
}

function signature(id: string, expires: number): string {
  return sha256(`provider_b-sim:${id}:${expires}`).slice(0, 32);
}

export function fileRoutes(r: Router, ctx: Ctx, domain: Domain): void {
  r.post(
    "/files",
    h(async (req, res) => {
      const form = await readMultipart(req);
      const source = await formFingerprint(form);
      if (replayIfSeen(ctx, req, res, source)) return;
      const [part] = await fileBytes(form, "file");
      if (!part) throw bad("multipart field file is required");
      // A Forward upload without `purpose` is a user upload (what a client that omits it means).
      const purpose = field(form, "purpose") || (domain === "forward" ? "user_upload" : undefined);
      if (domain === "forward" && !FORWARD_PURPOSES.includes(purpose ?? "")) {
        throw bad(`purpose must be one of ${FORWARD_PURPOSES.join(", ")} on the Forward API`);
      }
      const filename = field(form, "name") || part.name || "upload.bin";
      idempotent(
        ctx,
        req,
        res,
        () => {
          const id = ctx.ids.next("file_");
          ctx.state.blobs.set(id, part.bytes);
          const rec = put(ctx.state, "files", {
            id,
            file_id: id,
            type: "file",
            filename,
            mime_type: part.type || "application/octet-stream",
            size_bytes: part.bytes.byteLength,
            downloadable: true,
            status: "available",
            purpose: purpose ?? null,
            created_at: ctx.clock.iso(),
            _domain: domain,
            _sha256: sha256(part.bytes),
          });
          return view(rec);
        },
        source,
      );
    }),
  );
  listAndGetRoutes(r, ctx, "files", "file", domain);
  r.delete(
    "/files/:id",
    h((req, res) => {
      const rec = find(ctx, "files", req.params.id as string, "file", domain);
      ctx.state.objects.files.delete(rec.id);
      ctx.state.blobs.delete(rec.id);
      res.json({ id: rec.id, type: "file_deleted" });
    }),
  );
  r.get(
    "/files/:id/content",
    h((req, res) => {
      const rec = find(ctx, "files", req.params.id as string, "file", domain);
      const expires = ctx.clock.now() + URL_TTL_MS;
      const url = `${ctx.origin}/presigned/files/${rec.id}?expires=${expires}&signature=${signature(rec.id, expires)}`;
      res.json({ url, expires_at: new Date(expires).toISOString() });
    }),
  );
}

/** Presigned downloads need no token but expire on the simulated clock. */
export function presignedRoute(app: Express, ctx: Ctx): void {
  app.get(
    "/presigned/files/:id",
    h((req, res) => {
      const id = req.params.id as string;
      const expires = Number(req.query.expires);
      if (req.query.signature !== signature(id, expires) || !(expires > ctx.clock.now())) {
        res.status(403).type("text/plain").send("URL expired or signature invalid");
        return;
      }
      const bytes = ctx.state.blobs.get(id);
      const rec = ctx.state.objects.files.get(id);
      if (!bytes || !rec) throw missing("file", id);
      res.type(String(rec.mime_type)).send(Buffer.from(bytes));
    }),
  );
}

export function skillRoutes(r: Router, ctx: Ctx, domain: Domain): void {
  r.post(
    "/skills",
    h(async (req, res) => {
      const form = await readMultipart(req);
      const source = await formFingerprint(form);
      if (replayIfSeen(ctx, req, res, source)) return;
      const [part] = await fileBytes(form, "file");
      if (!part) throw bad("multipart field file is required (a zip archive)");
      const pkg = readSkillZip(part.bytes);
      if (pkg.root) throw bad("skill archive entries must sit at the archive root");
      const type = field(form, "type") ?? "custom";
      if (type !== "custom") throw bad('type must be "custom"');
      const name = field(form, "name") || pkg.name;
      if (!name) throw bad("name is required (form field or SKILL.md front matter)");
      assertUnique(domainItems(ctx, "skills", domain, req), "name", name);
      const description = field(form, "description") ?? pkg.description ?? "";
      idempotent(
        ctx,
        req,
        res,
        () => {
          const at = ctx.clock.iso();
          const rec = put(ctx.state, "skills", {
            id: ctx.ids.next("skill_"),
            type: "skill",
            name,
            display_title: name,
            description,
            source: "custom",
            latest_version: "1",
            ...stamp(ctx),
            _domain: domain,
            _versions: [{ version: "1", files: pkg.files, created_at: at, _sha256: sha256(part.bytes) }],
          });
          return view(rec);
        },
        source,
      );
    }),
  );
  r.get(
    "/skills",
    h((req, res) => {
      const source = req.query.source;
      if (source === "qoder") {
        res.json({ data: BUILTIN_SKILLS, has_more: false, last_id: BUILTIN_SKILLS.at(-1)!.id });
        return;
      }
      if (source !== undefined && source !== "custom") throw bad('source must be "custom" or "qoder"');
      res.json(listAfterId(ctx, req, domainItems(ctx, "skills", domain, req)));
    }),
  );
  const skill = (id: string) => find(ctx, "skills", id, "skill", domain);
  const versionsOf = (rec: Rec) => rec._versions as Array<Record<string, unknown>>;
  const versionView = (rec: Rec, v: Record<string, unknown>): Record<string, unknown> => ({
    type: "skill_version",
    skill_id: rec.id,
    ...view(v),
  });
  r.get(
    "/skills/:id",
    h((req, res) => {
      const builtin = BUILTIN_SKILLS.find((s) => s.id === req.params.id);
      res.json(builtin ?? view(skill(req.params.id as string)));
    }),
  );
  r.delete(
    "/skills/:id",
    h((req, res) => {
      const rec = skill(req.params.id as string);
      const users = [...ctx.state.objects.agents.values(), ...ctx.state.objects.templates.values()].filter(
        (a) => a.status !== "archived" && JSON.stringify(a.skills ?? []).includes(`"${rec.id}"`),
      );
      if (users.length)
        throw conflict(`skill ${rec.id} is in use by ${users.map((u) => u.id).join(", ")}`, "SKILL_IN_USE");
      ctx.state.objects.skills.delete(rec.id);
      res.json({ id: rec.id, type: "skill_deleted" });
    }),
  );
  r.post(
    "/skills/:id/versions",
    h(async (req, res) => {
      const rec = skill(req.params.id as string);
      const form = await readMultipart(req);
      const [part] = await fileBytes(form, "files");
      if (!part) throw bad("multipart field files is required (a zip archive)");
      const pkg = readSkillZip(part.bytes);
      if (!pkg.root || pkg.root !== pkg.name) {
        throw bad("version archive entries must sit under one folder named after the SKILL.md name");
      }
      const versions = versionsOf(rec);
      const version = String(versions.length + 1);
      const entry = { version, files: pkg.files, created_at: ctx.clock.iso(), _sha256: sha256(part.bytes) };
      versions.push(entry);
      rec.latest_version = version;
      if (pkg.description) rec.description = pkg.description;
      rec.updated_at = entry.created_at;
      res.json(versionView(rec, entry));
    }),
  );
  r.get(
    "/skills/:id/versions",
    h((req, res) => {
      const rec = skill(req.params.id as string);
      const data = versionsOf(rec).map((v) => versionView(rec, v));
      res.json({ data, has_more: false, last_id: (data.at(-1)?.version as string | undefined) ?? null });
    }),
  );
  r.get(
    "/skills/:id/versions/:version",
    h((req, res) => {
      const rec = skill(req.params.id as string);
      const v = versionsOf(rec).find((x) => x.version === req.params.version);
      if (!v) throw missing("skill version", req.params.version as string);
      res.json(versionView(rec, v));
    }),
  );
}
