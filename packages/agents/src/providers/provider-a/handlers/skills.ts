// provider_a skills: the directory is zipped (fflate, entries at the root), uploaded through the
// Files API as application/octet-stream, then registered with POST /skills {file_id}. The server
// scans every version asynchronously; the handler waits (bounded, announced) until it is active,
// because an agent that references a scanning version fails with AGENT_010.

import { randomBytes } from "node:crypto";
import { DeclarationError } from "../../common/errors.js";
import { getOrGone, multipartFile, removeTolerant, send, str, type Wire } from "../../common/handler-kit.js";
import { packSkill } from "../../common/local-files.js";
import { collect, firstMatch, walkPages } from "../../common/paging.js";
import { pollUntil, retryWithDelays } from "../../common/wait.js";
import { ProviderHttpError } from "../../http.js";
import type { HandlerContext, KindHandler, PriorState, RemoteObject } from "../../types.js";
import {
  AUDIT_FAILED,
  filesOfUploads,
  journalUpload,
  reusableUpload,
  settleUploads,
  waitAvailable,
} from "./files.js";
import type { ProviderAOptions } from "./options.js";

interface SkillDecl {
  source: string;
  description?: string;
  version?: string;
  origin?: "custom" | "official";
}

const SCAN_FAILED = new Set(["unsafe", "rejected", "deleted"]);
/** Set by `read` on a skill being adopted: the digest of the package its interrupted create sent. */
const MADE_FROM = "made_from_digest";
/** How far the provider's clock may be behind ours when a found skill's age is compared. */
const CLOCK_SKEW_MS = 5 * 60_000;

function fileNotReady(error: unknown): boolean {
  return error instanceof ProviderHttpError && /SKILL_FILE_NOT_FOUND/i.test(`${error.code} ${error.message}`);
}

async function uploadPackage(
  ctx: HandlerContext,
  opts: ProviderAOptions,
  source: string,
): Promise<{ fileId: string; name: string }> {
  const pkg = await packSkill(ctx.configDir, source);
  // An interrupted run (killed between the upload and the skill call) may have sent these very
  // bytes already: that package is used, not a copy, so kills never pile up packages. Its other
  // leftover packages are deleted by settleUploads when the result is recorded.
  const left = await reusableUpload(ctx, pkg.name, pkg.digest, (f) => !AUDIT_FAILED.has(String(f.status)));
  if (left) {
    await waitAvailable(ctx, opts, String(left.id));
    return { fileId: String(left.id), name: pkg.name };
  }
  // A filename of the tool's choosing, unique, journaled before the request: a run that dies
  // before recording the skill lets the next one find this upload by its name.
  const filename = `${pkg.name}.${randomBytes(6).toString("hex")}.zip`;
  await journalUpload(ctx, {
    filename,
    size: pkg.zip.byteLength,
    unique: true,
    carries: pkg.name,
    digest: pkg.digest,
  });
  // Not labelled application/zip: the skills endpoint cannot find a part labelled that way.
  const form = multipartFile("file", pkg.zip, filename, "application/octet-stream");
  const file = await send(ctx, ctx.http, { method: "POST", path: "/files", body: form });
  await waitAvailable(ctx, opts, String(file.id), file);
  return { fileId: String(file.id), name: pkg.name };
}

async function waitActive(
  ctx: HandlerContext,
  opts: ProviderAOptions,
  skillId: string,
  version: string,
): Promise<void> {
  await pollUntil({
    what: `provider_a security scan of skill ${skillId} version ${version}`,
    policy: opts.skillScan,
    sleep: opts.sleep,
    signal: ctx.signal,
    onWait: (m) => ctx.warn(m),
    read: () =>
      send(ctx, ctx.http, {
        method: "GET",
        path: `/skills/${skillId}/versions/${encodeURIComponent(version)}`,
      }),
    classify: (v) => {
      const status = str(v.status);
      if (status === "active") return "done";
      if (status && SCAN_FAILED.has(status)) return { failed: `the scan marked it ${status}` };
      return "pending";
    },
  });
}

function toRemote(wire: Wire, version: string | undefined, packageFiles?: string[]): RemoteObject {
  return {
    id: String(wire.id ?? wire.skill_id),
    spec: {},
    version,
    extra: {
      version,
      name: wire.name,
      status: wire.status,
      ...(packageFiles ? { package_files: packageFiles } : {}),
    },
  };
}

/** The uploaded zips of every version: removed with the skill so no file is left behind. */
function packageFilesOf(prior: PriorState | undefined): string[] {
  const files = prior?.extra?.package_files;
  return Array.isArray(files) ? files.filter((f): f is string => typeof f === "string") : [];
}

export function createSkillHandler(opts: ProviderAOptions): KindHandler {
  return {
    async desired(spec, dctx) {
      const decl = spec as unknown as SkillDecl;
      if (decl.origin === "official") return spec;
      const pkg = await packSkill(dctx.configDir, decl.source);
      return { ...spec, digest: pkg.digest };
    },
    async create(ctx, spec) {
      const decl = spec as unknown as SkillDecl;
      if (decl.origin === "official") {
        throw new DeclarationError(
          "provider_a.official_skill_upload",
          "official skills are referenced from agents ({type: official, skill_id}); they are not uploaded",
        );
      }
      const { fileId } = await uploadPackage(ctx, opts, decl.source);
      const skill = await retryWithDelays(
        () => send(ctx, ctx.http, { method: "POST", path: "/skills", json: { file_id: fileId } }),
        opts.skillFileRetryMs,
        fileNotReady,
        opts.sleep,
        ctx.signal,
      );
      const version = String(skill.latest_version ?? "1");
      await waitActive(ctx, opts, String(skill.id), version);
      return toRemote(skill, version, [fileId]);
    },
    async update(ctx, id, spec, prior) {
      const decl = spec as unknown as SkillDecl;
      const madeFrom = prior.extra?.[MADE_FROM];
      if (madeFrom !== undefined && madeFrom === (await packSkill(ctx.configDir, decl.source)).digest) {
        // Adopted from an interrupted run that uploaded this very content: no new version, but
        // the scan that run was waiting for must still pass before an agent references it.
        const { [MADE_FROM]: _made, ...extra } = prior.extra!;
        if (prior.version !== undefined) await waitActive(ctx, opts, id, String(prior.version));
        return { id, spec: {}, version: prior.version, extra };
      }
      const { fileId } = await uploadPackage(ctx, opts, decl.source);
      const created = await retryWithDelays(
        () =>
          send(ctx, ctx.http, { method: "POST", path: `/skills/${id}/versions`, json: { file_id: fileId } }),
        opts.skillFileRetryMs,
        fileNotReady,
        opts.sleep,
        ctx.signal,
      );
      const version = String(created.version);
      await waitActive(ctx, opts, id, version);
      return toRemote(
        { ...(await send(ctx, ctx.http, { method: "GET", path: `/skills/${id}` })), id },
        version,
        [...packageFilesOf(prior), fileId],
      );
    },
    async read(ctx, id, prior) {
      const wire = await getOrGone(ctx.http, `/skills/${id}`, ctx.signal);
      if (wire === "gone" || wire.status === "deleted") return "gone";
      // Adopting a skill an interrupted run created: its package is among that run's uploads
      // (the wire does not say which one), so all of them go with the skill.
      if (prior || !ctx.leftoverUploads?.length)
        return toRemote(wire, str(wire.latest_version), packageFilesOf(prior));
      const files = (await filesOfUploads(ctx, ctx.leftoverUploads)).map((f) => String(f.id));
      const remote = toRemote(wire, str(wire.latest_version), files);
      // The newest journaled package is the one the skill was made from (a run that made it died).
      const digest = ctx.leftoverUploads.findLast((u) => u.digest)?.digest;
      return digest ? { ...remote, extra: { ...remote.extra, [MADE_FROM]: digest } } : remote;
    },
    // Skills carry no ownership metadata: a skill is this project's only when an interrupted
    // create journaled the upload of its package, and it was created after that.
    async findOwned(ctx) {
      const uploads = (ctx.leftoverUploads ?? []).filter((u) => u.carries);
      if (uploads.length === 0) return undefined;
      const names = new Set(uploads.map((u) => u.carries));
      const earliest = Math.min(...uploads.map((u) => Date.parse(u.since))) - CLOCK_SKEW_MS;
      const found = await firstMatch(
        walkPages<Wire>(ctx.http, "/skills", {}, ctx.signal),
        (s) =>
          names.has(str(s.name)) && s.status !== "deleted" && !(Date.parse(String(s.created_at)) < earliest),
      );
      return found ? toRemote(found, str(found.latest_version)) : undefined;
    },
    settleUploads,
    async remove(ctx, id, prior) {
      await removeTolerant(ctx.http, "DELETE", `/skills/${id}`, ctx.signal);
      for (const fileId of packageFilesOf(prior)) {
        await removeTolerant(ctx.http, "DELETE", `/files/${fileId}`, ctx.signal);
      }
    },
  };
}

/**
 * The version an agent must send for a skill (mandatory on the wire): explicit → newest active
 * version → `latest_version` → "1.0", as the reference picks it.
 */
export async function pickSkillVersion(
  ctx: HandlerContext,
  skillId: string,
  explicit?: string,
): Promise<string> {
  if (explicit) return explicit;
  const versions = await collect(
    walkPages<{ version: string | number; status?: string; created_at?: string }>(
      ctx.http,
      `/skills/${skillId}/versions`,
      {},
      ctx.signal,
    ),
  );
  const active = versions
    .filter((v) => v.status === "active")
    .sort(
      (a, b) =>
        (b.created_at ?? "").localeCompare(a.created_at ?? "") || compareVersions(b.version, a.version),
    )[0];
  if (active) return String(active.version);
  const skill = await getOrGone(ctx.http, `/skills/${skillId}`, ctx.signal);
  if (skill !== "gone" && skill.latest_version !== undefined) return String(skill.latest_version);
  return "1.0";
}

function compareVersions(a: string | number, b: string | number): number {
  const pa = String(a).split(".").map(Number);
  const pb = String(b).split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0 && !Number.isNaN(d)) return d;
  }
  return 0;
}
