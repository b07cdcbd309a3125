import type { Request, Router } from "express";
import { fileBytes, readMultipart } from "../core/multipart.js";
import { body } from "../kit/body.js";
import { h, WireError } from "../kit/errors.js";
import { sha256 } from "../kit/records.js";
import { answer } from "../kit/routes.js";
import { readSkillZip } from "../kit/skillzip.js";
import { put, type Rec } from "../kit/store.js";
import {
  assertFreeName,
  bad,
  type Ctx,
  find,
  listPage,
  missing,
  now,
  removeRecord,
  stamp,
  view,
} from "./common.js";

/**
 * The provider's own skills (`?source=official`), referenced as `{type:"official"}` by id or by
 * catalog name.
 */
export const OFFICIAL_SKILLS: Rec[] = ["pdf", "docx", "xlsx", "pptx"].map((name) => ({
  id: `skill_${Buffer.from(`official-${name}`).toString("base64url")}`,
  type: "skill",
  name,
  description: `Official ${name} skill`,
  source: "official",
  status: "active",
  latest_version: "1.0",
}));

/**
 * Asynchronous checks (file audit, skill scan) settle here, on the simulated clock or after the
 * configured number of polls that still saw the pending state. `poll` is true for GET by id.
 */
function settle(
  rec: Record<string, unknown>,
  pending: string,
  ms: number,
  polls: number,
  nowMs: number,
  poll: boolean,
): string {
  if (rec.status !== pending) return rec.status as string;
  const polled = (rec._polls as number | undefined) ?? 0;
  if (nowMs >= (rec._started_ms as number) + ms || polled >= polls) {
    rec.status = rec._verdict;
  } else if (poll) {
    rec._polls = polled + 1;
  }
  return rec.status as string;
}

export function fileStatus(ctx: Ctx, rec: Rec, poll = false): string {
  const s = ctx.state.settings;
  return settle(rec, "checking", s.file_audit_ms, s.file_audit_polls, ctx.clock.now(), poll);
}

function versionStatus(ctx: Ctx, v: Record<string, unknown>, poll = false): string {
  const s = ctx.state.settings;
  return settle(v, "security_scanning", s.skill_scan_ms, s.skill_scan_polls, ctx.clock.now(), poll);
}

function auditVerdict(filename: string): string {
  if (/eicar|virus/i.test(filename)) return "rejected";
  if (/\.(exe|dll|bat|msi)$/i.test(filename)) return "type_rejected";
  return "available";
}

export function fileRoutes(r: Router, ctx: Ctx): void {
  const file = (req: Request) => find(ctx, "files", req.params.id as string, "file");
  r.post(
    "/files",
    h(async (req, res) => {
      const [part] = await fileBytes(await readMultipart(req), "file");
      if (!part) throw bad("multipart field file is required");
      const filename = part.name || "upload.bin";
      const id = ctx.ids.next("file_");
      ctx.state.blobs.set(id, part.bytes);
      const rec = put(ctx.state, "files", {
        id,
        type: "file",
        status: "checking",
        filename,
        mime_type: part.type || "application/octet-stream",
        size_bytes: part.bytes.byteLength,
        ...stamp(ctx),
        _started_ms: ctx.clock.now(),
        _verdict: auditVerdict(filename),
        _sha256: sha256(part.bytes),
      });
      fileStatus(ctx, rec);
      res.json(view(rec));
    }),
  );
  r.get(
    "/files",
    h((req, res) => {
      const items = [...ctx.state.objects.files.values()];
      res.json(
        listPage(ctx, req, items, (f) => {
          fileStatus(ctx, f);
          return view(f);
        }),
      );
    }),
  );
  r.get(
    "/files/:id",
    h((req, res) => {
      const rec = file(req);
      fileStatus(ctx, rec, true);
      res.json(view(rec));
    }),
  );
  r.delete(
    "/files/:id",
    h((req, res) => {
      const rec = file(req);
      ctx.state.blobs.delete(rec.id);
      res.json(removeRecord(ctx, "files", rec, "file"));
    }),
  );
}

/** A skill package read from an uploaded file; any "not usable yet" is the live API's 500. */
function packageFrom(ctx: Ctx, fileId: unknown) {
  if (typeof fileId !== "string") throw bad("file_id is required");
  const f = ctx.state.objects.files.get(fileId);
  const bytes = ctx.state.blobs.get(fileId);
  // A part labelled application/zip is stored where the skills service does not look. A lookup of
  // a file still being audited counts as a poll, so a client retrying on this 500 gets through.
  if (!f || !bytes || fileStatus(ctx, f, true) !== "available" || f.mime_type === "application/zip") {
    throw new WireError(500, "SKILL_FILE_NOT_FOUND", `skill file ${fileId} not found`);
  }
  const pkg = readSkillZip(bytes);
  if (pkg.root) throw bad("skill archive entries must sit at the archive root (no wrapping folder)");
  if (!pkg.name) throw bad("SKILL.md front matter must have a name");
  return { pkg, fileId, verdict: pkg.files.some((p) => /malware/i.test(p)) ? "unsafe" : "active" };
}

export function skillRoutes(r: Router, ctx: Ctx): void {
  const skill = (id: string) => find(ctx, "skills", id, "skill");
  const versions = (rec: Rec) => rec._versions as Array<Record<string, unknown>>;
  const newVersion = (number: number, fileId: string, verdict: string, files: string[]) => ({
    version: `${number}.0`,
    status: "security_scanning",
    file_id: fileId,
    files,
    created_at: now(ctx),
    _started_ms: ctx.clock.now(),
    _verdict: verdict,
  });
  /** The skill as read: its status is its latest version's (polled when `poll`). */
  const skillView = (rec: Rec, poll = false) => {
    const latest = versions(rec).at(-1)!;
    rec.status = versionStatus(ctx, latest, poll);
    return view(rec);
  };
  const versionView = (rec: Rec, v: Record<string, unknown>) => ({
    skill_id: rec.id,
    version: v.version,
    status: v.status,
    created_at: v.created_at,
  });

  r.post(
    "/skills",
    h((req, res) => {
      const { pkg, fileId, verdict } = packageFrom(ctx, body(req).file_id);
      assertFreeName(ctx.state.objects.skills.values(), "name", pkg.name);
      const rec = put(ctx.state, "skills", {
        id: ctx.ids.next("skill-", 22),
        type: "skill",
        name: pkg.name,
        description: pkg.description ?? "",
        source: "customer",
        status: "security_scanning",
        latest_version: "1.0",
        ...stamp(ctx),
        _versions: [newVersion(1, fileId, verdict, pkg.files)],
      });
      res.json(skillView(rec));
    }),
  );
  r.get(
    "/skills",
    h((req, res) => {
      const source = req.query.source;
      if (source === "official") {
        res.json({ data: OFFICIAL_SKILLS, next_page: null });
        return;
      }
      if (source !== undefined && source !== "customer") throw bad('source must be "customer" or "official"');
      res.json(listPage(ctx, req, [...ctx.state.objects.skills.values()], (s) => skillView(s)));
    }),
  );
  r.get(
    "/skills/:id",
    h((req, res) => {
      const official = OFFICIAL_SKILLS.find((s) => s.id === req.params.id);
      res.json(official ?? skillView(skill(req.params.id as string), true));
    }),
  );
  r.delete(
    "/skills/:id",
    answer((req) => removeRecord(ctx, "skills", skill(req.params.id as string), "skill")),
  );
  r.post(
    "/skills/:id/versions",
    h((req, res) => {
      const rec = skill(req.params.id as string);
      const { pkg, fileId, verdict } = packageFrom(ctx, body(req).file_id);
      if (pkg.name !== rec.name)
        throw bad(`SKILL.md name "${pkg.name}" does not match skill "${String(rec.name)}"`);
      const v = newVersion(versions(rec).length + 1, fileId, verdict, pkg.files);
      versions(rec).push(v);
      versionStatus(ctx, v);
      Object.assign(rec, {
        latest_version: v.version,
        description: pkg.description ?? rec.description,
        updated_at: v.created_at,
      });
      res.json(versionView(rec, v));
    }),
  );
  r.get(
    "/skills/:id/versions",
    h((req, res) => {
      const rec = skill(req.params.id as string);
      const data = versions(rec).map((v) => {
        versionStatus(ctx, v);
        return versionView(rec, v);
      });
      res.json({ data, next_page: null });
    }),
  );
  r.get(
    "/skills/:id/versions/:version",
    h((req, res) => {
      const rec = skill(req.params.id as string);
      const v = versions(rec).find((x) => x.version === req.params.version);
      if (!v) throw missing("skill version", req.params.version as string);
      versionStatus(ctx, v, true);
      res.json(versionView(rec, v));
    }),
  );
}

/** The status of a skill version an agent references (never counts as a poll). */
export function skillVersionStatus(ctx: Ctx, skillId: string, version: string): string | undefined {
  const official = OFFICIAL_SKILLS.find((s) => s.id === skillId);
  if (official) return version === official.latest_version ? "active" : undefined;
  const rec = ctx.state.objects.skills.get(skillId);
  const v = (rec?._versions as Array<Record<string, unknown>> | undefined)?.find(
    (x) => x.version === version,
  );
  return v ? versionStatus(ctx, v) : undefined;
}
